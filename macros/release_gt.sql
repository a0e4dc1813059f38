{#
  The HCT-QA `gt` string of a question's answer rows, an aggregate over them (one row per answer
  row, `row_values` a list of value texts): `{a | b} || {c | d}`, NULLs inside a row left out.
  The same string generator_py.release.gt.format_gt writes (tests/unit/test_release_gt.py).
#}
{% macro release_gt(row_values, row_order) -%}
string_agg('{' || array_to_string(list_filter({{ row_values }}, lambda v: v is not null), ' | ') || '}', ' || '
           order by {{ row_order }})
{%- endmacro %}
