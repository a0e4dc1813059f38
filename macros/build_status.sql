{#
  `main.build_status`: one row saying whether the database holds one build. The run-start hook marks
  it `building` before any model runs (a build killed half-way leaves it so: the marts may then mix
  builds); the run-end hook checks the build_fingerprint of every relation of the target schema that
  has one (whatever the selection) against stg_build_config's, and writes `complete` (one fingerprint
  throughout) or `incomplete` (naming the marts of each build), and fails the run when incomplete.
  Marts are compared by fingerprint, not by run, so a partial build on the last full build's
  configuration leaves the database complete.
#}
{% macro build_status_relation() -%}
  {{ target.schema }}.build_status
{%- endmacro %}

{% macro _build_status_sql_text(text) -%}
  '{{ text | replace("'", "''") }}'
{%- endmacro %}

{% macro build_status_start() %}
  {% if execute %}
    {% set relation = build_status_relation() %}
    {% do run_query("create table if not exists " ~ relation ~ " (run_id varchar, command varchar, started_at timestamp,"
                    ~ " ended_at timestamp, state varchar, build_fingerprint varchar, message varchar)") %}
    {% do run_query("delete from " ~ relation) %}
    {% do run_query("insert into " ~ relation ~ " values ('" ~ invocation_id ~ "', '" ~ flags.WHICH ~ "', current_timestamp,"
                    ~ " null, 'building', null, " ~ _build_status_sql_text("dbt " ~ flags.WHICH ~ " run " ~ invocation_id
                    ~ " has started and not ended: until it does, marts may be of different builds") ~ ")") %}
    {% do adapter.commit() %}
  {% endif %}
{% endmacro %}

{% macro build_status_end(results) %}
  {% if execute %}
    {% set relation = build_status_relation() %}
    {% set marts = run_query("select distinct table_name from information_schema.columns where table_catalog = current_database()"
                             ~ " and table_schema = '" ~ target.schema ~ "' and column_name = 'build_fingerprint'"
                             ~ " and table_name <> 'build_status' order by table_name").columns[0].values() %}
    {% set has_config = run_query("select count(*) from information_schema.tables where table_catalog = current_database()"
                                  ~ " and table_schema = 'staging' and table_name = 'stg_build_config'").columns[0].values()[0] %}
    {% set parts = [] %}
    {% for mart in marts %}
      {% do parts.append("select distinct '" ~ mart ~ "' as relation, build_fingerprint from " ~ target.schema ~ '."' ~ mart
                         ~ '" where build_fingerprint is not null') %}
    {% endfor %}
    {% if has_config %}
      {% do parts.append("select distinct 'staging.stg_build_config' as relation, build_fingerprint from staging.stg_build_config") %}
    {% endif %}
    {% set by_fingerprint = {} %}
    {% if parts %}
      {% for row in run_query(parts | join(" union all ") ~ " order by 2, 1").rows %}
        {% do by_fingerprint.setdefault(row[1], []).append(row[0]) %}
      {% endfor %}
    {% endif %}
    {% set failed = [] %}
    {% for result in results %}
      {% if result.status in ("error", "fail") %}{% do failed.append(result.node.name) %}{% endif %}
    {% endfor %}
    {% set run_note = "" if not failed else "; run " ~ invocation_id ~ " (dbt " ~ flags.WHICH ~ ") stopped on "
                      ~ failed | join(", ") ~ " with the marts still of one build" %}
    {% if by_fingerprint | length <= 1 %}
      {% set fingerprint = (by_fingerprint.keys() | list | first) if by_fingerprint else none %}
      {% set state = "complete" %}
      {% set message = ("every mart is of build " ~ fingerprint if fingerprint else "no mart is built yet") ~ run_note %}
    {% else %}
      {% set fingerprint = none %}
      {% set state = "incomplete" %}
      {% set groups = [] %}
      {% for fp, relations in by_fingerprint.items() %}
        {% do groups.append("build " ~ fp ~ ": " ~ relations | join(", ")) %}
      {% endfor %}
      {% set message = "the database is incomplete: it mixes " ~ by_fingerprint | length ~ " builds (" ~ groups | join("; ")
                       ~ "); build every model again with one configuration (dbt build) before reading the marts" %}
    {% endif %}
    {% do run_query("update " ~ relation ~ " set ended_at = current_timestamp, state = '" ~ state ~ "', build_fingerprint = "
                    ~ ("'" ~ fingerprint ~ "'" if fingerprint else "null") ~ ", message = " ~ _build_status_sql_text(message)
                    ~ " where run_id = '" ~ invocation_id ~ "'") %}
    {% do adapter.commit() %}
    {% if state == "incomplete" %}
      {{ exceptions.raise_compiler_error("build_status: " ~ message) }}
    {% endif %}
  {% endif %}
{% endmacro %}
