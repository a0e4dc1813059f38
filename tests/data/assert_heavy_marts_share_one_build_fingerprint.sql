-- The heavy marts (tags images, choice, finetune) come from the build stg_build_config describes, as the
-- light build's marts do (assert_marts_share_one_build_fingerprint). It reads all of them, so (the data tests'
-- indirect selection being cautious) it runs in a build that selects them all: `--selector full`.
with stamps as (
    select distinct 'benchmark_choice_items' as mart, build_fingerprint from {{ ref('benchmark_choice_items') }}
    union all
    select distinct 'benchmark_choice_item_counts' as mart, build_fingerprint from {{ ref('benchmark_choice_item_counts') }}
    union all
    select distinct 'benchmark_table_images' as mart, build_fingerprint from {{ ref('benchmark_table_images') }}
    union all
    select distinct 'benchmark_finetune_splits' as mart, build_fingerprint from {{ ref('benchmark_finetune_splits') }}
    union all
    select distinct 'benchmark_finetune_exports' as mart, build_fingerprint from {{ ref('benchmark_finetune_exports') }}
)

select s.mart, s.build_fingerprint, c.build_fingerprint as expected
from stamps as s
cross join {{ ref('stg_build_config') }} as c
where s.build_fingerprint is distinct from c.build_fingerprint
order by s.mart, s.build_fingerprint
