-- The questions config has every question of benchmark_questions once over its three splits, and
-- the per-split Parquet and alpaca files agree on their counts.
with parquet as (
    select config, split, n_examples from {{ ref('benchmark_finetune_exports') }} where file_format = 'parquet'
),

alpaca as (
    select config, split, n_examples from {{ ref('benchmark_finetune_exports') }} where file_format = 'alpaca'
),

questions as (
    select count(*) as n from {{ ref('benchmark_questions') }}
),

exported as (
    select sum(n_examples) as n from parquet where config = 'questions'
)

select 'questions config has ' || e.n || ' examples, benchmark_questions ' || q.n || ' rows' as problem
from exported as e, questions as q
where e.n is distinct from q.n
union all
select 'config ' || p.config || ' split ' || p.split || ': parquet ' || p.n_examples || ' examples, alpaca '
       || coalesce(a.n_examples::varchar, 'none') as problem
from parquet as p
left join alpaca as a using (config, split)
where a.n_examples is distinct from p.n_examples
