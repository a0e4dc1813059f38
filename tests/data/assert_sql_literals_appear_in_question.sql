-- Every literal of the SQL's WHERE clause, its LIMIT and its comparison threshold (taken from the sqlglot
-- AST when the question was generated) appears in the natural-language question.
with literals as (
    select question_id, question, unnest(sql_literals) as literal
    from {{ ref('int_question_instances') }}
)

select question_id, literal, question
from literals
where position(literal in question) = 0
