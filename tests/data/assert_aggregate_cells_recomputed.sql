-- Every aggregate cell equals agg_fun1 over the relational rows under its row and column groups,
-- recomputed here from T_REL by prefix matching (independently of the pivot macros), over >= 2 cells.
-- Each relational row is listed once per (row path prefix, column path prefix) it falls under, so a cell
-- finds its rows by an equality join, not by comparing every row of its table.
with aggregates as (
    select c.table_id, c.grid_row, c.grid_col, c.row_group, c.col_group, c.value, t.agg_fun
    from {{ ref('int_hct_cells') }} as c
    inner join {{ ref('int_table_instances') }} as t using (table_id)
    where c.role = 'aggregate'
),

row_prefixes as (
    select table_id, value, list_slice(row_path, 1, k) as row_group, col_path
    from (
        select table_id, value, row_path, col_path, unnest(range(0, len(row_path) + 1)) as k
        from {{ ref('int_relational_rows') }}
    )
),

prefixes as (
    select table_id, value, row_group, list_slice(col_path, 1, k) as col_group
    from (select *, unnest(range(0, len(col_path) + 1)) as k from row_prefixes)
),

recomputed as (
    select
        a.table_id, a.grid_row, a.grid_col, a.value, count(*) as n_covered,
        case any_value(a.agg_fun)
            when 'sum' then sum(r.value) when 'avg' then avg(r.value)
            when 'min' then min(r.value) when 'max' then max(r.value)
        end as expected
    from aggregates as a
    inner join prefixes as r using (table_id, row_group, col_group)
    group by a.table_id, a.grid_row, a.grid_col, a.value
)

select * from recomputed
where n_covered < 2 or abs(value - expected) > 1e-6
union all
select a.table_id, a.grid_row, a.grid_col, a.value, 0, null
from aggregates as a
anti join recomputed as r using (table_id, grid_row, grid_col)
