-- T_REL of every counterfactual layout as a long relation (as int_relational_cells): its base's, row for row.
{{ relational_cells("(select * from " ~ ref('int_counterfactual_relational_rows') ~ " where table_id in (select table_id from " ~ ref('int_counterfactual_table_instances') ~ "))") }}
