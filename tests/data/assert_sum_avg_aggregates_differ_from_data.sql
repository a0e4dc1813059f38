-- A sum or average aggregate cell never shows the same number as a data cell of its table.
with cells as (
    select c.table_id, c.role, round(cast(c.value as decimal(18, 6)), 2) as shown  -- as the HCT prints it
    from {{ ref('int_hct_cells') }} as c
    inner join {{ ref('int_table_instances') }} as t using (table_id)
    where t.agg_fun in ('sum', 'avg') and c.role in ('data', 'aggregate')
)

select a.table_id, a.shown
from cells as a
inner join cells as d on d.table_id = a.table_id and d.shown = a.shown
where a.role = 'aggregate' and d.role = 'data'
