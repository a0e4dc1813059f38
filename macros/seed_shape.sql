{#
  Seeds: the project's own seed materialization checks a file's shape before dbt loads it, then
  hands over to dbt's. dbt-duckdb copies CSV rows into an existing seed table by position, so seeds
  are always rebuilt (`+full_refresh: true` in dbt_project.yml) and their header must name exactly
  the columns declared for them in seeds/seeds.yml (`column_types`), in any order. An empty file,
  which dbt reports only as a StopIteration, is named too.
#}
{% materialization seed, adapter='duckdb' %}
  {%- set file = model.original_file_path -%}
  {%- set path = adapter.get_seed_file_path(model) | replace("'", "''") -%}
  {%- set declared = (config.get('column_types') or {}).keys() | list -%}
  {%- set text = run_query("select content from read_text('" ~ path ~ "')").columns[0].values()[0] -%}
  {%- if text is none or text | replace('\ufeff', '') | trim == '' -%}
    {{ exceptions.raise_compiler_error(file ~ " is empty: a seed file needs at least its header line ("
                                       ~ declared | join(',') ~ ")") }}
  {%- endif -%}
  {%- if declared -%}
    {%- set header = run_query("describe select * from read_csv('" ~ path ~ "', header = true, all_varchar = true)")
                     .columns[0].values() | list -%}
    {%- set unknown = header | reject('in', declared) | list -%}
    {%- set missing = declared | reject('in', header) | list -%}
    {%- if unknown or missing -%}
      {%- set problems = [] -%}
      {%- for c in unknown %}{% do problems.append("unknown column '" ~ c ~ "'") %}{% endfor -%}
      {%- for c in missing %}{% do problems.append("missing column '" ~ c ~ "'") %}{% endfor -%}
      {{ exceptions.raise_compiler_error(file ~ " line 1 (header): " ~ problems | join(', ')
                                         ~ "; the columns of this seed are " ~ declared | join(', ')
                                         ~ " (seeds/seeds.yml), in any order") }}
    {%- endif -%}
  {%- endif -%}
  {{ return(dbt.materialization_seed_default()) }}
{% endmaterialization %}
