-- The benchmark's questions (contract in docs/contracts.md): (table, question, answer, metadata); the variants
-- (obfuscated twins, layout counterfactuals, paraphrases) when built.
with instances as (
    -- a paraphrase set: the original and its restatements (paraphrases_json is NULL unless they are built)
    select
        *, 'original' as variant, question_id as original_question_id,
        case when paraphrases_json is not null then question_id end as paraphrase_set_id
    from {{ ref('int_question_instances') }}
    {% if obfuscated_variants_built('int_obfuscated_question_instances') %}
    union all by name
    -- the obfuscated variant: mapped question, SQL and spec; its answers computed on the obfuscated table
    select * exclude (original_table_id), 'obfuscated' as variant
    from {{ ref('int_obfuscated_question_instances') }}
    {% endif %}
    {% if counterfactuals_built('int_counterfactual_question_instances') %}
    union all by name
    -- the layout counterfactuals: a set's base questions on each of its layouts, answers computed on each
    select *, 'counterfactual' as variant from {{ ref('int_counterfactual_question_instances') }}
    {% endif %}
    {% if paraphrases_built('int_paraphrase_question_instances') %}
    union all by name
    -- the paraphrase sets: each question in its template's other phrasings; the original's answer
    select *, 'paraphrase' as variant, original_question_id as paraphrase_set_id
    from {{ ref('int_paraphrase_question_instances') }}
    {% endif %}
),

variant_answers as (
    -- typed and empty when no variant is built
    select * from {{ ref('int_question_answers') }} where false
    {% if obfuscated_variants_built('int_obfuscated_question_answers') %}
    union all
    select * from {{ ref('int_obfuscated_question_answers') }}
    {% endif %}
    {% if counterfactuals_built('int_counterfactual_question_answers') %}
    union all
    select * from {{ ref('int_counterfactual_question_answers') }}
    {% endif %}
    {% if paraphrases_built('int_paraphrase_question_instances') %}
    union all
    -- a restatement's answer is its original's
    select p.question_id, a.answer_row, a.answer_values
    from {{ ref('int_paraphrase_question_instances') }} as p
    inner join {{ ref('int_question_answers') }} as a on a.question_id = p.original_question_id
    {% endif %}
),

tables as (
    select table_id, source, dataset from {{ ref('benchmark_tables') }}
),

-- the table views of questions that hide part of their table (naming families): one column per text format
renderings as (
    select * from {{ ref('int_question_renderings') }}
),

answer_text as (
    -- the originals' answers (int_question_answer_texts), and the variants' stated the same way
    select * from {{ ref('int_question_answer_texts') }}
    union all
    {{ question_answer_texts('variant_answers') }}
),

synthetic as (
    select
        i.question_id, i.variant, i.original_question_id, i.paraphrase_set_id, i.table_id, t.source, t.dataset,
        'synthetic' as creation_type, i.template_id, i.family, i.family_variant, i.phrasing,
        i.question, i.sql,
        a.answer_gt, cast(a.answer_rows as varchar) as answer_rows, a.answer_n_rows, a.answer_n_values,
        -- grid_change is what the question's own renderings (rendering_<format>) show, and its spec states it; the
        -- tables a question reads and the conditions on each are benchmark_question_tables
        i.* exclude (question_id, variant, original_question_id, paraphrase_set_id, table_id, template_id, family,
                     family_variant, phrasing, question, sql, spec_json, py_answer_json, kind, grid_change, tables,
                     table_roles, table_conditions_json, paraphrases_json),
        r.* exclude (question_id),
        -- what scoring checks a response's form against (instruction_followed)
        cast(json_extract(i.spec_json, '$.instruction') as varchar) as output_instruction,
        i.spec_json
    from instances as i
    inner join tables as t using (table_id)
    left join answer_text as a using (question_id)
    -- a restatement shows its original's view of the table
    left join renderings as r
        on r.question_id = case when i.variant = 'paraphrase' then i.original_question_id else i.question_id end
),

real_questions as (
    -- the release's questions belong to HCT-QA and are answered by values
    select *, 'original' as variant, question_id as original_question_id,
        'hctqa' as suite, 'values' as answer_type, false as hides_caption,
        -- no family: no TReB subtask; their answers are values, compared exactly like a family's
        cast(null as varchar) as treb_skill, cast(null as varchar) as treb_subtask, 'exact_match' as treb_metric
    from {{ ref('stg_real_questions') }}
),

final as (
    select * from synthetic
    union all by name
    select * from real_questions
)

-- the build that made these rows (a data test checks that every mart agrees)
select final.*, build.build_fingerprint from final
cross join (select build_fingerprint from {{ ref('stg_build_config') }}) as build
order by question_id
