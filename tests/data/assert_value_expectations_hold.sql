-- Every statement of seeds/domain_value_expectations.csv holds on average over the built tables: the
-- cells matching its lower side average below the cells matching its higher side. A statement whose
-- sides match no cell of this build (a domain not built) is not checked; one that fails stops the test
-- with an error naming it and both averages.
with terms as (
    select * from {{ ref('stg_domain_value_expectations') }}
),
cells as (
    select r.table_id, r.rel_row, r.domain, t."values" as shortcut, r.value,
           unnest(list_concat(r.row_attributes, r.col_attributes)) as attribute,
           unnest(list_concat(r.row_labels, r.col_labels)) as label
    from {{ ref('int_sampled_rows') }} as r
    join {{ ref('stg_table_templates') }} as t on t.domain = r.domain and t.template_name = r.template_name
),
matched as (
    select e.statement_id, e.statement, e.side, c.table_id, c.rel_row, any_value(c.value) as value
    from terms as e
    join cells as c on c.domain = e.domain and c.shortcut = e.shortcut and c.attribute = e.attribute and c.label = e.label
    group by e.statement_id, e.statement, e.side, c.table_id, c.rel_row, e.n_terms
    having count(*) = e.n_terms
),
averages as (
    select statement_id, statement,
           avg(value) filter (where side = 'lower') as lower_avg,
           avg(value) filter (where side = 'higher') as higher_avg
    from matched
    group by statement_id, statement
),
failed as (
    select string_agg(statement || ' (averages ' || round(lower_avg, 2) || ' and ' || round(higher_avg, 2) || ')', '; '
                      order by statement_id) as message
    from averages
    where lower_avg is not null and higher_avg is not null and lower_avg >= higher_avg
    having count(*) > 0
)
select message from failed
where error('value expectations do not hold (seeds/domain_value_expectations.csv): ' || message) is null
