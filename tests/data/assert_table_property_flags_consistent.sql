-- Property flags agree with each other: a child implies its parent, balanced/unbalanced and
-- symmetric/asymmetric exclude each other, and a standard relational table has no other property.
with p as (
    select * from {{ ref('benchmark_tables') }}
)

select table_id, 'column nesting children' as problem from p
where (balanced_column_nesting and unbalanced_column_nesting) or (symmetric_column_nesting and asymmetric_column_nesting)
   or (column_nesting != (balanced_column_nesting or unbalanced_column_nesting))
   or (column_nesting != (symmetric_column_nesting or asymmetric_column_nesting))
union all
select table_id, 'row nesting children' from p
where (balanced_row_nesting and unbalanced_row_nesting) or (symmetric_row_nesting and asymmetric_row_nesting)
   or (row_nesting != (balanced_row_nesting or unbalanced_row_nesting))
   or (row_nesting != (symmetric_row_nesting or asymmetric_row_nesting))
union all
select table_id, 'aggregation children' from p
where ((global_column_aggregation or local_column_aggregation or explicit_column_aggregation or implicit_column_aggregation) and not column_aggregation)
   or ((global_row_aggregation or local_row_aggregation or explicit_row_aggregation or implicit_row_aggregation) and not row_aggregation)
   or (column_aggregation and not (explicit_column_aggregation or implicit_column_aggregation))
   or (row_aggregation and not (explicit_row_aggregation or implicit_row_aggregation))
union all
select table_id, 'standard relational table' from p
where standard_relational_table = (column_nesting or row_nesting or column_aggregation or row_aggregation
                                   or row_group_label or split_header_cell)
