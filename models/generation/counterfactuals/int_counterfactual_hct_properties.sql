-- The 23 table-property flags of every candidate layout (macro hct_properties, the benchmark's definitions).
{{ hct_properties(ref('int_counterfactual_hct_axis_entries'), ref('int_counterfactual_hct_cells')) }}
