-- Every anchored cell of every HCT grid (see macro hct_cells): headers, labels, data and aggregates.
{{ hct_cells() }}
order by table_id, grid_row, grid_col
