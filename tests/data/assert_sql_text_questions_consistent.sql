-- The sql_text questions (suite beyond) are what their family declares (int_registry_catalog): the number of tables
-- it reads, each with the family's role, the question's own first; two different tables of one dataset whose prompt
-- view shows both, one under the other (every text format; checked on CSV and HTML), a one-table question no view of
-- its own; no Table III template, SQL text, values for answers, and no answer row twice.
with families as (
    select name as family,
           json_extract_string(attributes, '$.suite') as suite,
           json_extract_string(attributes, '$.kind') as family_kind,
           cast(json_extract(attributes, '$.n_tables') as integer) as n_tables,
           cast(json_extract(attributes, '$.table_roles') as varchar[]) as table_roles
    from {{ ref('int_registry_catalog') }}
    where kind = 'families'
),

answer_rows as (
    select question_id, count(*) as n_rows, count(distinct answer_values) as n_distinct
    from {{ ref('int_question_answers') }}
    group by question_id
),

questions as (
    select q.question_id, q.family, q.suite, q.template_id, q.sql, q.answer_type, q.dataset, q.rendering_csv,
           q.rendering_html, i.tables, i.table_roles, f.n_tables, f.table_roles as family_roles, f.suite as family_suite,
           a.n_rows, a.n_distinct
    from {{ ref('benchmark_questions') }} as q
    inner join {{ ref('int_question_instances') }} as i using (question_id)
    left join families as f on f.family = q.family
    left join answer_rows as a using (question_id)
    where i.kind = 'sql_text'
),

with_tables as (
    select q.*, t1.dataset as first_dataset, t2.dataset as second_dataset, t1.csv as first_csv, t2.csv as second_csv,
           t1.html as first_html, t2.html as second_html
    from questions as q
    left join {{ ref('benchmark_tables') }} as t1 on t1.table_id = q.tables[1]
    left join {{ ref('benchmark_tables') }} as t2 on t2.table_id = q.tables[2]
)

select question_id, family, tables, table_roles
from with_tables
where n_tables is null or len(tables) <> n_tables or table_roles <> family_roles
   or suite is distinct from family_suite or template_id is not null or sql is null or answer_type <> 'values'
   or coalesce(n_rows, 0) = 0 or n_rows <> n_distinct
   or first_dataset is distinct from dataset
   or (n_tables = 1 and (rendering_csv is not null or rendering_html is not null))
   or (n_tables = 2 and (tables[1] = tables[2] or second_dataset is distinct from dataset
       or rendering_csv is distinct from ('First table:' || chr(10) || rtrim(first_csv, chr(10)) || chr(10) || chr(10)
                                          || 'Second table:' || chr(10) || rtrim(second_csv, chr(10)))
       or position(first_html in rendering_html) = 0 or position(second_html in rendering_html) = 0))
