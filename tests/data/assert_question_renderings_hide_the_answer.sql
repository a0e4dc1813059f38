-- A naming question's own table view hides its answer, in every text format: title_name's has no caption
-- (its table's has the answer as caption); header_name's CSV lacks the blanked label, which its table's CSV
-- shows (the label is shown once in the table, so it is then shown nowhere). Other questions have none, but
-- those that read two tables (their view shows both: assert_sql_text_questions_consistent).
with questions as (
    select q.question_id, q.table_id, q.family, json_extract_string(q.answer_rows, '$[0][0]') as answer,
           coalesce(len(i.tables), 1) > 1 as several_tables,
           '"' || replace(json_extract_string(q.answer_rows, '$[0][0]'), '"', '""') || '"' as csv_field,
           q.rendering_html, q.rendering_csv, q.rendering_markdown, t.html as t_html, t.csv as t_csv
    from {{ ref('benchmark_questions') }} as q
    inner join {{ ref('benchmark_tables') }} as t using (table_id)
    left join {{ ref('int_question_instances') }} as i using (question_id)
)

select question_id, family, answer
from questions
where (family in ('title_name', 'header_name')
       and (rendering_html is null or rendering_csv is null or rendering_markdown is null))
   or (family not in ('title_name', 'header_name') and not several_tables
       and (rendering_html is not null or rendering_csv is not null or rendering_markdown is not null))
   or (family = 'title_name' and (rendering_html like '%<caption>%' or t_html not like '%<caption>%'))
   or (family = 'header_name' and (position(csv_field in rendering_csv) > 0 or position(csv_field in t_csv) = 0
                                   or rendering_html = t_html))
