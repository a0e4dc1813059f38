-- T_REL of every counterfactual layout as CSV text (as int_relational_csv): its base's, byte for byte.
{{ relational_csv("(select * from " ~ ref('int_counterfactual_relational_rows') ~ " where table_id in (select table_id from " ~ ref('int_counterfactual_table_instances') ~ "))") }}
