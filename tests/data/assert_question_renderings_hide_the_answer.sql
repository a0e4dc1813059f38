-- A naming question's own rendering hides its answer and nothing else of the kind: title_name's has no
-- caption (its table's has the answer as caption); header_name's CSV lacks the blanked label, which its
-- table's CSV shows (the label is shown once in the table, so it is then shown nowhere).
with naming as (
    select q.question_id, q.table_id, q.family, json_extract_string(q.answer_rows, '$[0][0]') as answer
    from {{ ref('benchmark_questions') }} as q
    where q.family in ('title_name', 'header_name')
),

checked as (
    select n.question_id, n.family, n.answer, r.question_id as rendered,
           '"' || replace(n.answer, '"', '""') || '"' as csv_field,
           r.html as q_html, r.csv as q_csv, r.markdown as q_markdown, t.html as t_html, t.csv as t_csv
    from naming as n
    inner join {{ ref('benchmark_tables') }} as t using (table_id)
    left join {{ ref('benchmark_question_renderings') }} as r using (question_id)
)

select question_id, family, answer
from checked
where rendered is null
   or (family = 'title_name' and (q_html like '%<caption>%' or t_html not like '%<caption>%'))
   or (family = 'header_name' and (position(csv_field in q_csv) > 0 or position(csv_field in t_csv) = 0
                                   or q_markdown is null or q_html = t_html))
