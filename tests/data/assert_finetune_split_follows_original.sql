-- A table and every variant of it are in one fine-tuning split: the split of each original table is one value.
select original_table_id, count(distinct split) as n_splits, string_agg(distinct split, ', ') as splits
from {{ ref('benchmark_finetune_splits') }}
group by original_table_id
having count(distinct split) <> 1
order by original_table_id
