-- Every table of benchmark_tables, synthetic or real, has exactly one image row, and every image row a table
-- (the obfuscated twins have no images, see benchmark_table_images; layout counterfactuals have theirs).
with tables as (
    select table_id from {{ ref('benchmark_tables') }} where variant != 'obfuscated'
),

images as (
    select table_id, count(*) as n_images from {{ ref('benchmark_table_images') }} group by table_id
)

select coalesce(t.table_id, i.table_id) as table_id, coalesce(i.n_images, 0) as n_images,
       t.table_id is not null as in_benchmark_tables
from tables as t
full outer join images as i using (table_id)
where t.table_id is null or i.n_images is distinct from 1
order by table_id
