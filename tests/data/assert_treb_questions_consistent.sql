-- The TReB questions (suite treb) are what their family declares (int_registry_catalog): one answer value (a
-- unique answer: one number, or one caption / header label, or one verdict), or one row of labels for a family
-- answering with labels (a header path, a verdict and its p value), no Table III template, the family's
-- answer_type, SQL text for every computation and none for naming or a statistical test, the hidden part of the
-- rendering only where asked, a moved cell only for a statistical family, and steps exactly for a multi-step one.
with families as (
    select name as family,
           json_extract_string(attributes, '$.suite') as suite,
           json_extract_string(attributes, '$.kind') as family_kind,
           json_extract_string(attributes, '$.answer_type') as family_answer_type,
           json_extract(attributes, '$.multi_step')::boolean as family_multi_step
    from {{ ref('int_registry_catalog') }}
    where kind = 'families'
),

treb as (
    select q.*, a.n_rows, a.n_values, f.family_kind, f.family_answer_type, f.suite as family_suite, f.family_multi_step
    from {{ ref('benchmark_questions') }} as q
    left join (
        select question_id, count(*) as n_rows, sum(len(list_filter(answer_values, lambda v: v is not null))) as n_values
        from {{ ref('int_question_answers') }} group by question_id
    ) as a using (question_id)
    left join families as f using (family)
    where q.suite = 'treb'
)

select question_id, family, answer_gt, n_rows, n_values
from treb
-- one answer value, or one per row for a question whose output instruction lists several, or one row of labels
where (output_instruction is null and answer_type <> 'labels' and (coalesce(n_rows, 0) <> 1 or coalesce(n_values, 0) <> 1))
   or (answer_type = 'labels' and (coalesce(n_rows, 0) <> 1 or coalesce(n_values, 0) < 1))
   or (output_instruction is not null and (coalesce(n_rows, 0) < 2 or n_values <> n_rows))
   or template_id is not null
   or family_suite is distinct from 'treb'
   or answer_type is distinct from family_answer_type
   or (sql is null) <> (family_kind in ('naming', 'statistical'))
   -- a changed data cell only where a statistical family moved a value (outlier detection)
   or (moved_cell_json is not null and family_kind <> 'statistical')
   -- a multi-step question carries its steps (three or more); no other question has any
   or (steps_json is not null) <> coalesce(family_multi_step, false)
   or (steps_json is not null and json_array_length(steps_json) < 3)
   -- a yes / no or true / false answer is one of those words
   or (answer_type = 'boolean' and answer_gt not in ('{true}', '{false}', '{yes}', '{no}'))
   -- a question hides a part of its table only as a naming family, and a naming family hides exactly one part
   or (coalesce(hides_caption, false) or blank_grid_row is not null) <> (family_kind = 'naming')
   or (coalesce(hides_caption, false) and blank_grid_row is not null)
   or (blank_grid_row is null) <> (blank_grid_col is null)
   -- a number's answer is one canonical number
   or (answer_type = 'values' and try_cast(json_extract_string(answer_rows, '$[0][0]') as double) is null)
   -- an unanswerable question's answer is the documented refusal
   or ((answer_type = 'refusal') <> (answer_gt = '{no answer}'))
