-- Fails for each model whose share of requests without an answer exceeds var max_failed_request_share
-- (default 0.05): its scores would mostly measure the failures.
with requests as (
    select model_name, count(distinct cache_key) as n_requests
    from {{ ref('eval_requests') }}
    group by model_name
),

failed as (
    select model_name, count(distinct cache_key) as n_failed
    from {{ ref('eval_prediction_errors') }}
    group by model_name
)

select
    r.model_name, r.n_requests, f.n_failed, f.n_failed / r.n_requests as failed_share,
    {{ max_failed_request_share() }} as max_failed_request_share
from requests as r
inner join failed as f using (model_name)
where f.n_failed > {{ max_failed_request_share() }} * r.n_requests
order by r.model_name
