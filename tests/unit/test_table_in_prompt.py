"""`table_in_prompt` of the code modes: `structure` (the default) shows the table's shape and headers and
never a value cell; `full` is the prompt pot and icot had before the key existed, byte for byte."""
from __future__ import annotations

import hashlib
import io
import json
import random

import pandas as pd
import pytest

from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.running.requests import build_requests
from generator_py.grid.cells import VALUE_ROLES, Cell, TableGrid
from generator_py.render.registry import render

FORMATS = ["html", "markdown", "csv"]
ENTRY = {"name": "m", "backend": "openai", "model": "x", "base_url": "http://unused/v1", "modes": ["pot", "icot"],
         "formats": FORMATS}


def _value(rng: random.Random) -> str:
    # six digits or a decimal with five: no count, position or label of the structure text can contain one
    return str(rng.randint(100000, 999999)) if rng.random() < 0.5 else f"{rng.randint(10000, 99999) / 100:.2f}"


def nested_columns(rng: random.Random) -> TableGrid:
    """Two column-header levels with spans, a corner, a row-aggregate column and an aggregate row."""
    cells = [Cell(1, 1, 2, 1, "corner", "Region"), Cell(1, 2, 1, 2, "column_header", "2020"),
             Cell(1, 4, 1, 2, "column_header", "2021"), Cell(1, 6, 2, 1, "column_header", "Total", True)]
    cells += [Cell(2, 2 + k, 1, 1, "column_header", q) for k, q in enumerate(["H1", "H2", "H1", "H2"])]
    for r, region in enumerate(["North", "South", "East"], start=3):
        cells.append(Cell(r, 1, 1, 1, "row_header", region))
        cells += [Cell(r, 2 + k, 1, 1, "data", _value(rng)) for k in range(4)]
        cells.append(Cell(r, 6, 1, 1, "aggregate", _value(rng), True))
    cells.append(Cell(6, 1, 1, 1, "row_header", "Total", True))
    cells += [Cell(6, 2 + k, 1, 1, "aggregate", _value(rng), True) for k in range(5)]
    return TableGrid(tuple(cells), header_rows=2, header_columns=1, caption="Rainfall by region")


def nested_rows(rng: random.Random) -> TableGrid:
    """Two row-header levels (a spanning group header), an indented outline group and blank cells."""
    cells = [Cell(1, 1, 1, 2, "corner_split", "Kind \\ Year"), Cell(1, 3, 1, 1, "column_header", "2019"),
             Cell(1, 4, 1, 1, "column_header", "2022")]
    cells += [Cell(2, 1, 2, 1, "row_header", "Road"), Cell(2, 2, 1, 1, "row_header", "Car"),
              Cell(3, 2, 1, 1, "row_header", "Bus")]
    cells += [Cell(4, 1, 1, 2, "row_group_label", "Water"), Cell(4, 3, 1, 1, "empty", ""), Cell(4, 4, 1, 1, "empty", "")]
    cells += [Cell(5, 1, 1, 1, "indent", ""), Cell(5, 2, 1, 1, "row_header", "Boat")]
    for r in (2, 3, 5):
        cells += [Cell(r, 3, 1, 1, "data", _value(rng)), Cell(r, 4, 1, 1, "data", _value(rng))]
    return TableGrid(tuple(cells), header_rows=1, header_columns=2)


def three_levels(rng: random.Random) -> TableGrid:
    """Three column-header levels over eight value columns, two row-header columns, ten body rows."""
    cells = [Cell(1, 1, 3, 2, "corner", "")]
    col = 3
    for a in ("Imports", "Exports"):
        cells.append(Cell(1, col, 1, 4, "column_header", a))
        for k, b in enumerate(("Goods", "Services")):
            cells.append(Cell(2, col + 2 * k, 1, 2, "column_header", b))
            cells += [Cell(3, col + 2 * k + j, 1, 1, "column_header", c) for j, c in enumerate(("Q1", "Q2"))]
        col += 4
    for i, country in enumerate(("Chad", "Peru")):
        first = 4 + 5 * i
        cells.append(Cell(first, 1, 5, 1, "row_header", country))
        for j in range(5):
            cells.append(Cell(first + j, 2, 1, 1, "row_header", f"Port {chr(65 + j)}"))
            cells += [Cell(first + j, 3 + k, 1, 1, "data", _value(rng)) for k in range(8)]
    return TableGrid(tuple(cells), header_rows=3, header_columns=2)


def flat(rng: random.Random) -> TableGrid:
    """A relational table: one header row, no row headers."""
    cells = [Cell(1, k + 1, 1, 1, "column_header", h) for k, h in enumerate(("City", "Sales", "Cost"))]
    for r in range(2, 6):
        cells += [Cell(r, 1, 1, 1, "data", f"City{_value(rng)}")]
        cells += [Cell(r, k, 1, 1, "data", _value(rng)) for k in (2, 3)]
    return TableGrid(tuple(cells), header_rows=1, header_columns=0)


