-- T_REL of every candidate layout: its base's relational rows, row for row, split between row and column
-- attributes where the layout puts the split. Relational rows run over the leaves of all attributes in order,
-- so a row keeps its rel_row on every layout; row_leaf and col_leaf follow from the split.
with layouts as (
    select table_id, original_table_id, row_depth from {{ ref('int_counterfactual_candidates') }}
),

base as (
    select
        table_id as original_table_id, rel_row, value,
        list_concat(row_attributes, col_attributes) as attributes,
        list_concat(row_labels, col_labels) as labels,
        list_concat(row_positions, col_positions) as positions
    from {{ ref('int_sampled_rows') }}
    where table_id in (select original_table_id from layouts)
),

split as (
    select
        l.table_id, b.rel_row, b.value,
        list_slice(b.attributes, 1, l.row_depth) as row_attributes,
        list_slice(b.labels, 1, l.row_depth) as row_labels,
        list_slice(b.positions, 1, l.row_depth) as row_positions,
        list_slice(b.attributes, l.row_depth + 1, len(b.attributes)) as col_attributes,
        list_slice(b.labels, l.row_depth + 1, len(b.labels)) as col_labels,
        list_slice(b.positions, l.row_depth + 1, len(b.positions)) as col_positions
    from base as b
    inner join layouts as l using (original_table_id)
),

paths as (
    select
        *,
        list_filter(row_labels, lambda x: x is not null) as row_path,
        list_filter(row_positions, lambda p, i: row_labels[i] is not null) as row_path_positions,
        list_filter(col_labels, lambda x: x is not null) as col_path,
        list_filter(col_positions, lambda p, i: col_labels[i] is not null) as col_path_positions,
        count(distinct col_labels) over (partition by table_id) as n_col_leaves
    from split
),

final as (
    select
        table_id, rel_row,
        cast((rel_row - 1) // n_col_leaves + 1 as integer) as row_leaf,
        cast((rel_row - 1) % n_col_leaves + 1 as integer) as col_leaf,
        row_attributes, row_labels, row_path, row_path_positions,
        col_attributes, col_labels, col_path, col_path_positions,
        value
    from paths
)

select * from final order by table_id, rel_row
