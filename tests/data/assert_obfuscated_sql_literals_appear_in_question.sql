-- The obfuscated questions keep the rule of their originals (assert_sql_literals_appear_in_question): every
-- literal of the mapped SQL appears in the mapped question, so table, question and SQL use the same non-words.
{{ config(enabled=var('obfuscated_variants', true)) }}
with literals as (
    select question_id, question, unnest(sql_literals) as literal
    from {{ ref('int_obfuscated_question_instances') }}
)

select question_id, literal, question
from literals
where position(literal in question) = 0
