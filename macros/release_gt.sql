{#
  The HCT-QA `gt` string of a question's answer rows, an aggregate over them (one row per answer
  row, `row_values` a list of value texts): `{a | b} || {c | d}`, NULLs inside a row left out.
  The same string generator_py.release.gt.format_gt writes (tests/unit/test_release_gt.py).
#}
{% macro release_gt(row_values, row_order) -%}
string_agg('{' || array_to_string(list_filter({{ row_values }}, lambda v: v is not null), ' | ') || '}', ' || '
           order by {{ row_order }})
{%- endmacro %}

{#
  One row per question of `answers` (question_id, answer_row, answer_values): its answer as the marts state it,
  the release's `gt` string, the rows as JSON and their counts.
#}
{% macro question_answer_texts(answers) -%}
select
    question_id,
    {{ release_gt('answer_values', 'answer_row') }} as answer_gt,
    to_json(list(answer_values order by answer_row)) as answer_rows,
    count(*) as answer_n_rows,
    sum(len(list_filter(answer_values, lambda v: v is not null))) as answer_n_values
from {{ answers }}
group by question_id
{%- endmacro %}
