-- A question has its own table view exactly when its view differs from its table's (int_question_instances:
-- hides_caption, blank_grid_row, grid_change) or it reads two tables (its view shows both:
-- assert_sql_text_questions_consistent), in every text format, and the view differs from the table's; a view
-- with a value set in it (set_value) shows that value, which its table does not show.
-- A naming question's view hides its answer: title naming's has no caption (its table's has the answer as
-- caption); the others' CSV lacks the answer label, which its table's CSV shows (the label is shown once in the
-- table, or the view leaves out every other place it is shown).
with instances as (
    select q.question_id, q.table_id, q.family, json_extract_string(q.answer_rows, '$[0][0]') as answer,
           coalesce(len(i.tables), 1) > 1 as several_tables,
           '"' || replace(json_extract_string(q.answer_rows, '$[0][0]'), '"', '""') || '"' as csv_field,
           q.rendering_html, q.rendering_csv, q.rendering_markdown,
           coalesce(i.hides_caption, false) as hides_caption,
           coalesce(i.hides_caption, false) or i.blank_grid_row is not null or i.grid_change is not null as changed,
           case when json_extract_string(i.grid_change, '$.kind') = 'set_value'
                then '"' || json_extract_string(i.grid_change, '$.text') || '"' end as set_field,
           json_extract_string(c.attributes, '$.kind') as family_kind
    from {{ ref('benchmark_questions') }} as q
    -- the release's questions and the obfuscated twins have no instance row: they show their table
    left join {{ ref('int_question_instances') }} as i using (question_id)
    left join {{ ref('int_registry_catalog') }} as c on c.kind = 'families' and c.name = q.family
),

questions as (
    -- the table's texts joined last, to the questions' narrow rows (a fourth of the time of joining them first)
    select s.*, t.html as t_html, t.csv as t_csv
    from instances as s
    inner join {{ ref('benchmark_tables') }} as t using (table_id)
)

select question_id, family, answer
from questions
where ((changed or several_tables) and (rendering_html is null or rendering_csv is null or rendering_markdown is null
                    or rendering_html = t_html))
   or (not changed and not several_tables and (rendering_html is not null or rendering_csv is not null or rendering_markdown is not null))
   or (family_kind = 'naming' and not changed)
   or position(set_field in rendering_csv) = 0
   -- a value set in the view is one its table does not show (a moved outlier, a planted implausible value)
   or position(set_field in t_csv) > 0
   or (hides_caption and (rendering_html like '%<caption>%' or t_html not like '%<caption>%'))
   or (family_kind = 'naming' and not hides_caption
       and (position(csv_field in rendering_csv) > 0 or position(csv_field in t_csv) = 0))
