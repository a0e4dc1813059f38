-- The correct option is the source question's answer (b_tis, su_tis, m_tis), or, for a probe on the
-- original table, synthetic or real, the content of the grid at its target read off int_table_grid (an
-- anchored cell's text; a row's or column's non-empty anchored cells in grid order joined by ' | ';
-- positions a merged cell spans are empty): the CSV positions are the grid's.
with items as (
    select *, case correct_option when 'A' then option_a else option_b end as correct_text
    from {{ ref('benchmark_choice_items') }}
),

questions as (
    select question_id, answer_gt from {{ ref('benchmark_questions') }}
),

cells as (
    select table_id, grid_row, grid_col, trim(text) as text from {{ ref('int_table_grid') }} where trim(text) != ''
),

question_items as (
    select i.item_id, i.correct_text, q.answer_gt as expected
    from items as i
    left join questions as q on q.question_id = i.source_question_id
    where i.subset in ('b_tis', 'su_tis', 'm_tis') and i.option_form = 'answer'  -- statements: their own test
),

probe_items as (
    select
        i.item_id, i.correct_text,
        (select string_agg(c.text, ' | ' order by c.grid_row, c.grid_col) from cells as c
         where c.table_id = i.table_id
           and (i.target_row is null or c.grid_row = i.target_row)
           and (i.target_col is null or c.grid_col = i.target_col)) as expected
    from items as i
    where i.subset like 'tsu_%' and i.content_variant = 'original'
      and i.table_id in (select table_id from cells)
)

select * from question_items where expected is null or correct_text != expected
union all
select * from probe_items where expected is null or correct_text != expected
