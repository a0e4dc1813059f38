-- Mean scores per model x format x mode at every grouping level: overall, source, dataset, template.
-- n: the predictions scored (those the means are over); n_left_out: those paper mode left out (missing,
-- "no answer" and error responses; 0 in strict mode). The analysis_* tables count n the same way.
-- unanswered: the predictions that gave no answer by strict mode's reading (strict scores them 0).
with scores as (
    select * from {{ ref('eval_scores') }}
),

grouped as (
    select
        model_name, any_value(backend) as backend, any_value(model) as model, table_format, mode,
        source, dataset, template_id,
        case
            when grouping(source) = 1 then 'overall'
            when grouping(dataset) = 1 then 'source'
            when grouping(template_id) = 1 then 'dataset'
            else 'template'
        end as level,
        count(*) filter (where not left_out) as n,
        count(*) filter (where left_out) as n_left_out,
        count(*) filter (where unanswered) as unanswered,
        avg(precision) filter (where not left_out) as precision,
        avg(recall) filter (where not left_out) as recall,
        avg(f1) filter (where not left_out) as f1,
        avg(cc) filter (where not left_out) as cc
    from scores
    group by grouping sets (
        (model_name, table_format, mode),
        (model_name, table_format, mode, source),
        (model_name, table_format, mode, source, dataset),
        (model_name, table_format, mode, source, dataset, template_id)
    )
),

final as (
    select grouped.*, build.build_fingerprint from grouped
    cross join (select build_fingerprint from {{ ref('stg_build_config') }}) as build
)

select * from final
order by model_name, table_format, mode, level, source, dataset, template_id
