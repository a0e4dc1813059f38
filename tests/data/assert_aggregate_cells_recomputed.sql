-- Every aggregate cell equals agg_fun1 over the relational rows under its row and column groups,
-- recomputed here from T_REL by prefix matching (independently of the pivot macros), over >= 2 cells.
-- Each relational row is listed once per (row path prefix, column path prefix) of a depth some aggregate of its
-- table has, so a cell finds its rows by an equality join, not by comparing every row of its table.
with aggregates as (
    select c.table_id, c.grid_row, c.grid_col, c.row_group, c.col_group, c.value, t.agg_fun
    from {{ ref('int_hct_cells') }} as c
    inner join {{ ref('int_table_instances') }} as t using (table_id)
    where c.role = 'aggregate'
),

group_depths as (
    select distinct table_id, len(row_group) as row_depth, len(col_group) as col_depth from aggregates
),

prefixes as (
    select r.table_id, r.value, list_slice(r.row_path, 1, d.row_depth) as row_group,
           list_slice(r.col_path, 1, d.col_depth) as col_group
    from {{ ref('int_relational_rows') }} as r
    inner join group_depths as d using (table_id)
    where d.row_depth <= len(r.row_path) and d.col_depth <= len(r.col_path)
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
