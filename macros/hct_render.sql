{% macro html_escape(text) -%}
replace(replace(replace(replace({{ text }}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;')
{%- endmacro %}

{#
  One HTML cell from an anchored grid cell: headers as <th>, values as <td>; spans only when > 1;
  aggregates class "agg", row group labels "group", the split corner "split", indentation "indent".
#}
{% macro html_cell(c) -%}
(case when {{ c }}.role in ('data', 'aggregate', 'empty') then '<td' else '<th' end
 || case when {{ c }}.rowspan > 1 then ' rowspan="' || {{ c }}.rowspan || '"' else '' end
 || case when {{ c }}.colspan > 1 then ' colspan="' || {{ c }}.colspan || '"' else '' end
 || case when {{ c }}.is_aggregate then ' class="agg"'
         when {{ c }}.role = 'row_group_label' then ' class="group"'
         when {{ c }}.role = 'corner_split' then ' class="split"'
         when {{ c }}.role = 'indent' then ' class="indent"'
         else '' end
 {#- a spanning row header reads next to its group's first row, which holds the group's implicit aggregate #}
 || case when {{ c }}.role = 'row_header' and {{ c }}.rowspan > 1 then ' valign="top"' else '' end
 || '>' || {{ html_escape(c ~ '.text') }}
 || case when {{ c }}.role in ('data', 'aggregate', 'empty') then '</td>' else '</th>' end)
{%- endmacro %}

{% macro csv_field(text) -%}
('"' || replace(coalesce({{ text }}, ''), '"', '""') || '"')
{%- endmacro %}

{% macro markdown_field(text) -%}
(' ' || replace(coalesce({{ text }}, ''), '|', '\|') || ' ')
{%- endmacro %}

{# RFC 4180 field: quoted only when it holds a comma, a quote or a line break. #}
{% macro csv_field_minimal(text) -%}
(case when regexp_matches(coalesce({{ text }}, ''), '[",\n\r]')
      then '"' || replace({{ text }}, '"', '""') || '"' else coalesce({{ text }}, '') end)
{%- endmacro %}
