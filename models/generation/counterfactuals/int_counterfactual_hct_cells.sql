-- The cell grid of every candidate layout (macro hct_cells, the benchmark's pivot).
{{ hct_cells(ref('int_counterfactual_candidates'), ref('int_counterfactual_hct_axis_entries'),
             ref('int_counterfactual_hct_group_values')) }}
