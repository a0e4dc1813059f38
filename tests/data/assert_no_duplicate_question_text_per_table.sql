-- No two identical questions on one table.
select table_id, question, count(*) as n
from {{ ref('benchmark_questions') }}
group by table_id, question
having count(*) > 1
