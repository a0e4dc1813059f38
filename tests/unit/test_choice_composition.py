"""Choice-item counts in the benchmark composition: per subset and per subset x strategy."""
from __future__ import annotations

import pandas as pd
import pytest

from evaluation_py.analysis.composition import COMPOSITION_COLUMNS, choice_item_composition


def _items() -> pd.DataFrame:
    rows = [("t1", "b_tis", "neighbour_cell"), ("t1", "b_tis", "wrong_function"), ("t2", "b_tis", "neighbour_cell"),
            ("t2", "m_tis", "neighbour_cell"), ("t1", "tsu_pcl", "nearby_position"), ("t1", "tsu_pcl", "nearby_position"),
            ("t2", "tsu_pcl", "nearby_position")]
    return pd.DataFrame(rows, columns=["table_id", "subset", "distractor_strategy"])


def test_counts_per_subset_and_strategy_in_subset_order():
    out = choice_item_composition(_items())
    assert list(out.columns) == COMPOSITION_COLUMNS
    assert [tuple(r) for r in out.itertuples(index=False)] == [
        ("choice_subset", "b_tis", 2, 3), ("choice_subset", "m_tis", 1, 1), ("choice_subset", "tsu_pcl", 2, 3),
        ("choice_strategy", "b_tis: neighbour_cell", 2, 2), ("choice_strategy", "b_tis: wrong_function", 1, 1),
        ("choice_strategy", "m_tis: neighbour_cell", 1, 1), ("choice_strategy", "tsu_pcl: nearby_position", 2, 3),
    ]
    assert out["n_tables"].dtype == "int64" and out["n_questions"].dtype == "int64"


def test_no_items_give_no_rows_and_bad_items_are_errors():
    assert choice_item_composition(_items().iloc[:0]).empty
    with pytest.raises(ValueError, match="lack columns distractor_strategy"):
        choice_item_composition(_items().drop(columns=["distractor_strategy"]))
    with pytest.raises(ValueError, match="unknown subset.*x_tis"):
        choice_item_composition(_items().assign(subset="x_tis"))
