"""Text versus image per model (RQ10): pairs of a model's image and text means, and the report's table."""
from __future__ import annotations

import pandas as pd

from evaluation_py.analysis.modality import TEXT_VS_IMAGE_COLUMNS, text_vs_image
from evaluation_py.analysis.report_build import report_sections


def by_format(rows):
    return pd.DataFrame(rows, columns=["model_name", "inference_mode", "scoring_mode", "table_format", "metric",
                                       "value", "n", "n_left_out", "value_minus_html"])


def test_each_text_format_is_paired_with_the_image_of_the_same_model_mode_and_metric():
    frame = by_format([
        ("vl", "direct", "strict", "html", "f1", 0.5, 10, 0, 0.0),
        ("vl", "direct", "strict", "csv", "f1", 0.4, 10, 0, -0.1),
        ("vl", "direct", "strict", "image", "f1", 0.62, 10, 0, 0.12),
        ("vl", "direct", "paper", "image", "f1", 0.7, 8, 2, None),  # no text in paper mode: no pair
        ("llm", "direct", "strict", "html", "f1", 0.3, 10, 0, 0.0),  # text only: no rows
    ])
    out = text_vs_image(frame)
    assert list(out.columns) == TEXT_VS_IMAGE_COLUMNS
    assert out[["model_name", "text_format"]].values.tolist() == [["vl", "csv"], ["vl", "html"]]
    assert out["image_minus_text"].round(6).tolist() == [0.22, 0.12]
    assert out["n_image"].tolist() == [10, 10]


def test_no_model_with_both_gives_typed_empty_rows_and_no_report_section(tmp_path):
    out = text_vs_image(by_format([("llm", "direct", "strict", "html", "f1", 0.3, 10, 0, 0.0)]))
    assert out.empty and list(out.columns) == TEXT_VS_IMAGE_COLUMNS and out["image_value"].dtype == "float64"
    board = pd.DataFrame({"model_name": "vl", "backend": "openai", "table_format": ["image", "markdown"],
                          "inference_mode": "direct", "scoring_mode": "strict", "metric": "f1", "mean": [0.6, 0.5],
                          "ci_low": [0.5, 0.4], "ci_high": [0.7, 0.6], "n_questions": 4, "n_tables": 2,
                          "n_left_out": 0})
    frames = {"leaderboard": board, "by_table_format": by_format([
        ("vl", "direct", "strict", "image", "f1", 0.6, 4, 0, None),
        ("vl", "direct", "strict", "markdown", "f1", 0.5, 4, 0, None)])}
    sections, unanswered = report_sections(frames, pd.DataFrame(), tmp_path / "a")
    section = next(x for x in sections if x.key == "text_vs_image")
    table = section.tables[0].frame
    assert table[["text_format", "image_minus_text"]].round(6).values.tolist() == [["markdown", 0.1]]
    assert "RQ10" in section.intro and "Text versus image" not in [u.title for u in unanswered]
    frames["by_table_format"] = frames["by_table_format"].iloc[1:]  # markdown only: nothing to compare
    sections, unanswered = report_sections({**frames, "leaderboard": board.iloc[1:]}, pd.DataFrame(), tmp_path / "b")
    assert "text_vs_image" not in [x.key for x in sections]
    assert any(u.title == "Text versus image" and "formats: [image]" in u.remedy for u in unanswered)


def test_by_table_size_pairs_the_formats_on_the_questions_of_each_bin(tmp_path):
    from pathlib import Path

    from evaluation_py.analysis.modality import BY_SIZE_COLUMNS, size_bin, text_vs_image_by_table_size

    assert [size_bin(n) for n in (1, 50, 51, 200, 201, 500, 501, 9999)] == [
        "1-50", "1-50", "51-100", "101-200", "201-500", "201-500", "501+", "501+"]
    assert size_bin(None) is None
    tables = pd.DataFrame({"table_id": ["small", "big", "huge"], "n_cells": [20, 300, 800]})
    rows = []
    for q, t, text, image in (("q1", "small", 0.5, 1.0), ("q2", "small", 0.5, 0.0), ("q3", "big", 1.0, 0.0),
                              ("q4", "huge", 1.0, 1.0)):
        for fmt, v in (("html", text), ("image", image)):
            rows.append(("vl", fmt, "direct", "strict", "f1", q, t, v, False))
    rows.append(("vl", "html", "direct", "strict", "f1", "q5", "huge", 0.0, False))  # no image answer: unpaired
    rows.append(("llm", "html", "direct", "strict", "f1", "q1", "small", 1.0, False))  # text only: no rows
    scores = pd.DataFrame(rows, columns=["model_name", "table_format", "inference_mode", "scoring_mode", "metric",
                                         "question_id", "table_id", "value", "left_out"])
    out = text_vs_image_by_table_size(scores, tables)
    assert list(out.columns) == BY_SIZE_COLUMNS and set(out["model_name"]) == {"vl"}
    assert out["size_bin"].tolist() == ["1-50", "201-500", "501+"]
    assert out["n_questions"].tolist() == [2, 1, 1] and out["image_minus_text"].tolist() == [0.0, -1.0, 0.0]
    assert out.loc[2, "text_value"] == 1.0 and (out.loc[1, "min_cells"], out.loc[1, "max_cells"]) == (300, 300)
    assert text_vs_image_by_table_size(scores[scores["table_format"] == "html"], tables).empty
    # the report's RQ10 section shows it beside the per-format comparison
    scores = scores.assign(backend="openai", model=scores["model_name"])
    frame = by_format([("vl", "direct", "strict", "html", "f1", 0.75, 5, 0, 0.0),
                       ("vl", "direct", "strict", "image", "f1", 0.5, 4, 0, -0.25)])
    sections, _ = report_sections({"by_table_format": frame, "text_vs_image": text_vs_image(frame),
                                   "text_vs_image_by_size": out}, scores, tmp_path)
    (section,) = [s for s in sections if s.key == "text_vs_image"]
    assert [t.title for t in section.tables][-1] == "By table size" and len(section.figures) == 2
    assert Path(section.figures[1][0]).stat().st_size > 0
