-- Every question whose answer is its own SQL text (kind sql_text: the two-table and OLAP families) has its check
-- (int_sql_text_cross_check): DuckDB's answer is not empty, and SQLite's equivalent query and the generator's own
-- answer give the same rows; a drill-down's or a ranked lookup's SQLite query returns every row tied at the top, so
-- an answer that is not unique fails here too.
select i.question_id, i.family, c.duckdb_answer, c.sqlite_answer, c.generator_answer
from {{ ref('int_question_instances') }} as i
left join {{ ref('int_sql_text_cross_check') }} as c using (question_id)
where i.kind = 'sql_text' and (c.question_id is null or not c.agrees or c.duckdb_answer = '[]')
