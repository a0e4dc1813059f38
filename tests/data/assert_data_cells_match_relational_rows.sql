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

cell_matches as (
    select c.table_id, c.row_group, c.col_group, count(r.rel_row) as n_rows, bool_and(r.value = c.value) as same_value
    from data_cells as c
    left join rel as r on r.table_id = c.table_id and r.row_path = c.row_group and r.col_path = c.col_group
    group by c.table_id, c.row_group, c.col_group, c.value
),

row_matches as (
    select r.table_id, r.rel_row, count(c.table_id) as n_cells
    from rel as r
    left join data_cells as c on c.table_id = r.table_id and c.row_group = r.row_path and c.col_group = r.col_path
    group by r.table_id, r.rel_row
)

select table_id, 'cell maps to ' || n_rows || ' rows' as problem from cell_matches where n_rows != 1 or not same_value
union all
select table_id, 'relational row ' || rel_row || ' shown ' || n_cells || ' times' from row_matches where n_cells != 1
