-- The TReB questions (suite treb) are what their family says: one answer value (a unique answer: one number,
-- or one caption / header label), no Table III template, text answers exactly for the naming families, SQL
-- text for every computation and none for naming, and the hidden part of the rendering only where asked.
with treb as (
    select q.*, a.n_rows, a.n_values
    from {{ ref('benchmark_questions') }} as q
    left join (
        select question_id, count(*) as n_rows, sum(len(list_filter(answer_values, lambda v: v is not null))) as n_values
        from {{ ref('int_question_answers') }} group by question_id
    ) as a using (question_id)
    where q.suite = 'treb'
)

select question_id, family, answer_gt, n_rows, n_values
from treb
where coalesce(n_rows, 0) <> 1 or coalesce(n_values, 0) <> 1
   or template_id is not null
   or family not in ('stdev', 'median', 'pct_change', 'agg_ratio', 'correlation', 'title_name', 'header_name')
   or (answer_type = 'text') <> (family in ('title_name', 'header_name'))
   or (sql is null) <> (family in ('title_name', 'header_name'))
   or coalesce(hides_caption, false) <> (family = 'title_name')
   or (blank_grid_row is not null) <> (family = 'header_name')
   or (blank_grid_col is not null) <> (family = 'header_name')
   -- a number's answer is one canonical number
   or (answer_type = 'values' and try_cast(json_extract_string(answer_rows, '$[0][0]') as double) is null)
