{#
  The rules of docs/properties.md ("How the flags relate") that the 23 table-property flags of a
  row of benchmark_tables break, as one text ('; '-separated), NULL when they agree. The data test
  assert_table_property_flags_consistent holds synthetic tables to it; benchmark_tables keeps it as
  annotation_issues for the real tables, whose flags are the release's annotations.
#}
{% macro table_property_issues() -%}
nullif(concat_ws('; '
{%- for axis in ['column', 'row'] %}
    {%- set bal, unbal = 'balanced_' ~ axis ~ '_nesting', 'unbalanced_' ~ axis ~ '_nesting' %}
    {%- set sym, asym = 'symmetric_' ~ axis ~ '_nesting', 'asymmetric_' ~ axis ~ '_nesting' %}
    , case when {{ bal }} and {{ unbal }} then '{{ axis }} nesting both balanced and unbalanced' end
    , case when {{ sym }} and {{ asym }} then '{{ axis }} nesting both symmetric and asymmetric' end
    , case when {{ axis }}_nesting and not ({{ bal }} or {{ unbal }})
           then '{{ axis }} nesting neither balanced nor unbalanced' end
    , case when {{ axis }}_nesting and not ({{ sym }} or {{ asym }})
           then '{{ axis }} nesting neither symmetric nor asymmetric' end
    , case when not {{ axis }}_nesting and ({{ bal }} or {{ unbal }} or {{ sym }} or {{ asym }})
           then 'a kind of {{ axis }} nesting without {{ axis }}_nesting' end
    , case when not {{ axis }}_aggregation and (global_{{ axis }}_aggregation or local_{{ axis }}_aggregation
                                            or explicit_{{ axis }}_aggregation or implicit_{{ axis }}_aggregation)
           then 'a kind of {{ axis }} aggregation without {{ axis }}_aggregation' end
    , case when {{ axis }}_aggregation and not (explicit_{{ axis }}_aggregation or implicit_{{ axis }}_aggregation)
           then '{{ axis }} aggregation neither explicit nor implicit' end
{%- endfor %}
    , case when standard_relational_table = (column_nesting or row_nesting or column_aggregation or row_aggregation
                                             or row_group_label or split_header_cell)
           then case when standard_relational_table then 'standard relational table with other properties'
                     else 'no property, yet not a standard relational table' end end
), '')
{%- endmacro %}
