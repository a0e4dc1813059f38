-- One row per synthetic table: its template, variant, replica and layout settings.
with sampled as (
    select * from {{ ref('int_sampled_rows') }}
),

final as (
    select distinct
        table_id, domain, template_name, variant_id, replica, value_name, value_is_integer, agg_fun, agg_name,
        shuffle, col_depth, row_depth, name_pos, col_agg_pos, row_agg_pos, row_format, borders,
        row_attributes, row_attribute_codes, row_attribute_levels,
        col_attributes, col_attribute_codes, col_attribute_levels
    from sampled
)

select * from final order by table_id
