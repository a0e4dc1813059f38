{#
  agg_fun of every (row header group, column header group) pair: each relational row counts in every
  pair of prefixes of its row path and its column path. A pair of two full paths is one data cell.
#}
{% macro hct_group_values() %}
with rel as (
    select r.table_id, r.row_path, r.col_path, r.value, t.agg_fun
    from {{ ref('int_relational_rows') }} as r
    inner join {{ ref('int_table_instances') }} as t using (table_id)
),

row_prefixes as (
    select *, unnest(range(0, len(row_path) + 1)) as i from rel
),

pairs as (
    select *, unnest(range(0, len(col_path) + 1)) as j from row_prefixes
),

final as (
    select
        table_id,
        list_slice(row_path, 1, i) as row_group,
        list_slice(col_path, 1, j) as col_group,
        any_value(agg_fun) as agg_fun,
        count(*) as n_cells,
        case any_value(agg_fun)
            when 'sum' then sum(value)
            when 'avg' then avg(value)
            when 'min' then min(value)
            when 'max' then max(value)
        end as value
    from pairs
    group by table_id, row_group, col_group
)

select * from final
{% endmacro %}
