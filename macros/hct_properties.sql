{#
  The 23 table-property flags of every HCT, computed from its laid-out header trees and cells, never
  copied from the template (definitions in docs/properties.md). `entries` and `cells` (int_hct_axis_entries-
  and int_hct_cells-shaped) default to the benchmark's own; the layout counterfactuals pass theirs.
#}
{% macro hct_properties(entries=none, cells=none) %}
with col_props as (
    {{ hct_axis_properties('col', 'column', entries) }}
),

row_props as (
    {{ hct_axis_properties('row', 'row', entries) }}
),

cells as (
    select * from {{ cells or ref('int_hct_cells') }}
),

others as (
    select
        table_id,
        bool_or(role = 'row_group_label') as row_group_label,
        bool_or(role = 'corner_split' and text like '% \ %') as split_header_cell
    from cells
    group by table_id
),

final as (
    select
        c.table_id,
        c.column_nesting, c.balanced_column_nesting, c.unbalanced_column_nesting,
        c.symmetric_column_nesting, c.asymmetric_column_nesting,
        r.row_nesting, r.balanced_row_nesting, r.unbalanced_row_nesting,
        r.symmetric_row_nesting, r.asymmetric_row_nesting,
        c.column_aggregation, c.global_column_aggregation, c.local_column_aggregation,
        c.explicit_column_aggregation, c.implicit_column_aggregation,
        r.row_aggregation, r.global_row_aggregation, r.local_row_aggregation,
        r.explicit_row_aggregation, r.implicit_row_aggregation,
        o.row_group_label, o.split_header_cell,
        not (c.column_nesting or r.row_nesting or c.column_aggregation or r.row_aggregation
             or o.row_group_label or o.split_header_cell) as standard_relational_table
    from col_props as c
    inner join row_props as r using (table_id)
    inner join others as o using (table_id)
)

select * from final
{% endmacro %}
