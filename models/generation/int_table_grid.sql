-- The cell grid of every table, synthetic and real: one row per anchored cell, the table's settings
-- (caption, borders, header rows and columns) on each row. Every rendering reads this relation.
with instances as (
    select * from {{ ref('int_table_instances') }}
),

synthetic_cells as (
    select * from {{ ref('int_hct_cells') }}
),

real_cells as (
    select * from {{ ref('stg_real_table_cells') }}
),

synthetic as (
    select
        c.table_id, 'synthetic' as source,
        c.grid_row, c.grid_col, c.rowspan, c.colspan, c.role, c.is_aggregate, c.text,
        c.value, c.row_group, c.col_group,
        i.value_name as caption, i.borders, i.col_depth as header_rows, i.row_depth as header_columns
    from synthetic_cells as c
    inner join instances as i using (table_id)
),

real as (
    select
        table_id, source,
        grid_row, grid_col, rowspan, colspan, role, is_aggregate, text,
        cast(null as double) as value, cast(null as varchar[]) as row_group, cast(null as varchar[]) as col_group,
        caption, borders, header_rows, header_columns
    from real_cells
),

final as (
    select * from synthetic
    union all
    select * from real
    {% if obfuscated_variants_built('int_obfuscated_table_grid') %}
    union all
    -- the obfuscated variant of each synthetic table (models/generation/obfuscation): its cells, words mapped
    select * from {{ ref('int_obfuscated_table_grid') }}
    {% endif %}
    {% if counterfactuals_built('int_counterfactual_table_instances') %}
    union all
    -- the layouts of the counterfactual sets (models/generation/counterfactuals): their base's data, laid out anew
    select
        c.table_id, 'synthetic' as source,
        c.grid_row, c.grid_col, c.rowspan, c.colspan, c.role, c.is_aggregate, c.text,
        c.value, c.row_group, c.col_group,
        i.value_name as caption, i.borders, i.col_depth as header_rows, i.row_depth as header_columns
    from {{ ref('int_counterfactual_hct_cells') }} as c
    inner join {{ ref('int_counterfactual_table_instances') }} as i using (table_id)
    {% endif %}
)

select * from final
