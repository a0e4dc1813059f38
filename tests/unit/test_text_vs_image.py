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
