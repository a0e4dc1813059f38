-- Every question of a family that computes its own answer (suite treb) has its independent recomputation
-- (int_family_cross_check: numpy on the relational rows, the grid's caption and header text), and it agrees.
select i.question_id, i.family, c.generator_answer, c.check_answer
from {{ ref('int_question_instances') }} as i
left join {{ ref('int_family_cross_check') }} as c using (question_id)
where i.kind not in ('sql', 'sql_text') and (c.question_id is null or not c.agrees)
