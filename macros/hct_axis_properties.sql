{#
  Nesting and aggregation properties of one header axis, computed from its entries (docs/properties.md):
  nesting (a data branch of length >= 2), balanced (all data branches equally long), symmetric (at the
  shallowest level where two or more nodes have children, all their subtrees are identical; when no
  level has two such nodes there is nothing to differ, so it counts as symmetric), and the aggregation
  flags (global / local, explicit when a label on the aggregate's branch is an aggregation term).
#}
{% macro hct_axis_properties(axis, prefix, entries=none) %}
with entries as (
    select * from {{ entries or ref('int_hct_axis_entries') }} where axis = '{{ axis }}'
),

terms as (
    select distinct lower(trim(term)) as term from {{ ref('stg_aggregation_terms') }}
),

data_paths as (
    select table_id, branch as path, sort_key from entries where kind = 'data'
),

subtrees as (
    select
        table_id, lvl,
        list_slice(path, 1, lvl) as node,
        string_agg(array_to_string(list_slice(path, lvl + 1, len(path)), chr(31)), chr(30) order by sort_key) as signature
    from (select *, unnest(range(1, len(path))) as lvl from data_paths)
    group by table_id, lvl, node
),

symmetry_level as (
    select table_id, min(lvl) as lvl
    from (select table_id, lvl from subtrees group by table_id, lvl having count(*) >= 2)
    group by table_id
),

symmetry as (
    select s.table_id, count(distinct s.signature) = 1 as identical
    from subtrees as s
    inner join symmetry_level as l using (table_id, lvl)
    group by s.table_id
),

aggregate_labels as (
    select
        e.table_id, e.kind,
        exists (
            select 1 from terms
            where list_contains(
                flatten(list_transform(e.branch, lambda x: regexp_split_to_array(lower(x), '[^a-z0-9]+'))), terms.term)
        ) as explicit_term
    from entries as e
    where e.kind in ('global_agg', 'local_agg')
),

nesting as (
    select
        table_id,
        max(len(path)) >= 2 as nested,
        count(distinct len(path)) = 1 as same_depth
    from data_paths
    group by table_id
),

aggregation as (
    select
        table_id,
        bool_or(kind = 'global_agg') as has_global,
        bool_or(kind = 'local_agg') as has_local,
        bool_or(explicit_term) as has_explicit,
        bool_or(not explicit_term) as has_implicit
    from aggregate_labels
    group by table_id
),

final as (
    select
        n.table_id,
        n.nested as {{ prefix }}_nesting,
        n.nested and n.same_depth as balanced_{{ prefix }}_nesting,
        n.nested and not n.same_depth as unbalanced_{{ prefix }}_nesting,
        n.nested and coalesce(s.identical, true) as symmetric_{{ prefix }}_nesting,
        n.nested and not coalesce(s.identical, true) as asymmetric_{{ prefix }}_nesting,
        a.table_id is not null as {{ prefix }}_aggregation,
        coalesce(a.has_global, false) as global_{{ prefix }}_aggregation,
        coalesce(a.has_local, false) as local_{{ prefix }}_aggregation,
        coalesce(a.has_explicit, false) as explicit_{{ prefix }}_aggregation,
        coalesce(a.has_implicit, false) as implicit_{{ prefix }}_aggregation
    from nesting as n
    left join symmetry as s using (table_id)
    left join aggregation as a using (table_id)
)

select * from final
{% endmacro %}
