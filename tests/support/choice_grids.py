"""A small hand-built HCT for the choice-item tests: two row levels (Country, City), one column level.

    row 1:  ""  ""      2020  2021  Total
    row 2:  A   a1      11    24    35
    row 3:  ""  a2      32    45    77
    row 4:  ""  Total   43    69    112
    row 5:  B   b1      5     7     12
"""
from __future__ import annotations

from generator_py.choice_items.choice_table import ChoiceTable, value_cell
from generator_py.questions.spec import Rows

GRID = [
    ["", "", "2020", "2021", "Total"],
    ["A", "a1", "11", "24", "35"],
    ["", "a2", "32", "45", "77"],
    ["", "Total", "43", "69", "112"],
    ["B", "b1", "5", "7", "12"],
]

DATA = [  # (row, col, country, city, year, value)
    (2, 3, "A", "a1", "2020", 11.0), (2, 4, "A", "a1", "2021", 24.0),
    (3, 3, "A", "a2", "2020", 32.0), (3, 4, "A", "a2", "2021", 45.0),
    (5, 3, "B", "b1", "2020", 5.0), (5, 4, "B", "b1", "2021", 7.0),
]
AGGREGATES = [  # (row, col, row_group, col_group, value)
    (2, 5, ("A", "a1"), (), 35.0), (3, 5, ("A", "a2"), (), 77.0),
    (4, 3, ("A",), ("2020",), 43.0), (4, 4, ("A",), ("2021",), 69.0), (4, 5, ("A",), (), 112.0),
    (5, 5, ("B", "b1"), (), 12.0),
]


def small_table(table_id: str = "t1", cities=None, template_key: str = "demo--v0001") -> ChoiceTable:
    """The table above; `cities` renames a1, a2, b1 (for a second table of the same template)."""
    rename = dict(zip(("a1", "a2", "b1"), cities or ("a1", "a2", "b1")))
    cells = {}
    rows = []
    for r, c, country, city, year, v in DATA:
        city = rename[city]
        cells[(r, c)] = value_cell(r, c, "data", v, (country, city), (year,))
        rows.append((country, city, year, v))
    for r, c, rg, cg, v in AGGREGATES:
        rg = tuple(rename.get(x, x) for x in rg)
        cells[(r, c)] = value_cell(r, c, "aggregate", v, rg, cg)
    grid = [[rename.get(t, t) for t in line] for line in GRID]
    return ChoiceTable(table_id=table_id, template_key=template_key, row_attributes=("Country", "City"),
                       col_attributes=("Year",), rows=Rows(["Country", "City", "Year", "Value"], rows),
                       cells=cells, grid=grid)


def spec(filters, select=None, **kw) -> dict:
    out = {"filters": [{"attribute": a, "values": list(v)} for a, v in filters],
           "select": select or [{"kind": "value"}], "group_by": [], "order_by": [], "limit": None,
           "semi_join": None, "value_condition": None}
    out.update(kw)
    return out
