-- m_tis: the pseudo-relevant table holds none of the values of at least one of the question's condition
-- attributes, so it cannot answer the question (let alone with the correct option), and it is another
-- table of the same individual template.
with items as (
    select i.item_id, i.table_id, i.other_table_id, cast(q.spec_json as json) as spec
    from {{ ref('benchmark_choice_items') }} as i
    inner join {{ ref('benchmark_questions') }} as q on q.question_id = i.source_question_id
    where i.subset = 'm_tis'
),

filters as (
    select item_id, other_table_id,
           unnest(from_json(spec -> 'filters', '[{"attribute": "VARCHAR", "values": ["VARCHAR"]}]'), recursive := true)
    from items
),

cells as (
    select table_id, attribute, attribute_value from {{ ref('int_relational_cells') }}
),

unanswerable_filters as (
    select f.item_id
    from filters as f
    where not exists (
        select 1 from cells as c
        where c.table_id = f.other_table_id and c.attribute = f.attribute and list_contains(f."values", c.attribute_value)
    )
),

tables as (
    select table_id, template_name, variant_id from {{ ref('benchmark_tables') }}
)

select i.item_id, 'the other table answers every condition' as problem
from items as i
where i.item_id not in (select item_id from unanswerable_filters)
union all
select i.item_id, 'the other table is not another table of the same individual template'
from items as i
inner join tables as t on t.table_id = i.table_id
inner join tables as o on o.table_id = i.other_table_id
where o.table_id = t.table_id or o.template_name != t.template_name or o.variant_id != t.variant_id
   or split_part(o.table_id, '--', 2) != split_part(t.table_id, '--', 2)
