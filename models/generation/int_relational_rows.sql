-- T_REL: one row per relational row; labels per attribute (NULL where a hierarchy branch stops early)
-- and the header paths (labels without the NULLs) the HCT layout is built from.
with sampled as (
    select * from {{ ref('int_sampled_rows') }}
),

final as (
    select
        table_id, rel_row, row_leaf, col_leaf,
        row_attributes, row_labels, row_path, row_path_positions,
        col_attributes, col_labels, col_path, col_path_positions,
        value
    from sampled
)

select * from final
