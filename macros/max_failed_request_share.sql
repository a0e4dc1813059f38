{#- var max_failed_request_share, checked: the largest share of a model's requests that may fail. -#}
{% macro max_failed_request_share() %}
    {%- set limit = var('max_failed_request_share', 0.05) -%}
    {%- if limit is sameas true or limit is sameas false or limit is not number or limit < 0 or limit > 1 -%}
        {{ exceptions.raise_compiler_error("var max_failed_request_share must be a number between 0 and 1 (0.05 is 5 %), got " ~ limit) }}
    {%- endif -%}
    {{ limit }}
{%- endmacro %}
