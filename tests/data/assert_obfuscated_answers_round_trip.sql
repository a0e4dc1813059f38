-- The obfuscated variant is correct by construction: each obfuscated question's SQL text, run on its
-- obfuscated relational table, gives its answer, and that answer mapped back is the original's answer.
-- Also: every synthetic SQL question (kind sql: TReB's computed and naming questions have no twin) has its
-- obfuscated twin. Rows returned are failures.
{{ config(enabled=var('obfuscated_variants', true)) }}
with checks as (
    select * from {{ ref('int_obfuscation_check') }}
),

originals as (
    select question_id from {{ ref('int_question_instances') }} where kind = 'sql'
),

failures as (
    select question_id, 'sql_gives_answer' as failed from checks where sql_gives_answer = false
    union all
    select question_id, 'restores_original' from checks where not restores_original
    union all
    select o.question_id, 'no obfuscated twin' from originals as o
    left join checks as c on c.original_question_id = o.question_id
    where c.question_id is null
)

select * from failures
