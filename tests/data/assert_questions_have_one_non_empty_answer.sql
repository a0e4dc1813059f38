-- Every question has exactly one non-empty answer (at least one value).
select q.question_id, q.answer_gt, q.answer_n_values
from {{ ref('benchmark_questions') }} as q
where q.answer_gt is null or q.answer_gt in ('', '{}') or coalesce(q.answer_n_values, 0) < 1
