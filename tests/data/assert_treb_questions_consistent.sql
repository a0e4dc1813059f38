-- The TReB questions (suite treb) are what their family declares (int_registry_catalog): one answer value where it
-- declares a single answer (a number, a label, one caption or header label, a summary, a verdict), at least one
-- otherwise (a header path, a verdict and its p value, a list); no Table III template; the family's answer_type;
-- SQL text for every question but those answered by text or by a statistical test; a naming question's view hides
-- its answer one way only; steps exactly for a multi-step question; a yes / no or true / false answer one of those.
with families as (
    select name as family,
           json_extract_string(attributes, '$.suite') as suite,
           json_extract_string(attributes, '$.kind') as family_kind,
           json_extract_string(attributes, '$.answer_type') as family_answer_type,
           cast(json_extract(attributes, '$.single_answer') as boolean) as single_answer,
           json_extract(attributes, '$.multi_step')::boolean as family_multi_step
    from {{ ref('int_registry_catalog') }}
    where kind = 'families'
),

treb as (
    select q.*, a.n_rows, a.n_values, f.family_kind, f.family_answer_type, f.single_answer,
           f.suite as family_suite, f.family_multi_step, i.grid_change
    from {{ ref('benchmark_questions') }} as q
    left join (
        select question_id, count(*) as n_rows, sum(len(list_filter(answer_values, lambda v: v is not null))) as n_values
        from {{ ref('int_question_answers') }} group by question_id
    ) as a using (question_id)
    left join families as f using (family)
    left join {{ ref('int_question_instances') }} as i using (question_id)
    where q.suite = 'treb'
)

select question_id, family, answer_gt, n_rows, n_values
from treb
where (single_answer and (coalesce(n_rows, 0) <> 1 or coalesce(n_values, 0) <> 1))
   or (not single_answer and (coalesce(n_rows, 0) < 1 or coalesce(n_values, 0) < 1))
   or single_answer is null
   or template_id is not null
   or family_suite is distinct from 'treb'
   or answer_type is distinct from family_answer_type
   or (sql is null) <> (answer_type = 'text' or family_kind = 'statistical')
   -- a question hides part of its table's caption or header cells only as a naming family, and a naming
   -- question's view differs from its table's in exactly one way
   or ((coalesce(hides_caption, false) or blank_grid_row is not null) and family_kind <> 'naming')
   or (family_kind = 'naming' and (coalesce(hides_caption, false)::int + (blank_grid_row is not null)::int
                                   + (grid_change is not null)::int) <> 1)
   -- a multi-step question carries its steps (three or more); no other question has any
   or (steps_json is not null) <> coalesce(family_multi_step, false)
   or (steps_json is not null and json_array_length(steps_json) < 3)
   -- a yes / no or true / false answer is one of those words
   or (answer_type = 'boolean' and answer_gt not in ('{true}', '{false}', '{yes}', '{no}'))
   or (blank_grid_row is null) <> (blank_grid_col is null)
   -- a single number's answer is one canonical number (an output instruction shapes the answer itself)
   or (answer_type = 'values' and single_answer and output_instruction is null
       and try_cast(json_extract_string(answer_rows, '$[0][0]') as double) is null)
   -- an unanswerable question's answer is the documented refusal
   or ((answer_type = 'refusal') <> (answer_gt = '{no answer}'))
