{#
  agg_fun of every (row header group, column header group) pair an HCT can show: each relational row
  counts in every pair of prefixes of its row path and its column path (proper prefixes only on an axis
  that shows aggregates). A pair of two full paths is one data cell. The relations default to the
  benchmark's own; the layout counterfactuals pass theirs.
#}
{% macro hct_group_values(tables=none, rows=none) %}
with rel as (
    select r.table_id, r.row_path, r.col_path, r.value, t.agg_fun, t.row_agg_pos, t.col_agg_pos
    from {{ rows or ref('int_relational_rows') }} as r
    inner join {{ tables or ref('int_table_instances') }} as t using (table_id)
),

row_prefixes as (
    select *, unnest(range(case when row_agg_pos = 'none' then len(row_path) else 0 end, len(row_path) + 1)) as i
    from rel
),

pairs as (
    select *, unnest(range(case when col_agg_pos = 'none' then len(col_path) else 0 end, len(col_path) + 1)) as j
    from row_prefixes
),

final as (
    select
        table_id,
        list_slice(row_path, 1, i) as row_group,
        list_slice(col_path, 1, j) as col_group,
        any_value(agg_fun) as agg_fun,
        count(*) as n_cells,
        case any_value(agg_fun)
            -- summed as decimals: a sum of doubles depends on the order DuckDB's threads add them in, and
            -- the same build must give the same value to its last bit (the values have at most 6 decimals)
            when 'sum' then sum(value::decimal(38, 6))::double
            when 'avg' then avg(value::decimal(38, 6))::double
            when 'min' then min(value)
            when 'max' then max(value)
        end as value
    from pairs
    group by table_id, row_group, col_group
)

select * from final
{% endmacro %}
