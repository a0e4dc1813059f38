-- How many choice items each subset x distractor strategy x content variant x option form holds (TabIS's
-- counts, in detail; analysis_benchmark_composition has them per subset and per subset x strategy).
with items as (
    select * from {{ ref('benchmark_choice_items') }}
),

final as (
    select subset, distractor_strategy, content_variant, option_form,
        count(*) as n_items, count(distinct table_id) as n_tables
    from items
    group by subset, distractor_strategy, content_variant, option_form
)

select final.*, build.build_fingerprint from final
cross join (select build_fingerprint from {{ ref('stg_build_config') }}) as build
order by subset, distractor_strategy, content_variant, option_form
