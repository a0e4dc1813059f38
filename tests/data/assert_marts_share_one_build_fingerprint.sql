-- Every mart comes from the build stg_build_config describes: a killed or partial build that left marts
-- of another configuration (seed, replicas, domains, seed data, release) beside them fails here.
-- The marts of the light build (selectors.yml); assert_heavy_marts_share_one_build_fingerprint has the others.
with stamps as (
    select distinct 'benchmark_tables' as mart, build_fingerprint from {{ ref('benchmark_tables') }}
    union all
    select distinct 'benchmark_questions' as mart, build_fingerprint from {{ ref('benchmark_questions') }}
    union all
    select distinct 'benchmark_relational_cells' as mart, build_fingerprint from {{ ref('benchmark_relational_cells') }}
    union all
    select distinct 'benchmark_exports' as mart, build_fingerprint from {{ ref('benchmark_exports') }}
    union all
    select distinct 'eval_requests' as mart, build_fingerprint from {{ ref('eval_requests') }}
    union all
    select distinct 'eval_prompts' as mart, build_fingerprint from {{ ref('eval_prompts') }}
    union all
    select distinct 'eval_predictions' as mart, build_fingerprint from {{ ref('eval_predictions') }}
    union all
    select distinct 'eval_prediction_errors' as mart, build_fingerprint from {{ ref('eval_prediction_errors') }}
    union all
    select distinct 'eval_scores' as mart, build_fingerprint from {{ ref('eval_scores') }}
    union all
    select distinct 'eval_summary' as mart, build_fingerprint from {{ ref('eval_summary') }}
    union all
    select distinct 'analysis_property_regression' as mart, build_fingerprint from {{ ref('analysis_property_regression') }}
    union all
    select distinct 'analysis_scores_by_template' as mart, build_fingerprint from {{ ref('analysis_scores_by_template') }}
    union all
    select distinct 'analysis_scores_by_question_property' as mart, build_fingerprint from {{ ref('analysis_scores_by_question_property') }}
    union all
    select distinct 'analysis_scores_by_aggregation_type' as mart, build_fingerprint from {{ ref('analysis_scores_by_aggregation_type') }}
    union all
    select distinct 'analysis_scores_by_table_format' as mart, build_fingerprint from {{ ref('analysis_scores_by_table_format') }}
    union all
    select distinct 'analysis_text_vs_image' as mart, build_fingerprint from {{ ref('analysis_text_vs_image') }}
    union all
    select distinct 'analysis_scores_by_source_dataset' as mart, build_fingerprint from {{ ref('analysis_scores_by_source_dataset') }}
    union all
    select distinct 'analysis_answer_verbosity' as mart, build_fingerprint from {{ ref('analysis_answer_verbosity') }}
    union all
    select distinct 'analysis_benchmark_composition' as mart, build_fingerprint from {{ ref('analysis_benchmark_composition') }}
    union all
    select distinct 'analysis_report' as mart, build_fingerprint from {{ ref('analysis_report') }}
    union all
    select distinct 'analysis_obfuscation_gap' as mart, build_fingerprint from {{ ref('analysis_obfuscation_gap') }}
)

select s.mart, s.build_fingerprint, c.build_fingerprint as expected
from stamps as s
cross join {{ ref('stg_build_config') }} as c
where s.build_fingerprint is distinct from c.build_fingerprint
order by s.mart, s.build_fingerprint
