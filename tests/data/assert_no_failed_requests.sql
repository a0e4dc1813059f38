{{ config(severity='warn') }}
-- Warns when requests of this build have no answer after their retries: one row per model and error kind.
-- (The build fails only above var max_failed_request_share, see assert_failed_request_share_within_limit.)
select model_name, error_kind, count(*) as n_failed
from {{ ref('eval_prediction_errors') }}
group by model_name, error_kind
order by model_name, error_kind
