-- Ground truth of every question, executed set-based in DuckDB on the relational tables
-- (see macro question_answers): one row per answer row, values as canonical text.
{{ question_answers(ref('int_question_instances'), ref('int_relational_cells')) }}
