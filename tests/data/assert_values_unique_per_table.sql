-- Values are unique within each relational table, so no answer can be read off two cells.
select table_id, value, count(*) as n
from {{ ref('int_relational_rows') }}
group by table_id, value
having count(*) > 1
