-- Each toggle of a counterfactual set and its base form a pair, one layout without the property and one with it:
-- their flags (benchmark_tables, computed from the laid-out tables) differ in the property, as
-- counterfactual_has_property says, and otherwise only in flags that follow from it
-- (int_counterfactual_table_instances.counterfactual_may_change: its sub-properties and standard_relational_table;
-- none for `borders`, which no flag shows: the toggle's rules differ from its base's). Rows returned are failures.
{{ config(enabled=(var('layout_counterfactuals', 0) or 0) | int > 0) }}
with toggles as (
    select
        t.table_id, t.original_table_id, t.counterfactual_set_id, t.counterfactual_property,
        t.counterfactual_has_property, i.counterfactual_may_change, i.borders
    from {{ ref('benchmark_tables') }} as t
    inner join {{ ref('int_counterfactual_table_instances') }} as i using (table_id)
),

flags as (
    unpivot (
        select table_id,
            column_nesting, balanced_column_nesting, unbalanced_column_nesting, symmetric_column_nesting,
            asymmetric_column_nesting, row_nesting, balanced_row_nesting, unbalanced_row_nesting,
            symmetric_row_nesting, asymmetric_row_nesting, column_aggregation, global_column_aggregation,
            local_column_aggregation, explicit_column_aggregation, implicit_column_aggregation, row_aggregation,
            global_row_aggregation, local_row_aggregation, explicit_row_aggregation, implicit_row_aggregation,
            row_group_label, split_header_cell, standard_relational_table
        from {{ ref('benchmark_tables') }}
        where counterfactual_set_id is not null
    ) on columns(* exclude (table_id)) into name flag value shown
),

bases as (
    select table_id, counterfactual_set_id from {{ ref('benchmark_tables') }}
    where counterfactual_set_id is not null and variant = 'original'
),

flag_changes as (
    select
        t.table_id,
        case when ft.flag = t.counterfactual_property and ft.shown is not distinct from fb.shown
                 then ft.flag || ' unchanged'
             when ft.flag = t.counterfactual_property and ft.shown is distinct from t.counterfactual_has_property
                 then ft.flag || ' is not what counterfactual_has_property says'
             when ft.flag != t.counterfactual_property and ft.shown is distinct from fb.shown
                  and not list_contains(t.counterfactual_may_change, ft.flag) then 'also changes ' || ft.flag
        end as failed
    from toggles as t
    inner join flags as ft on ft.table_id = t.table_id
    inner join flags as fb on fb.table_id = t.original_table_id and fb.flag = ft.flag
),

rules as (
    select t.table_id, 'borders unchanged, or not as counterfactual_has_property says' as failed
    from toggles as t
    inner join {{ ref('int_table_instances') }} as b on b.table_id = t.original_table_id
    where t.counterfactual_property = 'borders'
      and (t.borders = b.borders or t.borders is distinct from t.counterfactual_has_property)
),

set_bases as (
    select t.table_id, 'its base does not head the set ' || t.counterfactual_set_id as failed
    from toggles as t
    left join bases as b on b.table_id = t.original_table_id and b.counterfactual_set_id = t.counterfactual_set_id
    where b.table_id is null
)

select * from flag_changes where failed is not null
union all select * from rules
union all select * from set_bases
