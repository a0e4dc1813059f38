-- T_REL of every table as a long relation: one row per (table, relational row, attribute); attribute
-- values are text ('2021'), `value` is numeric. NULL attribute_value: that hierarchy branch stops early.
{{ relational_cells(ref('int_relational_rows')) }}
