-- Every data cell maps back to exactly one relational row with the same value, and every relational
-- row appears exactly once among its HCT's data cells.
with data_cells as (
    select table_id, row_group, col_group, value
    from {{ ref('int_hct_cells') }}
    where role = 'data'
),

rel as (
    select table_id, rel_row, row_path, col_path, value from {{ ref('int_relational_rows') }}
),

matched as (
    -- each data cell with the relational rows at its place, and each relational row with the cells at its place
    select c.table_id as cell_table, c.row_group, c.col_group, c.value as cell_value,
           r.table_id as row_table, r.rel_row, r.value as row_value
    from data_cells as c
    full outer join rel as r on r.table_id = c.table_id and r.row_path = c.row_group and r.col_path = c.col_group
),

cell_matches as (
    select cell_table as table_id, count(rel_row) as n_rows, bool_and(row_value = cell_value) as same_value
    from matched
    where cell_table is not null
    group by cell_table, row_group, col_group, cell_value
),

row_matches as (
    select row_table as table_id, rel_row, count(cell_table) as n_cells
    from matched
    where row_table is not null
    group by row_table, rel_row
)

select table_id, 'cell maps to ' || n_rows || ' rows' as problem from cell_matches where n_rows != 1 or not same_value
union all
select table_id, 'relational row ' || rel_row || ' shown ' || n_cells || ' times' from row_matches where n_cells != 1
