-- Every table of benchmark_tables has its cell grid, and the grid's cells cover its rendered shape:
-- as many positions as n_rows x n_columns, none outside.
with tables as (
    select * from {{ ref('benchmark_tables') }}
),

grid as (
    select
        table_id,
        sum(rowspan * colspan) as covered,
        max(grid_row + rowspan - 1) as n_rows,
        max(grid_col + colspan - 1) as n_columns
    from {{ ref('int_table_grid') }}
    group by table_id
)

select t.table_id, t.n_rows, t.n_columns, g.covered, g.n_rows as grid_rows, g.n_columns as grid_columns
from tables as t
left join grid as g using (table_id)
where g.table_id is null
   or g.covered != t.n_rows * t.n_columns
   or g.n_rows != t.n_rows
   or g.n_columns != t.n_columns
