-- Statement items (option_form = 'statement', the lookups' b_tis items as sentences): both options are
-- one subject followed by `is <value>.` or `are <v1>, ... and <vn>.`; the right one states the source
-- question's answer values in order, the wrong one the values of the answer-form item's wrong option.
with items as (
    select *,
        case correct_option when 'A' then option_a else option_b end as right_text,
        case correct_option when 'A' then option_b else option_a end as wrong_text
    from {{ ref('benchmark_choice_items') }}
),

statements as (
    select
        item_id, source_question_id, subset,
        regexp_extract(right_text, '^(.*) (is|are) (.*)\.$', 1) as right_subject,
        regexp_extract(wrong_text, '^(.*) (is|are) (.*)\.$', 1) as wrong_subject,
        string_split(regexp_replace(regexp_extract(right_text, '^(.*) (is|are) (.*)\.$', 3), ',? and ', ', '), ', ')
            as right_values,
        string_split(regexp_replace(regexp_extract(wrong_text, '^(.*) (is|are) (.*)\.$', 3), ',? and ', ', '), ', ')
            as wrong_values
    from items
    where option_form = 'statement'
),

answers as (
    select source_question_id, wrong_text from items where option_form = 'answer' and subset = 'b_tis'
),

questions as (
    select question_id, answer_gt, template_id from {{ ref('benchmark_questions') }}
),

gt_values as (
    select question_id, template_id,
        list_transform(string_split(answer_gt, ' || '), lambda v: trim(v, '{}')) as answer_values
    from questions
),

checked as (
    select
        s.item_id,
        case
            when s.subset != 'b_tis' then 'a statement item outside b_tis'
            when g.template_id not in (1, 2, 3, 6) then 'a statement item of a template that is no lookup'
            when s.right_subject = '' or s.right_subject != s.wrong_subject then 'the options do not share one subject'
            when s.right_values != g.answer_values then 'the right statement does not state the answer'
            when a.wrong_text is null then 'no answer-form item of the same question'
            when s.wrong_values != list_transform(string_split(a.wrong_text, ' || '), lambda v: trim(v, '{}'))
                then 'the wrong statement does not state the answer-form distractor'
        end as problem
    from statements as s
    left join gt_values as g on g.question_id = s.source_question_id
    left join answers as a on a.source_question_id = s.source_question_id
)

select * from checked where problem is not null
