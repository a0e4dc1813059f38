"""A format registered from the test suite renders grids of both sources, with no library edit."""
import pandas as pd
import pytest

from generator_py.grid.cells import TableGrid
from generator_py.grid.relation import GRID_COLUMNS, grid_rows, grids_from_frame
from generator_py.grid.release_csv import grid_from_release_csv
from generator_py.render import registry
from generator_py.render.tables import render_tables

# a synthetic table as int_hct_cells lays it out (corner, column headers, row headers, values)
SYNTHETIC_CELLS = pd.DataFrame(
    [
        ("syn--t", "synthetic", 1, 1, 1, 1, "corner", "", False, "Medals", False, 1, 1),
        ("syn--t", "synthetic", 1, 2, 1, 1, "column_header", "Gold", False, "Medals", False, 1, 1),
        ("syn--t", "synthetic", 1, 3, 1, 1, "column_header", "Total", True, "Medals", False, 1, 1),
        ("syn--t", "synthetic", 2, 1, 1, 1, "row_header", "Qatar", False, "Medals", False, 1, 1),
        ("syn--t", "synthetic", 2, 2, 1, 1, "data", "4", False, "Medals", False, 1, 1),
        ("syn--t", "synthetic", 2, 3, 1, 1, "aggregate", "4", True, "Medals", False, 1, 1),
    ],
    columns=list(GRID_COLUMNS),
)
REAL_CSV = ',0,1,2\n0,Region,Male,__\n1,__,2020,2021\n2,Doha,"1,200",7\n'


def render_tsv(grid: TableGrid) -> str:
    return "".join("\t".join(line) + "\n" for line in grid.texts())


@pytest.fixture
def tsv():
    entry = registry.register_format("tsv", "TSV", render_tsv)
    try:
        yield entry
    finally:
        registry.unregister_format("tsv")


def test_toy_format_renders_both_sources(tsv):
    assert registry.get_format("tsv") is tsv and "tsv" in registry.format_names(text_only=True)
    real = grid_from_release_csv(REAL_CSV)
    frame = pd.concat([SYNTHETIC_CELLS, pd.DataFrame(grid_rows("real--t", "real", real), columns=list(GRID_COLUMNS))])
    out = render_tables(grids_from_frame(frame)).set_index("table_id")
    # a new column per registered text format, beside the built-in ones
    assert list(out.columns) == ["n_rows", "n_columns", "html", "csv", "markdown", "tsv"]
    assert out.loc["syn--t", "tsv"] == "\tGold\tTotal\nQatar\t4\t4\n"
    assert out.loc["real--t", "tsv"] == "Region\tMale\t\n\t2020\t2021\nDoha\t1,200\t7\n"
    assert registry.render(real, "tsv") == out.loc["real--t", "tsv"]


def test_toy_format_is_gone_after_unregistering(tsv):
    registry.unregister_format("tsv")
    with pytest.raises(ValueError, match="unknown table format 'tsv'"):
        registry.get_format("tsv")
    registry.register_format("tsv", "TSV", render_tsv)  # for the fixture's clean-up
