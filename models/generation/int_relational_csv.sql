-- Each relational table as CSV text: attribute names and Value, then one line per relational row.
{{ relational_csv(ref('int_relational_rows')) }}
