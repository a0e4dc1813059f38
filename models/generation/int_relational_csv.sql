-- Each relational table as CSV text: attribute names and Value, then one line per relational row.
with rows as (
    select * from {{ ref('int_relational_rows') }}
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
