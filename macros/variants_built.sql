{#- Whether a model unions in the rows of `variant_model`: the variant's var turns it on (`enabled`), and the
    model is in this invocation's selection (the light default selector leaves tag:obfuscation out, so its
    benchmark holds the originals only; `--selector full` or `--select +benchmark_questions` adds the twins).
    At parse time the var alone decides, so the ref stays in the DAG and the variant's model builds first. -#}
{% macro variant_built(variant_model, enabled) %}
    {%- if not enabled -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if not execute -%}
        {{ return(true) }}
    {%- endif -%}
    {{ return(('model.' ~ project_name ~ '.' ~ variant_model) in selected_resources) }}
{% endmacro %}

{#- The text-obfuscated twins (var obfuscated_variants, on by default; tag obfuscation). -#}
{% macro obfuscated_variants_built(twin_model) %}
    {{ return(variant_built(twin_model, var('obfuscated_variants', true))) }}
{% endmacro %}

{#- The layout counterfactual sets (var layout_counterfactuals > 0; none by default). -#}
{% macro counterfactuals_built(counterfactual_model) %}
    {{ return(variant_built(counterfactual_model, (var('layout_counterfactuals', 0) or 0) | int > 0)) }}
{% endmacro %}

{#- The paraphrase sets (var paraphrase_sets: true; off by default). -#}
{% macro paraphrases_built(paraphrase_model) %}
    {{ return(variant_built(paraphrase_model, var('paraphrase_sets', false))) }}
{% endmacro %}
