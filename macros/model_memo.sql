{#
  Memoized models: a model is not computed again when its code, its configs and the content of every
  relation it refs are those of the run that made its table, and that table is unchanged. The keys are kept
  in `<target schema>.build_memo` (one row per relation), made by the run-start hook.

  A relation's content key is md5 of its columns and types, its row count and the sum of its rows' hashes
  (`memo_content_key` here, `content_key` in generator_py/dbt_glue/model_memo.py: one formula, so a key
  recorded by either is read by both). Within a run a relation's key is read from the row its model recorded
  in this run, else computed.

  SQL models: materialization `memo_table` (dbt_project.yml). Its input key is md5 of the compiled SQL (which
  holds every var and macro it renders) and its refs' content keys; when nothing changed it keeps the table,
  else it builds it with dbt-duckdb's own `table` materialization and records the new keys.

  Python models (`meta: {memoize: true}` or `files`): `py_script_postfix` is dbt's own, appending the ref,
  source, config and this helpers to a Python model's code; this project's version appends after dbt's the
  wrapper of `model` (generator_py/dbt_glue/model_memo.py) with what its key needs: the relations the model
  refs (resolved as dbt resolves them), its configs, a digest of its code, the run, and whether the run is a
  --full-refresh (which runs every memoized model again).
#}
{% macro py_script_postfix(model) %}
{{ dbt.py_script_postfix(model) }}
{%- set memoize = (model.config.meta or {}).get('memoize') -%}
{%- if memoize %}

from generator_py.dbt_glue.model_memo import memoized as _memoized

model = _memoized(model, relation={{ this | string | tojson }}, schema={{ target.schema | tojson }},
                  inputs={{ memo_inputs(model) | tojson }}, config=config_dict,
                  code_digest={{ local_md5(model.raw_code) | tojson }}, invocation={{ invocation_id | tojson }},
                  mode={{ memoize | string | tojson }}, full_refresh={{ 'True' if flags.FULL_REFRESH else 'False' }})
{%- endif %}
{% endmacro %}

{% macro memo_inputs(model) %}
  {#- {ref name: relation} of the relations a model refs -#}
  {%- set inputs = {} -%}
  {%- for _ref in model.refs -%}
    {%- set resolved = ref(_ref['name']) -%}
    {%- if resolved.render is defined and resolved.render is callable -%}{%- set resolved = resolved.render() -%}{%- endif -%}
    {%- do inputs.update({_ref['name']: resolved | string}) -%}
  {%- endfor -%}
  {{ return(inputs) }}
{% endmacro %}

{% macro memo_relation() -%}
  {{ target.schema }}.build_memo
{%- endmacro %}

{% macro memo_content_key(relation) %}
  {%- set found = adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) -%}
  {%- if found is none -%}{{ return('absent') }}{%- endif -%}
  {%- set columns = [] -%}
  {%- for row in run_query("describe " ~ relation).rows -%}{%- do columns.append(row[0] ~ ':' ~ row[1]) -%}{%- endfor -%}
  {%- set totals = run_query("select count(*)::varchar, coalesce(sum(hash(__memo_row)::hugeint), 0)::varchar from "
                             ~ relation ~ " __memo_row").rows[0] -%}
  {{ return(local_md5(columns | join(',') ~ '|' ~ totals[0] ~ '|' ~ totals[1])) }}
{% endmacro %}

{% macro memo_relation_key(relation) %}
  {%- set recorded = run_query("select output_key from " ~ memo_relation() ~ " where relation = '"
                               ~ (relation | string | replace("'", "''")) ~ "' and invocation_id = '" ~ invocation_id ~ "'") -%}
  {{ return(recorded.rows[0][0] if recorded.rows | length > 0 else memo_content_key(relation)) }}
{% endmacro %}

{% macro memo_record(relation, input_key, output_key, reused) %}
  {%- set name = relation | string | replace("'", "''") -%}
  {% do run_query("delete from " ~ memo_relation() ~ " where relation = '" ~ name ~ "'") %}
  {% do run_query("insert into " ~ memo_relation() ~ " values ('" ~ name ~ "', '" ~ input_key ~ "', '" ~ output_key
                  ~ "', null, '" ~ invocation_id ~ "', " ~ reused ~ ")") %}
  {% do adapter.commit() %}
{% endmacro %}

{% materialization memo_table, adapter='duckdb', supported_languages=['sql'] %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set parts = [compiled_code] -%}
  {%- for _ref in model.refs -%}
    {%- do parts.append(_ref['name'] ~ '=' ~ memo_relation_key(ref(_ref['name']))) -%}
  {%- endfor -%}
  {%- set input_key = local_md5(parts | join('\n')) -%}
  {%- set recorded = run_query("select input_key, output_key from " ~ memo_relation() ~ " where relation = '"
                               ~ (target_relation | string | replace("'", "''")) ~ "'").rows -%}
  {%- if not flags.FULL_REFRESH and recorded | length > 0 and recorded[0][0] == input_key
        and memo_content_key(target_relation) == recorded[0][1] -%}
    {% call statement('main') %} select 1 {% endcall %}
    {% do memo_record(target_relation, input_key, recorded[0][1], 'true') %}
    {{ return({'relations': [target_relation]}) }}
  {%- endif -%}
  {%- set built = materialization_table_duckdb() -%}
  {% do memo_record(target_relation, input_key, memo_content_key(target_relation), 'false') %}
  {{ return(built) }}
{% endmaterialization %}

{% macro model_memo_start() %}
  {% if execute %}
    {% do run_query("create table if not exists " ~ memo_relation() ~ " (relation varchar, input_key varchar,"
                    ~ " output_key varchar, files_json varchar, invocation_id varchar, reused boolean)") %}
    {% do adapter.commit() %}
  {% endif %}
{% endmacro %}
