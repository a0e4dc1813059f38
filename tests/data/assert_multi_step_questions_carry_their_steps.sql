-- A multi-step question's steps (steps_json) are its operations in order, each with its intermediate result,
-- and the last step's result is the answer; int_family_cross_check recomputed every step independently.
with steps as (
    select q.question_id, q.answer_rows, q.steps_json,
           json_extract_string(q.answer_rows, '$[0][0]') as answer,
           json_extract_string(q.steps_json, '$[' || (json_array_length(q.steps_json) - 1) || '].result') as last_result,
           list_filter(from_json(q.steps_json, '[{"operation": "VARCHAR", "result": "JSON"}]'),
                       lambda s: s.operation is null or s.operation = '' or s.result is null) as malformed
    from {{ ref('benchmark_questions') }} as q
    where q.steps_json is not null
)

select s.question_id, s.answer, s.last_result, c.generator_steps, c.check_steps
from steps as s
left join {{ ref('int_family_cross_check') }} as c using (question_id)
where s.last_result is distinct from s.answer
   or len(s.malformed) > 0
   or c.question_id is null
   or c.generator_steps is distinct from c.check_steps
