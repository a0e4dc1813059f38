{#
  The leaves of one header axis of every HCT, in display order: data leaves (one per distinct header
  path), aggregate leaves (a node with at least two children gets one when the axis shows aggregates:
  the root -> global, any other node -> local; none for a sum or average over a group that spans several
  values of a non-additive attribute, such as imports and exports), and, for rows in the indent format, one label row per
  parent node (which is also its aggregate row when aggregates sit on top: the implicit aggregate).

  sort_key doubles as the identity of header nodes: a node at level L is the first L entries of the
  sort key of every leaf under it. Sibling positions are >= 1, so -1 sorts first and 1e6 last.

  `tables` and `rows` (int_table_instances- and int_relational_rows-shaped relations) default to the
  benchmark's own; the layout counterfactuals pass theirs.
#}
{% macro hct_axis_entries(axis, tables=none, rows=none) %}
{%- set tables = tables or ref('int_table_instances') -%}
{%- set rows = rows or ref('int_relational_rows') -%}
{%- set before = 'left' if axis == 'col' else 'top' -%}
{%- set depth_col = axis ~ '_depth' -%}
with tables as (
    select
        table_id,
        {{ axis }}_agg_pos as agg_pos,
        agg_name,
        {{ "row_format" if axis == 'row' else "'new'" }} as layout,
        {{ axis }}_attributes as attrs,
        agg_fun in ('sum', 'avg') as adds_up,
        domain
    from {{ tables }}
),

non_additive as (
    select domain, list(attribute_name) as names
    from {{ ref('stg_domain_attributes') }}
    where lower(coalesce(additive, 'yes')) = 'no'
    group by domain
),

paths as (
    select distinct table_id, {{ axis }}_path as path, {{ axis }}_path_positions as positions
    from {{ rows }}
),

prefixes as (
    select table_id, path, positions, unnest(range(0, len(path))) as k
    from paths
),

node_children as (
    select
        table_id,
        list_slice(path, 1, k) as prefix,
        list_slice(positions, 1, k) as prefix_positions,
        count(distinct path[k + 1]) as n_children
    from prefixes
    group by all
),

nodes as (
    -- aggregable: the group's aggregate means something (no sum across imports and exports)
    select
        c.*,
        not (t.adds_up and list_has_any(list_slice(t.attrs, len(c.prefix) + 1, len(t.attrs)), coalesce(na.names, []))) as aggregable
    from node_children as c
    inner join tables as t using (table_id)
    left join non_additive as na on na.domain = t.domain
),

data_leaves as (
    select
        table_id, 'data' as kind, positions as sort_key, path as branch, path as group_path,
        len(path) as level, path[-1] as label
    from paths
),

aggregate_leaves as (
    select
        n.table_id,
        case when len(n.prefix) = 0 then 'global_agg' else 'local_agg' end as kind,
        list_append(n.prefix_positions, case when t.agg_pos = '{{ before }}' then -1 else 1000000 end) as sort_key,
        -- Local aggregates placed before their group carry no term of their own: the parent's label
        -- names them (implicit); those after, and the global one, are labelled agg_name (explicit).
        list_append(n.prefix, case when len(n.prefix) > 0 and t.agg_pos = '{{ before }}' then '' else t.agg_name end) as branch,
        n.prefix as group_path,
        case when t.layout = 'indent' and len(n.prefix) > 0 and t.agg_pos = '{{ before }}'
             then len(n.prefix) else len(n.prefix) + 1 end as level,
        case when t.layout = 'indent' and len(n.prefix) > 0 and t.agg_pos = '{{ before }}'
             then n.prefix[-1]
             when len(n.prefix) > 0 and t.agg_pos = '{{ before }}' then ''
             else t.agg_name end as label
    from nodes as n
    inner join tables as t using (table_id)
    where t.agg_pos != 'none' and n.n_children >= 2 and n.aggregable
),

label_rows as (
    -- indent format: a parent label on its own row; without a top aggregate it carries no values
    select
        n.table_id, 'label' as kind, list_append(n.prefix_positions, -1) as sort_key, n.prefix as branch,
        cast(null as varchar[]) as group_path, len(n.prefix) as level, n.prefix[-1] as label
    from nodes as n
    inner join tables as t using (table_id)
    where t.layout = 'indent' and len(n.prefix) > 0
      and not (t.agg_pos = '{{ before }}' and n.n_children >= 2 and n.aggregable)
),

entries as (
    select * from data_leaves
    union all select * from aggregate_leaves
    union all select * from label_rows
),

final as (
    select
        table_id,
        '{{ axis }}' as axis,
        row_number() over (partition by table_id order by sort_key) as entry_index,
        kind, sort_key, branch, group_path, level, label
    from entries
)

select * from final
{% endmacro %}
