-- Selection templates (1, 2, 3, 6, 12, 13): every answer value occurs exactly once among its table's data
-- values, so no answer can be read off two different cells.
with answer_values as (
    select q.question_id, q.table_id, unnest(a.answer_values) as answer_value
    from {{ ref('int_question_instances') }} as q
    inner join {{ ref('int_question_answers') }} as a using (question_id)
    where q.template_id in (1, 2, 3, 6, 12, 13)
),

data_values as (
    select table_id, {{ format_number('value') }} as data_value from {{ ref('int_relational_rows') }}
),

matches as (
    select v.question_id, v.answer_value, count(d.data_value) as n_cells
    from answer_values as v
    left join data_values as d on d.table_id = v.table_id and d.data_value = v.answer_value
    group by v.question_id, v.answer_value
)

select * from matches where n_cells != 1
