{#
  A model or seed with a custom schema lands in exactly that schema (`staging`, `intermediate`,
  `seeds`), not dbt's default `<target schema>_<custom>`; everything else in the target schema
  (`main`), which then holds only the marts analysts query.
#}
{% macro generate_schema_name(custom_schema_name, node) -%}
  {%- if custom_schema_name is none -%}
    {{ target.schema }}
  {%- else -%}
    {{ custom_schema_name | trim }}
  {%- endif -%}
{%- endmacro %}
