{#
  Pivot: lays every relational table out as an HCT grid of anchored cells (grid_row, grid_col,
  rowspan, colspan). Header rows = column header depth, header columns = row header depth.
  The relations default to the benchmark's own; the layout counterfactuals pass theirs.
#}
{% macro hct_cells(tables=none, entries=none, group_values=none) %}
with tables as (
    select * from {{ tables or ref('int_table_instances') }}
),

entries as (
    select * from {{ entries or ref('int_hct_axis_entries') }}
),

entry_levels as (
    select *, unnest(range(1, len(sort_key) + 1)) as lvl from entries
    where kind != 'label'
),

header_nodes as (
    -- a header cell is a node: all entries sharing the first `lvl` sort-key entries
    select
        table_id, axis, lvl,
        list_slice(sort_key, 1, lvl) as node_key,
        min(entry_index) as first_index,
        count(*) as n_entries,
        any_value(branch[lvl]) as label,
        bool_or(lvl = len(sort_key)) as is_leaf_node,
        bool_or(lvl = len(sort_key) and kind != 'data') as is_aggregate
    from entry_levels
    group by table_id, axis, lvl, node_key
),

column_headers as (
    select
        n.table_id,
        n.lvl as grid_row,
        t.row_depth + n.first_index as grid_col,
        case when n.is_leaf_node then t.col_depth - n.lvl + 1 else 1 end as rowspan,
        n.n_entries as colspan,
        'column_header' as role, n.is_aggregate, n.label as text
    from header_nodes as n
    inner join tables as t using (table_id)
    where n.axis = 'col'
),

row_headers_new as (
    select
        n.table_id,
        t.col_depth + n.first_index as grid_row,
        n.lvl as grid_col,
        n.n_entries as rowspan,
        case when n.is_leaf_node then t.row_depth - n.lvl + 1 else 1 end as colspan,
        'row_header' as role, n.is_aggregate, n.label as text
    from header_nodes as n
    inner join tables as t using (table_id)
    where n.axis = 'row' and t.row_format = 'new'
),

row_headers_indent as (
    select
        e.table_id,
        t.col_depth + e.entry_index as grid_row,
        e.level as grid_col,
        1 as rowspan,
        t.row_depth - e.level + 1 as colspan,
        case when e.kind = 'label' then 'row_group_label' else 'row_header' end as role,
        e.kind != 'data' and e.kind != 'label' as is_aggregate,
        e.label as text
    from entries as e
    inner join tables as t using (table_id)
    where e.axis = 'row' and t.row_format = 'indent'
),

indentation as (
    select
        e.table_id, t.col_depth + e.entry_index as grid_row, 1 as grid_col, 1 as rowspan, e.level - 1 as colspan,
        'indent' as role, false as is_aggregate, '' as text
    from entries as e
    inner join tables as t using (table_id)
    where e.axis = 'row' and t.row_format = 'indent' and e.level > 1
),

corner as (
    select
        table_id, 1 as grid_row, 1 as grid_col,
        case when name_pos = 'none_left' then col_depth - 1 else col_depth end as rowspan,
        row_depth as colspan,
        case when name_pos = 'top_left' then 'corner_split' else 'corner' end as role,
        false as is_aggregate,
        case when name_pos = 'top_left'
             then {{ attribute_display_names('row_attributes') }} || ' \ ' || {{ attribute_display_names('col_attributes') }}
             else '' end as text
    from tables
    where not (name_pos = 'none_left' and col_depth = 1)
),

row_attribute_names as (
    -- none_left: the last header row names each row attribute above its header column
    select
        table_id, col_depth as grid_row, unnest(range(1, row_depth + 1)) as grid_col, 1 as rowspan, 1 as colspan,
        'row_attribute_name' as role, false as is_aggregate,
        replace(row_attributes[unnest(range(1, row_depth + 1))], '_', ' ') as text
    from tables
    where name_pos = 'none_left'
),

header_cells as (
    select *, cast(null as double) as value, cast(null as varchar[]) as row_group, cast(null as varchar[]) as col_group
    from (
        select * from column_headers
        union all select * from row_headers_new
        union all select * from row_headers_indent
        union all select * from indentation
        union all select * from corner
        union all select * from row_attribute_names
    )
),

value_cells as (
    select
        r.table_id,
        t.col_depth + r.entry_index as grid_row,
        t.row_depth + c.entry_index as grid_col,
        1 as rowspan, 1 as colspan,
        case when r.kind = 'label' then 'empty'
             when r.kind = 'data' and c.kind = 'data' then 'data'
             else 'aggregate' end as role,
        r.kind != 'label' and (r.kind != 'data' or c.kind != 'data') as is_aggregate,
        case when r.kind = 'label' then '' else {{ format_cell_number('g.value', 't.value_is_integer') }} end as text,
        g.value,
        r.group_path as row_group,
        c.group_path as col_group
    from entries as r
    inner join entries as c on c.table_id = r.table_id and c.axis = 'col'
    inner join tables as t on t.table_id = r.table_id
    left join {{ group_values or ref('int_hct_group_values') }} as g
        on g.table_id = r.table_id and g.row_group = r.group_path and g.col_group = c.group_path
    where r.axis = 'row'
),

final as (
    select * from header_cells
    union all
    select * from value_cells
)

select * from final
{% endmacro %}
