{#
  Ground truth of every question, executed set-based in DuckDB from the question's structured spec
  (the same query its SQL text states; int_answer_cross_check runs the text itself in SQLite).
  Spec: filters [{attribute, values}] (conjunctive, IN), value_condition {op, threshold},
  semi_join {attributes, filters, value_condition}, select [{kind: attribute|value|aggregate, ...}],
  group_by [attributes], order_by [{kind, name, direction}], limit.
  Output: one row per answer row: question_id, answer_row (1-based), values (canonical text, NULL kept).
#}
{% macro question_answers(questions, cells) %}
with table_keys as (
    -- an integer per table and per question stands for its id in every join and grouping below: text keys made
    -- the query outgrow DuckDB's 2 GB on two threads at 10x scale (and spill on one)
    select table_id, row_number() over (order by table_id) as table_key
    from (select distinct table_id from {{ cells }})
),

question_keys as (
    select question_id, row_number() over (order by question_id) as question_key from {{ questions }}
),

questions as (
    select k.question_key as question_id, t.table_key as table_id, cast(q.spec_json as json) as spec
    from {{ questions }} as q
    inner join question_keys as k on k.question_id = q.question_id
    left join table_keys as t on t.table_id = q.table_id
),

cells as (
    select t.table_key as table_id, c.rel_row, c.attribute, c.attribute_value, c.value
    from {{ cells }} as c
    inner join table_keys as t on t.table_id = c.table_id
),

rel_rows as (
    select distinct table_id, rel_row, value from cells
),

filters as (
    -- one row per filter of a scope, k its place in the scope's list
    select question_id, table_id, 'main' as scope,
           unnest(from_json(spec -> 'filters', '[{"attribute": "VARCHAR", "values": ["VARCHAR"]}]'), recursive := true),
           generate_subscripts(from_json(spec -> 'filters', '["JSON"]'), 1) as k
    from questions
    union all
    select question_id, table_id, 'semi' as scope,
           unnest(from_json(spec -> '$.semi_join.filters', '[{"attribute": "VARCHAR", "values": ["VARCHAR"]}]'), recursive := true),
           generate_subscripts(from_json(spec -> '$.semi_join.filters', '["JSON"]'), 1) as k
    from questions
    where json_type(spec -> 'semi_join') = 'OBJECT'
),

filter_counts as (
    select question_id, scope, count(*) as n_filters from filters group by question_id, scope
),

value_masks as (
    -- the rows of a table holding one value of an attribute as 64-bit masks: bit i of word w is row 64 w + i
    -- (NULL, where a row's branch lacks the attribute, meets no filter)
    select table_id, attribute, attribute_value, rel_row >> 6 as word, bit_or((1::ubigint) << (rel_row & 63)) as mask
    from cells
    where attribute_value is not null
    group by table_id, attribute, attribute_value, word
),

filter_masks as (
    -- the rows meeting one filter: those holding one of its values
    select f.question_id, f.scope, f.k, v.word, bit_or(v.mask) as mask
    from (select question_id, table_id, scope, k, attribute, unnest("values") as value from filters) as f
    inner join value_masks as v on v.table_id = f.table_id and v.attribute = f.attribute and v.attribute_value = f.value
    group by f.question_id, f.scope, f.k, v.word
),

meeting as (
    -- (question, scope, rel_row) meeting every filter of that scope: the AND of its filters' masks, word by word,
    -- in the words where every filter has rows (a mask per question, scope and word, not a row per row meeting
    -- each filter: tens of millions of those at 10x scale)
    select question_id, scope, unnest(list_transform(list_filter(range(64), lambda i: (mask >> i) & 1 = 1),
                                                    lambda i: word * 64 + i)) as rel_row
    from (
        select m.question_id, m.scope, m.word, bit_and(m.mask) as mask
        from filter_masks as m
        inner join filter_counts as n on n.question_id = m.question_id and n.scope = m.scope
        group by m.question_id, m.scope, m.word
        having count(*) = any_value(n.n_filters)
    )
    where mask <> 0
),

value_conditions as (
    select question_id, 'main' as scope, spec ->> '$.value_condition.op' as op,
           cast(spec ->> '$.value_condition.threshold' as double) as threshold
    from questions where json_type(spec -> 'value_condition') = 'OBJECT'
    union all
    select question_id, 'semi', spec ->> '$.semi_join.value_condition.op',
           cast(spec ->> '$.semi_join.value_condition.threshold' as double)
    from questions where json_type(spec -> '$.semi_join.value_condition') = 'OBJECT'
),

unfiltered as (
    -- the scopes without filters (kept apart from their tables' rows: joined first, the rows of every scope
    -- would be made before the scopes with filters are left out)
    select q.question_id, q.table_id, s.scope
    from questions as q
    cross join (select 'main' as scope union all select 'semi') as s
    where (s.scope = 'main' or json_type(q.spec -> 'semi_join') = 'OBJECT')
      and not exists (select 1 from filter_counts as n where n.question_id = q.question_id and n.scope = s.scope)
),

scoped_rows as (
    -- every row of the table in a scope without filters, the rows meeting them in a scope with some
    select u.question_id, u.scope, r.rel_row, r.value
    from unfiltered as u
    inner join rel_rows as r on r.table_id = u.table_id
    union all
    select m.question_id, m.scope, r.rel_row, r.value
    from meeting as m
    inner join questions as q on q.question_id = m.question_id
    inner join rel_rows as r on r.table_id = q.table_id and r.rel_row = m.rel_row
),

passing as (
    select p.question_id, p.scope, p.rel_row, p.value
    from scoped_rows as p
    left join value_conditions as v on v.question_id = p.question_id and v.scope = p.scope
    where v.op is null or (v.op = '<' and p.value < v.threshold) or (v.op = '>' and p.value > v.threshold)
),

semi_attributes as (
    select question_id, table_id, unnest(from_json(spec -> '$.semi_join.attributes', '["VARCHAR"]')) as attribute,
           generate_subscripts(from_json(spec -> '$.semi_join.attributes', '["VARCHAR"]'), 1) as k
    from questions where json_type(spec -> 'semi_join') = 'OBJECT'
),

semi_keys as (
    select p.question_id, p.scope, p.rel_row, list(c.attribute_value order by a.k) as key
    from passing as p
    inner join semi_attributes as a on a.question_id = p.question_id
    inner join questions as q on q.question_id = p.question_id
    inner join cells as c on c.table_id = q.table_id and c.rel_row = p.rel_row and c.attribute = a.attribute
    group by p.question_id, p.scope, p.rel_row
),

matched as (
    select p.question_id, p.rel_row, p.value
    from passing as p
    where p.scope = 'main'
      and (not exists (select 1 from semi_attributes as a where a.question_id = p.question_id)
           or exists (
               select 1 from semi_keys as o
               inner join semi_keys as i on i.question_id = o.question_id and i.scope = 'semi' and i.key = o.key
               where o.question_id = p.question_id and o.scope = 'main' and o.rel_row = p.rel_row))
),

select_items as (
    select question_id, table_id,
           unnest(from_json(spec -> 'select', '[{"kind": "VARCHAR", "name": "VARCHAR", "function": "VARCHAR"}]'), recursive := true),
           generate_subscripts(from_json(spec -> 'select', '["JSON"]'), 1) as item
    from questions
),

group_attributes as (
    select question_id, table_id, unnest(from_json(spec -> 'group_by', '["VARCHAR"]')) as attribute,
           generate_subscripts(from_json(spec -> 'group_by', '["VARCHAR"]'), 1) as k
    from questions
),

shapes as (
    select
        question_id,
        exists (select 1 from select_items as s where s.question_id = q.question_id and s.kind = 'aggregate') as aggregated,
        spec -> '$.order_by[0]' ->> 'kind' as order_kind,
        spec -> '$.order_by[0]' ->> 'direction' as order_direction,
        cast(spec ->> 'limit' as integer) as row_limit
    from questions as q
),

row_groups as (
    -- the group key of every matched row (empty for a global aggregate or a plain selection)
    select m.question_id, m.rel_row, m.value,
           coalesce((select list(c.attribute_value order by g.k)
                     from group_attributes as g
                     inner join questions as q on q.question_id = g.question_id
                     inner join cells as c on c.table_id = q.table_id and c.rel_row = m.rel_row and c.attribute = g.attribute
                     where g.question_id = m.question_id), []) as group_key
    from matched as m
),

aggregated_rows as (
    select
        g.question_id, g.group_key, any_value(g.rel_row) as some_row,
        sum(g.value) as agg_sum, avg(g.value) as agg_avg, min(g.value) as agg_min, max(g.value) as agg_max
    from row_groups as g
    inner join shapes as s using (question_id)
    where s.aggregated
    group by g.question_id, g.group_key
),

output_rows as (
    -- one row per answer row with its sort position
    select a.question_id, a.some_row as rel_row, a.group_key, cast(null as double) as value,
           a.agg_sum, a.agg_avg, a.agg_min, a.agg_max,
           row_number() over (partition by a.question_id order by
               case when s.order_direction = 'desc' then null else a.group_key end asc,
               case when s.order_direction = 'desc' then a.group_key end desc) as answer_row
    from aggregated_rows as a
    inner join shapes as s using (question_id)
    union all
    select g.question_id, g.rel_row, g.group_key, g.value, null, null, null, null,
           row_number() over (partition by g.question_id order by
               case when s.order_kind = 'value' and s.order_direction = 'asc' then g.value end asc,
               case when s.order_kind = 'value' and s.order_direction = 'desc' then g.value end desc,
               g.rel_row)
    from row_groups as g
    inner join shapes as s using (question_id)
    where not s.aggregated
),

limited as (
    select o.* from output_rows as o
    inner join shapes as s using (question_id)
    where s.row_limit is null or o.answer_row <= s.row_limit
),

output_values as (
    select
        o.question_id, o.answer_row, i.item,
        case i.kind
            when 'value' then {{ format_number('o.value') }}
            when 'aggregate' then {{ format_number("case i.function when 'sum' then o.agg_sum when 'avg' then o.agg_avg when 'min' then o.agg_min when 'max' then o.agg_max end") }}
            else c.attribute_value
        end as answer_value
    from limited as o
    inner join select_items as i using (question_id)
    left join cells as c on c.table_id = i.table_id and c.rel_row = o.rel_row and c.attribute = i.name and i.kind = 'attribute'
),

final as (
    -- each answer row's values in select order: a list of (item, value) sorted, not an ordered aggregate, which
    -- holds every group's values until the end
    select question_id, answer_row,
           list_transform(list_sort(list({'item': item, 'value': answer_value})), lambda x: x.value) as answer_values
    from output_values
    group by question_id, answer_row
)

select k.question_id, f.answer_row, f.answer_values
from final as f
inner join question_keys as k on k.question_key = f.question_id
{% endmacro %}

{#
  Pre-hook of the models that run question_answers: past `rows` rows in `cells`, DuckDB runs the model on one
  thread. Over many questions two threads building their hash tables at once need about the whole memory limit
  (10x scale with the 2 GB default: out of memory with text keys; with the integer keys it fitted, just), and one
  thread stays well within it; the answers are the same. The post-hook `reset threads` gives the build back every
  core.
#}
{% macro one_duckdb_thread_past(cells, rows) %}
  {%- if execute and run_query("select count(*) from " ~ cells).columns[0].values()[0] > rows -%}
    set threads = 1
  {%- else -%}
    select 1
  {%- endif -%}
{% endmacro %}
