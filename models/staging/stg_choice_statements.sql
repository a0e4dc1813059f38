-- Seed rows in file order (DuckDB keeps insertion order); generator_py.choice_items.statements validates them.
select * from {{ ref('choice_statements') }}
