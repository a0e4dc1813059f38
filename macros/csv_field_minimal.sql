{# RFC 4180 field: quoted only when it holds a comma, a quote or a line break (the relational CSV).
   Table renderings are Python, one renderer per format (generator_py/render). #}
{% macro csv_field_minimal(text) -%}
(case when regexp_matches(coalesce({{ text }}, ''), '[",\n\r]')
      then '"' || replace({{ text }}, '"', '""') || '"' else coalesce({{ text }}, '') end)
{%- endmacro %}
