-- Every candidate layout's aggregate over each pair of header groups (macro hct_group_values).
{{ hct_group_values(ref('int_counterfactual_candidates'), ref('int_counterfactual_relational_rows')) }}
