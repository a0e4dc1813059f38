-- Every anchored cell of every HCT grid (see macro hct_cells): headers, labels, data and aggregates.
{{ hct_cells() }}
