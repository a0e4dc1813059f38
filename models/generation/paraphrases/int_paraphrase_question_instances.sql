-- The paraphrase sets: every question restated in each other phrasing of its template (int_question_instances'
-- paraphrases_json, rendered by the generator from the question's own SQL), one row per restatement, with the
-- original's columns but the id (`<question_id>--p<phrasing>`), phrasing and text. Its answer is the original's.
with originals as (
    select * from {{ ref('int_question_instances') }}
    where paraphrases_json is not null
),

restated as (
    select
        o.* exclude (question_id, phrasing, question, paraphrases_json),
        o.question_id as original_question_id,
        unnest(from_json(o.paraphrases_json, '[{"phrasing": "INTEGER", "question": "VARCHAR"}]'), recursive := true)
    from originals as o
),

final as (
    select original_question_id || '--p' || phrasing as question_id, *
    from restated
)

select * from final order by question_id
