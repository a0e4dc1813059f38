-- Default scale of the choice items: a b_tis item for every synthetic question of the selection and
-- aggregation templates (1-13), and each of the six probes on every synthetic table in each content variant
-- (a real table too small for a probe, e.g. one row, is left without it).
with items as (
    select * from {{ ref('benchmark_choice_items') }}
),

questions_without_item as (
    select q.question_id as missing, 'b_tis' as subset
    from {{ ref('benchmark_questions') }} as q
    where q.source = 'synthetic' and q.variant = 'original' and q.template_id between 1 and 13
      and q.question_id not in (select source_question_id from items where subset = 'b_tis')
),

expected_probes as (
    select t.table_id, p.subset, v.content_variant
    from {{ ref('benchmark_tables') }} as t
    cross join (values ('tsu_pcl'), ('tsu_prl'), ('tsu_pll'), ('tsu_rcl'), ('tsu_rrl'), ('tsu_rll')) as p(subset)
    cross join (values ('original'), ('letters'), ('numbers')) as v(content_variant)
    where t.source = 'synthetic' and t.variant = 'original'  -- no choice items of obfuscated tables
),

probes_missing as (
    select e.table_id || ' ' || e.content_variant as missing, e.subset
    from expected_probes as e
    left join items as i using (table_id, subset, content_variant)
    where i.item_id is null
)

select * from questions_without_item
union all
select * from probes_missing
