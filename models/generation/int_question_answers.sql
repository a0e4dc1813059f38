-- Ground truth of every question, one row per answer row, values as canonical text: the SQL families'
-- executed set-based in DuckDB on the relational tables (see macro question_answers); the questions whose
-- answer is their own SQL text (kind sql_text: two tables, OLAP grouping) run by DuckDB as they stand
-- (int_sql_text_answers, checked in SQLite by int_sql_text_cross_check); the answers of the families that
-- compute their own (kind computed / naming, generator_py/questions/families/computed.py) as the generator
-- computed them, cross-checked in int_family_cross_check.
{{ config(pre_hook="{{ one_duckdb_thread_past(ref('int_relational_cells'), 5000000) }}", post_hook="reset threads") }}
{{ question_answers("(select * from " ~ ref('int_question_instances') ~ " where kind = 'sql')", ref('int_relational_cells')) }}
union all
select question_id, answer_row, answer_values from {{ ref('int_sql_text_answers') }}
union all
select question_id, answer_row, answer_values
from (
    select question_id,
           unnest(from_json(py_answer_json, '[["VARCHAR"]]')) as answer_values,
           generate_subscripts(from_json(py_answer_json, '[["VARCHAR"]]'), 1) as answer_row
    from {{ ref('int_question_instances') }}
    where kind not in ('sql', 'sql_text')
)
