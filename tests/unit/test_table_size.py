"""analysis_mode_by_table_size on planted scores: bins, means, table-clustered intervals, what is left out."""
from __future__ import annotations

import pandas as pd
import pytest

from evaluation_py.analysis.table_size import BY_SIZE_COLUMNS, scores_by_table_size, size_bins

# (table_id, n_cells): two small tables, two mid-sized, two large; 49 and 50 sit either side of an edge
TABLES = pd.DataFrame({"table_id": ["s1", "s2", "m1", "m2", "l1", "l2"], "n_cells": [30, 49, 50, 199, 900, 1200]})
# f1 of each table's two questions: direct falls with size (1, then one table 1 and one 0, then 0); icot does not
F1 = {"direct": {"s1": 1, "s2": 1, "m1": 1, "m2": 0, "l1": 0, "l2": 0}, "icot": dict.fromkeys(TABLES["table_id"], 1)}
TOKENS = {"direct": {"s": 300, "m": 1500, "l": 9000}, "icot": {"s": 700, "m": 700, "l": 700}}


def planted() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    scores, predictions = [], []
    for mode, by_table in F1.items():
        for table_id, v in by_table.items():
            for q in range(2):
                key = f"{mode}-{table_id}-{q}"
                predictions.append({"cache_key": key, "prompt_tokens": TOKENS[mode][table_id[0]]})
                for scoring_mode in ("strict", "paper"):
                    scores.append({"cache_key": key, "model_name": "m", "backend": "openai", "model": "x",
                                   "table_format": "html", "inference_mode": mode, "scoring_mode": scoring_mode,
                                   "question_id": f"q-{table_id}-{q}", "table_id": table_id, "metric": "f1",
                                   "value": float(v), "left_out": scoring_mode == "paper" and q == 1})
    scores, predictions = pd.DataFrame(scores), pd.DataFrame(predictions)
    questions = pd.DataFrame({"question_id": scores["question_id"].unique(), "variant": "original"})
    return scores, predictions, questions


def rows(out: pd.DataFrame, **where) -> pd.DataFrame:
    mask = pd.Series(True, index=out.index)
    for k, v in where.items():
        mask &= out[k] == v
    return out[mask].set_index("size_bin")


def test_bins_are_fixed_and_an_edge_belongs_to_the_bin_it_opens():
    got = size_bins(pd.Series([0, 49, 50, 99, 100, 799, 800, 10 ** 6, None]), "cells").tolist()
    assert got[:8] == [0, 0, 1, 1, 2, 4, 5, 5] and pd.isna(got[8])


def test_the_text_mode_falls_with_size_and_icot_stays_flat_on_both_measures():
    scores, predictions, questions = planted()
    out = scores_by_table_size(scores, TABLES, predictions, seed=3, questions=questions)
    assert list(out.columns) == BY_SIZE_COLUMNS
    direct = rows(out, inference_mode="direct", scoring_mode="strict", size_measure="cells")
    assert direct["value"].to_dict() == {"0-49": 1.0, "50-99": 1.0, "100-199": 0.0, "800+": 0.0}
    assert direct.loc["50-99", "n"] == 2 and direct.loc["50-99", "n_tables"] == 1
    assert direct.loc["800+", "bin_low"] == 800 and pd.isna(direct.loc["800+", "bin_high"])
    assert direct.loc["0-49", "bin_high"] == 49 and direct.loc["0-49", "n_tables"] == 2
    icot = rows(out, inference_mode="icot", scoring_mode="strict", size_measure="cells")
    assert set(icot["value"]) == {1.0}
    by_tokens = rows(out, inference_mode="direct", scoring_mode="strict", size_measure="prompt_tokens")
    assert by_tokens["value"].to_dict() == {"0-499": 1.0, "1000-1999": 0.5, "8000+": 0.0}
    assert rows(out, inference_mode="icot", scoring_mode="strict", size_measure="prompt_tokens").index.tolist() == [
        "500-999"]


