-- The property flags the generator computes agree with each other (docs/properties.md, "How the flags
-- relate"). Real tables carry the release's annotations as given, flagged in annotation_issues instead.
with checked as (
    select table_id, {{ table_property_issues() }} as problem
    from {{ ref('benchmark_tables') }}
    where source = 'synthetic'
)

select table_id, problem from checked where problem is not null
