-- Row and column leaves of every candidate layout in display order (macro hct_axis_entries, as the benchmark's).
with col_entries as (
    {{ hct_axis_entries('col', ref('int_counterfactual_candidates'), ref('int_counterfactual_relational_rows')) }}
),

row_entries as (
    {{ hct_axis_entries('row', ref('int_counterfactual_candidates'), ref('int_counterfactual_relational_rows')) }}
),

final as (
    select * from col_entries
    union all
    select * from row_entries
)

select * from final
