-- The three renderings of every HCT from its anchored cells: HTML (spans kept), and the flattened grid
-- as CSV and as a Markdown pipe table (spanned positions empty, as in the HCT-QA release's CSVs).
with tables as (
    select * from {{ ref('int_table_instances') }}
),

cells as (
    select * from {{ ref('int_hct_cells') }}
),

shape as (
    select
        c.table_id,
        max(c.grid_row + c.rowspan - 1) as n_rows,
        max(c.grid_col + c.colspan - 1) as n_columns
    from cells as c
    group by c.table_id
),

html_rows as (
    select
        c.table_id, c.grid_row,
        '<tr>' || string_agg({{ html_cell('c') }}, '' order by c.grid_col) || '</tr>' as tr
    from cells as c
    group by c.table_id, c.grid_row
),

html as (
    select
        h.table_id,
        '<table' || case when t.borders then ' border="1"' else '' end
        -- padding with or without borders, so adjacent numbers never run together
        || ' cellpadding="4">'
        || '<caption>' || {{ html_escape('t.value_name') }} || '</caption>'
        || '<thead>' || string_agg(case when h.grid_row <= t.col_depth then h.tr end, '' order by h.grid_row) || '</thead>'
        || '<tbody>' || string_agg(case when h.grid_row > t.col_depth then h.tr end, '' order by h.grid_row) || '</tbody>'
        || '</table>' as html
    from html_rows as h
    inner join tables as t using (table_id)
    group by h.table_id, t.borders, t.value_name, t.col_depth
),

grid as (
    -- every position of the flattened grid; text only at a cell's anchor
    select s.table_id, r.grid_row, k.grid_col, c.text
    from shape as s
    cross join lateral (select unnest(range(1, s.n_rows + 1)) as grid_row) as r
    cross join lateral (select unnest(range(1, s.n_columns + 1)) as grid_col) as k
    left join cells as c on c.table_id = s.table_id and c.grid_row = r.grid_row and c.grid_col = k.grid_col
),

grid_lines as (
    select
        table_id, grid_row,
        string_agg({{ csv_field('text') }}, ',' order by grid_col) as csv_line,
        '|' || string_agg({{ markdown_field('text') }}, '|' order by grid_col) || '|' as md_line
    from grid
    group by table_id, grid_row
),

flat as (
    select
        g.table_id,
        string_agg(g.csv_line, chr(10) order by g.grid_row) || chr(10) as csv,
        string_agg(
            g.md_line || case when g.grid_row = 1
                then chr(10) || '|' || repeat(' --- |', s.n_columns) else '' end,
            chr(10) order by g.grid_row) || chr(10) as markdown
    from grid_lines as g
    inner join shape as s using (table_id)
    group by g.table_id
),

final as (
    select s.table_id, s.n_rows, s.n_columns, h.html, f.csv, f.markdown
    from shape as s
    inner join html as h using (table_id)
    inner join flat as f using (table_id)
)

select * from final
