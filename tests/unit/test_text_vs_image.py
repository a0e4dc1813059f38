"""Text versus image per model (RQ10): pairs of a model's image and text means, and the report's table."""
from __future__ import annotations

import pandas as pd

from evaluation_py.analysis.modality import TEXT_VS_IMAGE_COLUMNS, text_vs_image
from evaluation_py.analysis.report_build import report_tables


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


def test_no_model_with_both_gives_typed_empty_rows_and_an_empty_report_table():
    out = text_vs_image(by_format([("llm", "direct", "strict", "html", "f1", 0.3, 10, 0, 0.0)]))
    assert out.empty and list(out.columns) == TEXT_VS_IMAGE_COLUMNS and out["image_value"].dtype == "float64"
    frames = {k: pd.DataFrame() for k in ("by_source_dataset", "verbosity", "by_template", "by_question_property",
                                          "by_aggregation_type")}
    frames.update(overall=pd.DataFrame({"level": ["overall"]}), composition=pd.DataFrame({"facet": [], "key": []}),
                  by_table_format=by_format([("vl", "direct", "strict", "image", "f1", 0.6, 4, 0, None),
                                             ("vl", "direct", "strict", "markdown", "f1", 0.5, 4, 0, None)]),
                  regression=pd.DataFrame({c: [] for c in ("property_kind", "dropped_reason", "coef", "model_name",
                                                                     "metric", "model_type", "property")}))
    table, caption = report_tables(frames)["text versus image"]
    assert table[["text_format", "image_minus_text"]].round(6).values.tolist() == [["markdown", 0.1]]
    assert "RQ10" in caption
