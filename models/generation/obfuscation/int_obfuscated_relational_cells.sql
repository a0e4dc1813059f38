-- T_REL of every obfuscated table as a long relation (as int_relational_cells for the originals).
{{ relational_cells(ref('int_obfuscated_relational_rows')) }}