def test_the_interval_resamples_tables_and_is_reproducible():
    scores, predictions, questions = planted()
    out = scores_by_table_size(scores, TABLES, predictions, seed=3, questions=questions)
    assert (out["ci_low"] <= out["value"] + 1e-12).all() and (out["value"] <= out["ci_high"] + 1e-12).all()
    mixed = rows(out, inference_mode="direct", scoring_mode="strict", size_measure="prompt_tokens").loc["1000-1999"]
    # two tables, one scoring 1 and one 0: resampled tables give 0, 0.5 or 1
    assert mixed["ci_low"] == 0.0 and mixed["ci_high"] == 1.0 and mixed["n_tables"] == 2
    flat = rows(out, inference_mode="icot", scoring_mode="strict", size_measure="cells")
    assert (flat["ci_low"] == 1.0).all() and (flat["ci_high"] == 1.0).all()
    again = scores_by_table_size(scores, TABLES, predictions, seed=3, questions=questions)
    pd.testing.assert_frame_equal(out, again)
    # a row's interval does not depend on the other rows of the build
    alone = scores_by_table_size(scores[scores["inference_mode"] == "direct"], TABLES, predictions, seed=3,
                                 questions=questions)
    key = ["inference_mode", "scoring_mode", "metric", "size_measure", "size_bin"]
    merged = alone.merge(out, on=key, suffixes=("", "_all"))
    assert len(merged) == len(alone) and (merged["ci_low"] == merged["ci_low_all"]).all()


def test_paper_mode_counts_left_out_twins_and_other_formats_are_not_in_a_bin():
    scores, predictions, questions = planted()
    twin = scores[scores["question_id"] == "q-s1-0"].assign(question_id="q-s1-0-obf", cache_key="twin", value=0.0)
    csv = scores[scores["question_id"] == "q-s2-0"].assign(table_format="csv", cache_key="csv", value=0.0)
    no_tokens = scores[scores["question_id"] == "q-s2-0"].assign(model_name="header_match", backend="header_match",
                                                                  cache_key="hm")
    questions = pd.concat([questions, pd.DataFrame({"question_id": ["q-s1-0-obf"], "variant": ["obfuscated"]})])
    out = scores_by_table_size(pd.concat([scores, twin, csv, no_tokens]), TABLES, predictions, seed=3,
                               questions=questions)
    paper = rows(out, model_name="m", inference_mode="direct", scoring_mode="paper", size_measure="cells")
    assert paper.loc["0-49", "n"] == 2 and paper.loc["0-49", "n_left_out"] == 2 and paper.loc["0-49", "value"] == 1.0
    strict = rows(out, model_name="m", inference_mode="direct", scoring_mode="strict", size_measure="cells")
    assert strict.loc["0-49", "n"] == 4 and strict.loc["0-49", "value"] == 1.0  # no twin, no csv row
    hm = out[out["model_name"] == "header_match"]
    assert set(hm["size_measure"]) == {"cells"} and len(hm) == 2 * 2  # two modes x two scoring modes; no tokens


def test_no_scores_give_typed_empty_rows():
    scores, predictions, _ = planted()
    out = scores_by_table_size(scores.iloc[:0], TABLES, predictions, seed=3)
    assert out.empty and list(out.columns) == BY_SIZE_COLUMNS and out["n"].dtype == "int64"


def test_the_report_has_the_table_size_section_and_figure(tmp_path):
    from evaluation_py.analysis.report_build import report_sections

    scores, predictions, questions = planted()
    frames = {"by_table_size": scores_by_table_size(scores, TABLES, predictions, seed=3, questions=questions)}
    sections, unanswered = report_sections(frames, scores, tmp_path)
    section = next(s for s in sections if s.key == "table_size")
    (path, caption), = section.figures
    assert path.endswith("modes_by_table_size_f1.png") and (tmp_path / "modes_by_table_size_f1.png").stat().st_size
    assert "one line per inference mode" in caption
    assert set(section.tables[0].frame["inference_mode"]) == {"direct", "icot"}
    _, unanswered = report_sections({}, scores, tmp_path / "none")
    assert "Do the modes lose accuracy as tables grow?" in [u.title for u in unanswered]
