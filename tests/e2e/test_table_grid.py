"""End-to-end: the built renderings are the registry's renderers over the built grid, for every table."""
import csv
import io

from generator_py.grid.relation import GRID_COLUMNS, grids_from_frame
from generator_py.render import registry
from generator_py.render.tables import render_tables


def _grid_frame(con):
    return con.execute(f"select {', '.join(GRID_COLUMNS)} from intermediate.int_table_grid").df()


def test_benchmark_renderings_are_the_renderers_over_int_table_grid(ci_db):
    rendered = render_tables(grids_from_frame(_grid_frame(ci_db))).set_index("table_id").sort_index()
    formats = list(registry.format_names(text_only=True))
    marts = ci_db.execute(f"select table_id, n_rows, n_columns, {', '.join(formats)} from main.benchmark_tables "
                          "order by table_id").df().set_index("table_id")
    assert list(rendered.index) == list(marts.index)
    for column in ["n_rows", "n_columns", *formats]:
        differing = rendered.index[rendered[column] != marts[column]]
        assert differing.empty, (column, list(differing[:5]))


def test_toy_format_renders_a_built_grid(ci_db):
    def render_tsv(grid):
        return "".join("\t".join(line) + "\n" for line in grid.texts())

    registry.register_format("tsv", "TSV", render_tsv)
    try:
        frame = _grid_frame(ci_db)
        table_id = frame["table_id"].min()
        ((_, grid),) = grids_from_frame(frame[frame["table_id"] == table_id])
        tsv = registry.render(grid, "tsv")
        (built_csv,) = ci_db.execute("select csv from main.benchmark_tables where table_id = ?", [table_id]).fetchone()
        assert [line.split("\t") for line in tsv.splitlines()] == list(csv.reader(io.StringIO(built_csv)))
    finally:
        registry.unregister_format("tsv")