GRIDS = {"t_columns": nested_columns, "t_rows": nested_rows, "t_levels": three_levels, "t_flat": flat}


def benchmark() -> tuple[pd.DataFrame, pd.DataFrame, dict[str, TableGrid]]:
    rng = random.Random(7)
    grids = {table_id: make(rng) for table_id, make in GRIDS.items()}
    tables = pd.DataFrame([{"table_id": t, **{f: render(g, f) for f in FORMATS}} for t, g in grids.items()])
    questions = pd.DataFrame([{"question_id": f"{t}-q{i}", "table_id": t, "source": "synthetic", "dataset": "toy",
                               "template_id": "T1", "question": q, "answer_gt": "{1}"}
                              for t in grids for i, q in enumerate(("What is the largest value?", "Sum the H1s?"))])
    return questions, tables, grids


def requests(entry: dict):
    questions, tables, grids = benchmark()
    spec = parse_eval_models([entry])[0]
    return build_requests(spec, questions, tables, 42), grids


def prompt_text(request) -> str:
    return "\n".join(m["content"] for m in request.messages)


def value_cells(grid: TableGrid) -> list[str]:
    return [c.text for c in grid.cells if c.role in VALUE_ROLES and c.text]


def test_the_default_prompt_of_pot_and_icot_shows_no_value_cell_but_names_the_variables_and_headers():
    reqs, grids = requests(ENTRY)
    assert len(reqs) == 2 * 3 * 8 and {r.prompt_version for r in reqs} == {"hctqa-pot-structure-v1",
                                                                          "hctqa-icot-structure-v1"}
    for r in reqs:
        text, grid = prompt_text(r), grids[r.table_id]
        shown = [v for v in value_cells(grid) if v in text]
        assert not shown, (r.table_id, r.table_format, shown)
        assert f"The table is in the variable `{r.table_format}`" in text
        for c in grid.cells:
            if c.role not in VALUE_ROLES and c.text:
                assert repr(c.text) in text, (r.table_id, c.text)
        assert f"{grid.n_rows} grid rows x {grid.n_columns} grid columns" in text
        assert f"{grid.header_rows} column-header row(s)" in text
        assert f"{grid.header_columns} row-header column(s)" in text
        # df as the sandbox reads the CSV: every grid position a str column
        assert f"`df`: pandas DataFrame, shape ({grid.n_rows}, {grid.n_columns})" in text
        df = pd.read_csv(io.StringIO(render(grid, "csv")), header=None, dtype=str, keep_default_na=False)
        assert f"dtypes: {df.dtypes.iloc[0]} (every cell a str)" in text and df.dtypes.nunique() == 1
        assert text.rstrip().endswith("Question: " + r.messages[-1]["content"].rsplit("Question: ", 1)[1].strip())


def test_full_shows_every_value_cell_and_is_the_prompt_of_before_byte_for_byte():
    reqs, grids = requests({**ENTRY, "table_in_prompt": "full"})
    assert {r.prompt_version for r in reqs} == {"hctqa-pot-v1", "hctqa-icot-v1"}
    for r in reqs:
        text = prompt_text(r)
        assert all(v in text for v in value_cells(grids[r.table_id])), (r.table_id, r.table_format)
    # sha256 of every request's messages and cache key, as the code before `table_in_prompt` made them
    digest = hashlib.sha256(json.dumps(sorted([r.cache_key, r.messages] for r in reqs)).encode()).hexdigest()
    assert digest == FULL_DIGEST


# Written by the code before `table_in_prompt` existed, from this module's tables and ENTRY.
FULL_DIGEST = "d72813822085ba273b7b48359ab7e1ce6fda2c8eab0cd3827b49d1258a6cf112"


def test_the_two_values_have_different_cache_keys_and_the_text_modes_are_unchanged():
    structure, _ = requests({**ENTRY, "modes": ["direct", "tcot", "pot", "icot"]})
    full, _ = requests({**ENTRY, "modes": ["direct", "tcot", "pot", "icot"], "table_in_prompt": "full"})
    by_key = lambda reqs: {(r.inference_mode, r.question_id, r.table_format): r.cache_key for r in reqs}  # noqa: E731
    a, b = by_key(structure), by_key(full)
    assert a.keys() == b.keys()
    for k in a:
        assert (a[k] == b[k]) == (k[0] in ("direct", "tcot")), k


@pytest.mark.parametrize("entry, message", [
    ({**ENTRY, "table_in_prompt": "cells"}, "key `table_in_prompt` 'cells' must be one of full, structure"),
    ({**ENTRY, "table_in_prompt": None}, "key `table_in_prompt` None must be one of full, structure"),
    ({**ENTRY, "modes": ["direct", "tcot"], "table_in_prompt": "full"},
     "key `table_in_prompt` applies to the code modes (pot, icot), and `modes` has none"),
])
def test_a_bad_table_in_prompt_names_the_entry_and_the_key(entry, message):
    with pytest.raises(ValueError) as info:
        parse_eval_models([entry])
    assert "eval_models entry 1" in str(info.value) and message in str(info.value)
