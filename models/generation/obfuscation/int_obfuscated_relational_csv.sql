-- Each obfuscated relational table as CSV text (as int_relational_csv for the originals).
{{ relational_csv(ref('int_obfuscated_relational_rows')) }}
