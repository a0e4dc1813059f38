-- A paraphrase set is one question in every phrasing of its template: each restatement has its original's table,
-- SQL and answer, a phrasing and a text of its own within the set, and the original names the set. Rows
-- returned are failures.
{{ config(enabled=var('paraphrase_sets', false)) }}
with questions as (
    select question_id, variant, original_question_id, paraphrase_set_id, table_id, phrasing, question, sql, answer_gt
    from {{ ref('benchmark_questions') }}
),

members as (
    select * from questions where paraphrase_set_id is not null
),

restated as (
    select p.question_id, 'differs from its original in ' ||
        concat_ws(', ', case when p.table_id is distinct from o.table_id then 'table' end,
                  case when p.sql is distinct from o.sql then 'sql' end,
                  case when p.answer_gt is distinct from o.answer_gt then 'answer' end) as failed
    from members as p
    inner join questions as o on o.question_id = p.paraphrase_set_id
    where p.variant = 'paraphrase'
      and (p.table_id is distinct from o.table_id or p.sql is distinct from o.sql or p.answer_gt is distinct from o.answer_gt)
),

named as (
    select question_id, 'set ' || paraphrase_set_id || ' is not named after its original' as failed
    from members
    where (variant = 'original' and paraphrase_set_id != question_id)
       or (variant = 'paraphrase' and paraphrase_set_id != original_question_id)
       or variant not in ('original', 'paraphrase')
),

repeated as (
    select paraphrase_set_id as question_id, 'repeats a phrasing or a text' as failed
    from members
    group by paraphrase_set_id
    having count(*) != count(distinct phrasing) or count(*) != count(distinct question) or count(*) < 2
)

select * from restated
union all select * from named
union all select * from repeated
