-- The table's aggregate over every pair of row and column header groups (see macro hct_group_values).
{{ hct_group_values() }}
