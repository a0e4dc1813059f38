-- Seed rows in file order (DuckDB keeps insertion order); the generator validates and types them.
select * from {{ ref('nl_paraphrases') }}
