-- Mean of every registered metric per model x format x inference mode x scoring mode at every grouping level:
-- overall, source, dataset, template. Metrics are rows (eval_scores is long), so no metric is named here.
-- n: the predictions scored (those the means are over); n_left_out: those paper mode left out (missing,
-- "no answer" and error responses; 0 in strict mode). The analysis_* tables count n the same way
-- (evaluation_py.scoring.scores.mean_scores, the Python twin of this model).
-- unanswered: the predictions that gave no answer by strict mode's reading (strict scores them 0).
-- variant: original or obfuscated questions (an entry with `variants: [original, obfuscated]` answers both),
-- kept apart so a twin never enters an original's mean.
with scores as (
    select s.*, coalesce(q.variant, 'original') as variant
    from {{ ref('eval_scores') }} as s
    left join (select question_id, variant from {{ ref('benchmark_questions') }}) as q using (question_id)
),

grouped as (
    select
        model_name, backend, model, table_format, inference_mode, variant, scoring_mode, metric,
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
        -- summed in prediction order: a parallel sum of doubles differs in the last bit from run to run
        avg(value order by cache_key) filter (where not left_out) as value
    from scores
    group by grouping sets (
        (model_name, backend, model, table_format, inference_mode, variant, scoring_mode, metric),
        (model_name, backend, model, table_format, inference_mode, variant, scoring_mode, metric, source),
        (model_name, backend, model, table_format, inference_mode, variant, scoring_mode, metric, source, dataset),
        (model_name, backend, model, table_format, inference_mode, variant, scoring_mode, metric, source, dataset, template_id)
    )
),

final as (
    select grouped.*, build.build_fingerprint from grouped
    cross join (select build_fingerprint from {{ ref('stg_build_config') }}) as build
)

select * from final
order by model_name, table_format, inference_mode, variant, scoring_mode, metric, level, source, dataset, template_id
