-- The TReB questions (suite treb) are what their family declares (int_registry_catalog): one answer value (a
-- unique answer: one number, or one caption / header label), no Table III template, the family's answer_type,
-- SQL text for every computation and none for naming, and the hidden part of the rendering only where asked.
with families as (
    select name as family,
           json_extract_string(attributes, '$.suite') as suite,
           json_extract_string(attributes, '$.kind') as family_kind,
           json_extract_string(attributes, '$.answer_type') as family_answer_type
    from {{ ref('int_registry_catalog') }}
    where kind = 'families'
),

treb as (
    select q.*, a.n_rows, a.n_values, f.family_kind, f.family_answer_type, f.suite as family_suite
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
-- one answer value, or one per row for a question whose output instruction lists several
where (output_instruction is null and (coalesce(n_rows, 0) <> 1 or coalesce(n_values, 0) <> 1))
   or (output_instruction is not null and (coalesce(n_rows, 0) < 2 or n_values <> n_rows))
   or template_id is not null
   or family_suite is distinct from 'treb'
   or answer_type is distinct from family_answer_type
   or (sql is null) <> (family_kind = 'naming')
   -- a question hides a part of its table only as a naming family, and a naming family hides exactly one part
   or (coalesce(hides_caption, false) or blank_grid_row is not null) <> (family_kind = 'naming')
   or (coalesce(hides_caption, false) and blank_grid_row is not null)
   or (blank_grid_row is null) <> (blank_grid_col is null)
   -- a number's answer is one canonical number
   or (answer_type = 'values' and try_cast(json_extract_string(answer_rows, '$[0][0]') as double) is null)
   -- an unanswerable question's answer is the documented refusal
   or ((answer_type = 'refusal') <> (answer_gt = '{no answer}'))
