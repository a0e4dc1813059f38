-- The tables each question reads (contract in docs/contracts.md): one row per question and table, the question's
-- own table first; a question over two tables (the two_table_* families) has a second row for its partner.
with synthetic as (
    select question_id, tables, table_roles, table_conditions_json from {{ ref('int_question_instances') }}
    {% if obfuscated_variants_built('int_obfuscated_question_instances') %}
    union all
    select question_id, tables, table_roles, table_conditions_json from {{ ref('int_obfuscated_question_instances') }}
    {% endif %}
),

synthetic_reads as (
    select
        question_id,
        unnest(range(1, len(tables) + 1)) as table_position,
        unnest(tables) as table_id,
        unnest(table_roles) as role,
        unnest(from_json(table_conditions_json, '["JSON"]')) as conditions
    from synthetic
),

-- the release's questions read their one table; their SQL is not parsed, so their conditions are unknown
real_reads as (
    select question_id, 1 as table_position, table_id, 'answer' as role, cast(null as json) as conditions
    from {{ ref('benchmark_questions') }}
    where source = 'real'
),

final as (
    select question_id, cast(table_position as integer) as table_position, table_id, role, conditions,
           cast(json_array_length(conditions) as integer) as n_conditions
    from synthetic_reads
    union all
    select question_id, table_position, table_id, role, conditions, cast(null as integer) from real_reads
)

select final.*, build.build_fingerprint from final
cross join (select build_fingerprint from {{ ref('stg_build_config') }}) as build
order by question_id, table_position
