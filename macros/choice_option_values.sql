{#
  The distinct normalised values an option states, as a sorted list: the rule of
  generator_py.choice_items.option_text.option_values (braces and `||` read as separators, case and
  runs of spaces folded, numbers by value), so that data tests compare options as scoring reads them.
#}
{% macro choice_option_values(option) -%}
list_sort(list_distinct(list_filter(list_transform(
    string_split(replace(replace(replace(lower({{ option }}), '{', ' '), '}', ' '), '||', '|'), '|'),
    lambda v: case when regexp_full_match(trim(v), '-?[0-9]+(\.[0-9]+)?') then cast(cast(trim(v) as double) as varchar)
              else trim(regexp_replace(v, '\s+', ' ', 'g')) end),
    lambda v: v != '')))
{%- endmacro %}
