-- Each source's config (questions_real, questions_synthetic) has every original question of that source in
-- benchmark_questions once over its three splits (none: no examples), questions_obfuscated every twin, and where the alpaca JSON is written (var finetune_alpaca_json) its
-- per-split files agree with the Parquet ones on their counts.
with parquet as (
    select config, split, n_examples from {{ ref('benchmark_finetune_exports') }} where file_format = 'parquet'
),

alpaca as (
    select config, split, n_examples from {{ ref('benchmark_finetune_exports') }} where file_format = 'alpaca'
),

questions as (
    select case when coalesce(variant, 'original') = 'original' then 'questions_' || source else 'questions_' || variant end
               as config,
           count(*) as n
    from {{ ref('benchmark_questions') }}
    group by 1
),

exported as (
    select config, sum(n_examples) as n from parquet where config like 'questions%' group by config
)

select 'config ' || coalesce(q.config, e.config) || ' has ' || coalesce(e.n, 0) || ' examples, benchmark_questions '
       || coalesce(q.n, 0) || ' rows' as problem
from exported as e
full outer join questions as q using (config)
where coalesce(e.n, 0) <> coalesce(q.n, 0)
union all
select 'config ' || p.config || ' split ' || p.split || ': parquet ' || p.n_examples || ' examples, alpaca '
       || coalesce(a.n_examples::varchar, 'none') as problem
from parquet as p
left join alpaca as a using (config, split)
where exists (select 1 from alpaca) and a.n_examples is distinct from p.n_examples
