{#
  A relational table (T_REL) given as int_relational_rows-shaped rows, as the long relation of cells and as
  CSV text. Shared by the originals (int_relational_cells, int_relational_csv) and the obfuscated variant.
#}
{% macro relational_cells(rows_relation) %}
with rows as (
    select * from {{ rows_relation }}
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
{% endmacro %}


{% macro relational_csv(rows_relation) %}
with rows as (
    select * from {{ rows_relation }}
),

lines as (
    select
        table_id, rel_row,
        array_to_string(list_transform(list_concat(row_labels, col_labels), lambda x: {{ csv_field_minimal('x') }}), ',')
            || ',' || {{ format_number('value') }} as line
    from rows
),

headers as (
    select distinct table_id, array_to_string(list_concat(row_attributes, col_attributes), ',') || ',Value' as header
    from rows
),

final as (
    select
        h.table_id,
        h.header || chr(10) || string_agg(l.line, chr(10) order by l.rel_row) || chr(10) as relational_csv
    from headers as h
    inner join lines as l using (table_id)
    group by h.table_id, h.header
)

select * from final
{% endmacro %}
