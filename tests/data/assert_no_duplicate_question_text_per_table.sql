-- No two identical questions on one table, unless they show the table differently (a question asked again on a
-- perturbed or changed view of its table: robustness, plausibility); no two of those show the same view.
select table_id, question, coalesce(rendering_csv, '') as view, count(*) as n
from {{ ref('benchmark_questions') }}
group by table_id, question, coalesce(rendering_csv, '')
having count(*) > 1
