-- No two identical questions on one table (a paraphrase set's restatements are checked by
-- assert_paraphrase_sets_consistent: they restate a question of the table, in its template's other phrasings).
select table_id, question, count(*) as n
from {{ ref('benchmark_questions') }}
where variant != 'paraphrase'
group by table_id, question
having count(*) > 1
