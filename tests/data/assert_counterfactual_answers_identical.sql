-- Every toggle of a counterfactual set is asked its base's layout-invariant questions, and they keep their text,
-- SQL and answer: each toggle's answer is executed on its own relational table (int_counterfactual_question_answers),
-- never copied, and must be its base question's; the toggle's relational table is its base's, byte for byte; every
-- toggle of a set holds the same questions. Rows returned are failures.
{{ config(enabled=(var('layout_counterfactuals', 0) or 0) | int > 0) }}
with questions as (
    select question_id, variant, original_question_id, table_id, question, sql, answer_gt
    from {{ ref('benchmark_questions') }}
),

tables as (
    select table_id, variant, original_table_id, counterfactual_set_id, relational_csv
    from {{ ref('benchmark_tables') }}
),

toggle_questions as (
    select q.*, t.original_table_id as base_table_id, t.counterfactual_set_id
    from questions as q
    inner join tables as t using (table_id)
    where q.variant = 'counterfactual'
),

answers as (
    select c.question_id, 'differs from its base question ' || b.question_id as failed
    from toggle_questions as c
    inner join questions as b on b.question_id = c.original_question_id
    where c.question is distinct from b.question or c.sql is distinct from b.sql
       or c.answer_gt is distinct from b.answer_gt or b.table_id != c.base_table_id
    union all
    select c.question_id, 'no base question' from toggle_questions as c
    left join questions as b on b.question_id = c.original_question_id
    where b.question_id is null
    union all
    select question_id, 'no answer' from toggle_questions where answer_gt is null
),

relational as (
    select l.table_id as question_id, 'relational table differs from its base ' || l.original_table_id as failed
    from tables as l
    inner join tables as b on b.table_id = l.original_table_id
    where l.variant = 'counterfactual' and l.relational_csv is distinct from b.relational_csv
),

per_toggle as (
    select counterfactual_set_id, table_id, list(original_question_id order by original_question_id) as asked
    from toggle_questions
    group by all
),

same_questions as (
    select counterfactual_set_id || ' / ' || table_id as question_id, 'asks other questions than its set' as failed
    from per_toggle
    qualify count(distinct asked) over (partition by counterfactual_set_id) > 1
),

every_toggle as (
    select t.table_id as question_id, 'a toggle without questions' as failed
    from tables as t
    left join toggle_questions as q using (table_id)
    where t.variant = 'counterfactual' and q.question_id is null
)

select * from answers
union all select * from relational
union all select * from same_questions
union all select * from every_toggle
