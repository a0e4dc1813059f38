-- Every question naming a grouping (spec `grouping`: fuzzy query, semantic selection) resolves it as the seeds
-- say, recomputed here in SQL: the members of its value_groupings row (listed, or the vocabulary's descendants
-- of its parent label at the attribute's level, seed domain_values) that its table shows; its SQL's IN list is
-- those labels.
with grouped as (
    select i.question_id, i.table_id, t.domain,
           json_extract_string(i.spec_json, '$.grouping.attribute') as attribute,
           json_extract_string(i.spec_json, '$.grouping.phrase') as phrase,
           list_sort(cast(json_extract(i.spec_json, '$.grouping.members') as varchar[])) as members,
           list_sort(cast(json_extract(list_filter(cast(json_extract(i.spec_json, '$.filters') as json[]),
               lambda f: json_extract_string(f, '$.attribute') = json_extract_string(i.spec_json, '$.grouping.attribute'))[1],
               '$.values') as varchar[])) as in_list
    from {{ ref('int_question_instances') }} as i
    inner join {{ ref('int_table_instances') }} as t using (table_id)
    where json_extract(i.spec_json, '$.grouping') is not null
),

levels as (
    select domain, code, cast(level as integer) as level, attribute_name from {{ ref('stg_domain_attributes') }}
),

-- every label with each of its ancestors (itself included), walking parent_label up the hierarchy
lineage as (
    with recursive up(domain, code, level, label, ancestor, ancestor_level) as (
        select domain, code, cast(level as integer), label, label, cast(level as integer)
        from {{ ref('stg_domain_values') }}
        union all
        select u.domain, u.code, u.level, u.label, v.parent_label, u.ancestor_level - 1
        from up as u
        inner join {{ ref('stg_domain_values') }} as v
            on v.domain = u.domain and v.code = u.code and v.label = u.ancestor
           and cast(v.level as integer) = u.ancestor_level
        where v.parent_label is not null and v.parent_label <> ''
    )
    select * from up
),

seeded as (
    select g.domain, g.attribute, trim(regexp_replace(g.phrase, '\s+', ' ', 'g')) as phrase, g.members, g.parent
    from {{ ref('stg_value_groupings') }} as g
),

listed as (
    select domain, attribute, phrase, trim(unnest(string_split(members, ';'))) as label
    from seeded
    where members is not null and members <> ''
),

expected_members as (
    select domain, attribute, phrase, label from listed where label <> ''
    union
    select s.domain, s.attribute, s.phrase, l.label
    from seeded as s
    inner join levels as a on a.domain = s.domain and a.attribute_name = s.attribute
    inner join lineage as l on l.domain = s.domain and l.code = a.code and l.level = a.level and l.ancestor = s.parent
    where s.parent is not null and s.parent <> ''
),

shown as (
    select distinct table_id, attr, label
    from (
        select table_id, unnest(list_concat(row_attributes, col_attributes)) as attr,
               unnest(list_concat(row_labels, col_labels)) as label
        from {{ ref('int_relational_rows') }}
    )
    where label is not null
),

resolved as (
    select g.question_id, list_sort(list(distinct e.label) filter (where e.label is not null)) as members
    from grouped as g
    left join expected_members as e on e.domain = g.domain and e.attribute = g.attribute and e.phrase = g.phrase
    left join shown as s on s.table_id = g.table_id and s.attr = g.attribute and s.label = e.label
    where s.label is not null
    group by g.question_id
)

select g.question_id, g.attribute, g.phrase, g.members, g.in_list, r.members as resolved
from grouped as g
left join resolved as r using (question_id)
where r.members is null or g.members <> r.members or g.in_list is distinct from g.members
