-- The obfuscation gap (HCT-QA RQ3, Table IV): per model x table format x inference mode x scoring mode x
-- metric, the mean over the question pairs scored in both variants (an original and its obfuscated twin,
-- neither left out) on the originals, on the twins, and their difference. Entries answer the twins with
-- `variants: [original, obfuscated]`.
with scores as (
    select * from {{ ref('eval_scores') }} where not left_out
),

questions as (
    select question_id, variant, original_question_id from {{ ref('benchmark_questions') }}
),

scored as (
    select s.*, q.variant, q.original_question_id
    from scores as s
    inner join questions as q using (question_id)
),

pairs as (
    select
        o.model_name, o.backend, o.model, o.table_format, o.inference_mode, o.scoring_mode, o.metric,
        o.question_id, o.value as value_original, x.value as value_obfuscated
    from scored as o
    inner join scored as x
        on x.original_question_id = o.question_id
        and x.model_name = o.model_name and x.backend = o.backend and x.model is not distinct from o.model
        and x.table_format = o.table_format and x.inference_mode = o.inference_mode
        and x.scoring_mode = o.scoring_mode and x.metric = o.metric
    where o.variant = 'original' and x.variant = 'obfuscated'
),

final as (
    select
        model_name, backend, model, table_format, inference_mode, scoring_mode, metric,
        count(*) as n_pairs,
        -- summed in question order: a parallel sum of doubles differs in the last bit from run to run
        avg(value_original order by question_id) as value_original,
        avg(value_obfuscated order by question_id) as value_obfuscated,
        avg(value_original order by question_id) - avg(value_obfuscated order by question_id) as gap
    from pairs
    group by model_name, backend, model, table_format, inference_mode, scoring_mode, metric
)

select final.*, build.build_fingerprint from final
cross join (select build_fingerprint from {{ ref('stg_build_config') }}) as build
order by model_name, table_format, inference_mode, scoring_mode, metric
