-- The benchmark's tables (contract in docs/contracts.md): one row per HCT with its renderings,
-- shape figures and the 23 table-property flags; the variants (obfuscated twins, layout counterfactuals) when built.
with instances as (
    -- layout_table_id: the table whose layout (flags, cell counts) the row has
    select
        i.*, 'original' as variant, i.table_id as original_table_id, i.table_id as layout_table_id,
        -- a counterfactual set's base is an original: the set's reference layout
        {% if counterfactuals_built('int_counterfactual_table_instances') %} s.counterfactual_set_id,
        {% else %} cast(null as varchar) as counterfactual_set_id, {% endif %}
        cast(null as varchar) as counterfactual_property, cast(null as boolean) as counterfactual_has_property
    from {{ ref('int_table_instances') }} as i
    {% if counterfactuals_built('int_counterfactual_table_instances') %}
    left join (select distinct original_table_id as table_id, counterfactual_set_id
               from {{ ref('int_counterfactual_table_instances') }}) as s using (table_id)
    {% endif %}
    {% if obfuscated_variants_built('int_obfuscated_table_instances') %}
    union all by name
    -- the obfuscated variant: its own title, renderings and relational CSV; layout, shape and flags its original's
    select *, 'obfuscated' as variant, original_table_id as layout_table_id
    from {{ ref('int_obfuscated_table_instances') }}
    {% endif %}
    {% if counterfactuals_built('int_counterfactual_table_instances') %}
    union all by name
    -- the toggles of the counterfactual sets: their base's data and relational CSV, their own layout and flags
    select * exclude (counterfactual_may_change, counterfactual_candidate), 'counterfactual' as variant,
        table_id as layout_table_id
    from {{ ref('int_counterfactual_table_instances') }}
    {% endif %}
),

renderings as (
    -- synthetic and real alike: one renderer per format reads the cell grid
    select * from {{ ref('int_table_renderings') }}
),

properties as (
    select * from {{ ref('int_hct_properties') }}
    {% if counterfactuals_built('int_counterfactual_hct_properties') %}
    union all
    select * from {{ ref('int_counterfactual_hct_properties') }}
    {% endif %}
),

relational as (
    select * from {{ ref('int_relational_csv') }}
    {% if obfuscated_variants_built('int_obfuscated_relational_csv') %}
    union all
    select * from {{ ref('int_obfuscated_relational_csv') }}
    {% endif %}
    {% if counterfactuals_built('int_counterfactual_relational_csv') %}
    union all
    select * from {{ ref('int_counterfactual_relational_csv') }}
    {% endif %}
),

cells as (
    select table_id, role from {{ ref('int_hct_cells') }}
    {% if counterfactuals_built('int_counterfactual_hct_cells') %}
    union all
    select table_id, role from {{ ref('int_counterfactual_hct_cells') }}
    {% endif %}
),

value_cells as (
    select
        table_id,
        count(*) filter (where role = 'data') as n_data_cells,
        count(*) filter (where role = 'aggregate') as n_aggregate_cells
    from cells
    group by table_id
),

synthetic as (
    select
        i.table_id,
        i.variant,
        i.original_table_id,
        i.counterfactual_set_id,
        i.counterfactual_property,
        i.counterfactual_has_property,
        'synthetic' as source,
        i.domain as dataset,
        i.template_name,
        i.variant_id,
        i.replica,
        i.value_name as title,
        r.* exclude (table_id, n_rows, n_columns),  -- one column per text format
        rel.relational_csv,
        r.n_rows,
        r.n_columns,
        r.n_rows * r.n_columns as n_cells,
        v.n_data_cells,
        v.n_aggregate_cells,
        i.col_depth as column_header_depth,
        i.row_depth as row_header_depth,
        p.* exclude (table_id)
    from instances as i
    inner join renderings as r using (table_id)
    inner join properties as p on p.table_id = i.layout_table_id
    inner join relational as rel using (table_id)
    inner join value_cells as v on v.table_id = i.layout_table_id
),

real_tables as (
    select t.*, 'original' as variant, t.table_id as original_table_id, r.* exclude (table_id, n_rows, n_columns)
    from {{ ref('stg_real_tables') }} as t
    inner join renderings as r using (table_id)
),

final as (
    select *, cast(null as varchar) as release_csv, cast(null as varchar) as annotation_issues from synthetic
    union all by name
    -- the release's own flags, kept as given; the rules they break are named, not enforced
    select *, {{ table_property_issues() }} as annotation_issues from real_tables
)

-- the build that made these rows (a data test checks that every mart agrees)
select final.*, build.build_fingerprint from final
cross join (select build_fingerprint from {{ ref('stg_build_config') }}) as build
order by table_id
