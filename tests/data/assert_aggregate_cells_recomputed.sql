-- Every aggregate cell equals agg_fun1 over the relational rows under its row and column groups,
-- recomputed here from T_REL by prefix matching (independently of the pivot macros), over >= 2 cells.
with aggregates as (
    select c.table_id, c.grid_row, c.grid_col, c.row_group, c.col_group, c.value, t.agg_fun
    from {{ ref('int_hct_cells') }} as c
    inner join {{ ref('int_table_instances') }} as t using (table_id)
    where c.role = 'aggregate'
),

recomputed as (
    select
        a.table_id, a.grid_row, a.grid_col, a.value, count(*) as n_covered,
        case any_value(a.agg_fun)
            when 'sum' then sum(r.value) when 'avg' then avg(r.value)
            when 'min' then min(r.value) when 'max' then max(r.value)
        end as expected
    from aggregates as a
    inner join {{ ref('int_relational_rows') }} as r
        on r.table_id = a.table_id
       and list_slice(r.row_path, 1, len(a.row_group)) = a.row_group
       and list_slice(r.col_path, 1, len(a.col_group)) = a.col_group
    group by a.table_id, a.grid_row, a.grid_col, a.value
)

select * from recomputed
where n_covered < 2 or abs(value - expected) > 1e-6
union all
select a.table_id, a.grid_row, a.grid_col, a.value, 0, null
from aggregates as a
anti join recomputed as r using (table_id, grid_row, grid_col)
