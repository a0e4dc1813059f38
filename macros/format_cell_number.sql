{#
  HCT cell text for a number, matching generator_py.core.formatting.format_cell_number: round to 6
  decimals (drops summation noise), then half-up to 2; integer tables print integral values as integers.
#}
{% macro format_cell_number(value, is_integer) -%}
(case
    when {{ is_integer }} and round(cast({{ value }} as decimal(18, 6)), 2) = round(cast({{ value }} as decimal(18, 6)), 0)
        then cast(cast(round(cast({{ value }} as decimal(18, 6)), 0) as bigint) as varchar)
    else printf('%.2f', cast(round(cast({{ value }} as decimal(18, 6)), 2) as double))
end)
{%- endmacro %}

{% macro attribute_display_names(names) -%}
array_to_string(list_transform({{ names }}, lambda x: replace(x, '_', ' ')), ' / ')
{%- endmacro %}

{# Canonical answer text for a number (generator_py.core.formatting.format_number): 34, 12.5, 3.14. #}
{% macro format_number(value) -%}
(case
    when round(cast({{ value }} as decimal(18, 6)), 2) = round(cast({{ value }} as decimal(18, 6)), 0)
        then cast(cast(round(cast({{ value }} as decimal(18, 6)), 0) as bigint) as varchar)
    else rtrim(printf('%.2f', cast(round(cast({{ value }} as decimal(18, 6)), 2) as double)), '0')
end)
{%- endmacro %}
