-- A naming question's own table view hides its answer, in every text format: title_name's has no caption
-- (its table's has the answer as caption); header_name's CSV lacks the blanked label, which its table's CSV
-- shows (the label is shown once in the table, so it is then shown nowhere). A question with a moved cell
-- (outlier detection) has a view showing the moved value, which its table does not show. Other questions
-- have none.
with questions as (
    select q.question_id, q.table_id, q.family, json_extract_string(q.answer_rows, '$[0][0]') as answer,
           '"' || replace(json_extract_string(q.answer_rows, '$[0][0]'), '"', '""') || '"' as csv_field,
           '"' || json_extract_string(q.moved_cell_json, '$.text') || '"' as moved_field,
           q.moved_cell_json is not null as moved,
           q.rendering_html, q.rendering_csv, q.rendering_markdown, t.html as t_html, t.csv as t_csv
    from {{ ref('benchmark_questions') }} as q
    inner join {{ ref('benchmark_tables') }} as t using (table_id)
)

select question_id, family, answer
from questions
where ((family in ('title_name', 'header_name') or moved)
       and (rendering_html is null or rendering_csv is null or rendering_markdown is null))
   or (family not in ('title_name', 'header_name') and not moved
       and (rendering_html is not null or rendering_csv is not null or rendering_markdown is not null))
   or (family = 'title_name' and (rendering_html like '%<caption>%' or t_html not like '%<caption>%'))
   or (family = 'header_name' and (position(csv_field in rendering_csv) > 0 or position(csv_field in t_csv) = 0
                                   or rendering_html = t_html))
   or (moved and (position(moved_field in rendering_csv) = 0 or position(moved_field in t_csv) > 0
                  or rendering_html = t_html))
