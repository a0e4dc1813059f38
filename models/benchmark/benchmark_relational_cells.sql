{{ config(materialized="view") }}
-- T_REL of every synthetic table as a queryable long relation (see int_relational_cells).
select * from {{ ref('int_relational_cells') }}
