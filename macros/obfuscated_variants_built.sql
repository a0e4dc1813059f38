{#- Whether a model unions in the obfuscated twins of `twin_model`: var obfuscated_variants on, and the twin
    model in this invocation's selection (the light default selector leaves tag:obfuscation out, so its
    benchmark holds the originals only; `--selector full` or `--select +benchmark_questions` adds the twins).
    At parse time the var alone decides, so the ref stays in the DAG and the twin model builds first. -#}
{% macro obfuscated_variants_built(twin_model) %}
    {%- if not var('obfuscated_variants', true) -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if not execute -%}
        {{ return(true) }}
    {%- endif -%}
    {{ return(('model.' ~ project_name ~ '.' ~ twin_model) in selected_resources) }}
{% endmacro %}
