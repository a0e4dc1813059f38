-- Row and column leaves of every HCT in display order (see macro hct_axis_entries).
with col_entries as (
    {{ hct_axis_entries('col') }}
),

row_entries as (
    {{ hct_axis_entries('row') }}
),

final as (
    select * from col_entries
    union all
    select * from row_entries
)

select * from final
