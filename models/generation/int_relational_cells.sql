-- T_REL of every table as a long relation: one row per (table, relational row, attribute); attribute
-- values are text ('2021'), `value` is numeric. NULL attribute_value: that hierarchy branch stops early.
with rows as (
    select * from {{ ref('int_relational_rows') }}
),

attributes as (
    select
        table_id, rel_row, value,
        unnest(list_concat(row_attributes, col_attributes)) as attribute,
        unnest(list_concat(row_labels, col_labels)) as attribute_value,
        unnest(range(1, len(row_attributes) + len(col_attributes) + 1)) as attribute_position
    from rows
),

final as (
    -- stamped here: benchmark_relational_cells is a view of this table
    select table_id, rel_row, attribute_position, attribute, attribute_value, value, build.build_fingerprint
    from attributes
    cross join (select build_fingerprint from {{ ref('stg_build_config') }}) as build
)

select * from final
