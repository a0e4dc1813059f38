-- No two identical questions on one table, unless they show the table differently (a question asked again on a
-- perturbed or changed view of its table: robustness, plausibility); no two of those show the same view. A
-- paraphrase set's restatements are checked by assert_paraphrase_sets_consistent (they restate a question of the
-- table, in its template's other phrasings).
select table_id, question, coalesce(rendering_csv, '') as view, count(*) as n
from {{ ref('benchmark_questions') }}
where variant != 'paraphrase'
group by table_id, question, coalesce(rendering_csv, '')
having count(*) > 1
