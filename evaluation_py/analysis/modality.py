"""Text versus image (the paper's RQ10): each model shown a table as text and as its PNG, side by side.

From the per-format means (`breakdowns.scores_by_table_format`): for every model, inference mode,
scoring mode and metric with image results and text results, one row per text format with both
values and their difference. The formats were asked the same questions (a model's sample does not
depend on the format), so the difference compares like with like. Models without both give no rows.
"""
from __future__ import annotations

import pandas as pd

from .breakdowns import BASE_KEYS

IMAGE_FORMAT = "image"
TEXT_VS_IMAGE_COLUMNS = [*BASE_KEYS, "metric", "text_format", "text_value", "image_value", "image_minus_text",
                         "n_text", "n_image"]


def text_vs_image(by_table_format: pd.DataFrame) -> pd.DataFrame:
    """One row per model x mode x scoring mode x metric x text format, where the model also has image rows."""
    keys = [*BASE_KEYS, "metric"]
    if by_table_format.empty:
        return _empty()
    image = by_table_format[by_table_format["table_format"] == IMAGE_FORMAT]
    text = by_table_format[by_table_format["table_format"] != IMAGE_FORMAT]
    image = image[[*keys, "value", "n"]].rename(columns={"value": "image_value", "n": "n_image"})
    text = text[[*keys, "table_format", "value", "n"]].rename(
        columns={"table_format": "text_format", "value": "text_value", "n": "n_text"})
    out = text.merge(image, on=keys, how="inner")
    if out.empty:
        return _empty()
    out["image_minus_text"] = out["image_value"] - out["text_value"]
    out = out.sort_values([*keys, "text_format"], kind="stable").reset_index(drop=True)
    return out[TEXT_VS_IMAGE_COLUMNS]


def _empty() -> pd.DataFrame:
    """No model with both: typed columns all the same, so the mart's schema does not depend on the models."""
    dtypes = {"text_value": "float64", "image_value": "float64", "image_minus_text": "float64",
              "n_text": "int64", "n_image": "int64"}
    return pd.DataFrame({c: pd.Series(dtype=dtypes.get(c, "str")) for c in TEXT_VS_IMAGE_COLUMNS})


# Table-size bins by cells (benchmark_tables.n_cells): fixed edges, so bins compare across builds and models.
SIZE_BINS = ((1, 50), (51, 100), (101, 200), (201, 500), (501, None))
BY_SIZE_COLUMNS = [*BASE_KEYS, "metric", "text_format", "size_bin", "min_cells", "max_cells", "n_questions",
                   "text_value", "image_value", "image_minus_text"]


def size_bin(n_cells) -> str | None:
    """The bin label of a table of `n_cells` cells ('1-50' ... '501+'); None for an unknown size."""
    if n_cells is None or pd.isna(n_cells):
        return None
    for low, high in SIZE_BINS:
        if n_cells >= low and (high is None or n_cells <= high):
            return f"{low}-{high}" if high is not None else f"{low}+"
    return None


def text_vs_image_by_table_size(scores: pd.DataFrame, tables: pd.DataFrame) -> pd.DataFrame:
    """Per model x mode x scoring mode x metric x text format x table-size bin: the text and image means over
    the questions of that bin the model answered in both (none left out), and their difference (the paper's
    observation that large tables read worse as pictures)."""
    if scores.empty or "table_format" not in scores.columns or not (scores["table_format"] == IMAGE_FORMAT).any():
        return _empty_by_size()
    from .coerce import to_flag

    kept = scores[~to_flag(scores["left_out"])] if "left_out" in scores.columns else scores
    cells = dict(zip(tables["table_id"], tables["n_cells"]))
    kept = kept.assign(n_cells=kept["table_id"].map(cells))
    kept = kept.assign(size_bin=[size_bin(n) for n in kept["n_cells"]])
    kept = kept[kept["size_bin"].notna()]
    keys = [*BASE_KEYS, "metric"]
    image = kept[kept["table_format"] == IMAGE_FORMAT][[*keys, "question_id", "size_bin", "n_cells", "value"]]
    text = kept[kept["table_format"] != IMAGE_FORMAT][[*keys, "question_id", "table_format", "value"]]
    paired = text.rename(columns={"table_format": "text_format", "value": "text_value"}).merge(
        image.rename(columns={"value": "image_value"}), on=[*keys, "question_id"], how="inner")
    if paired.empty:
        return _empty_by_size()
    order = {f"{lo}-{hi}" if hi is not None else f"{lo}+": i for i, (lo, hi) in enumerate(SIZE_BINS)}
    out = paired.groupby([*keys, "text_format", "size_bin"], sort=False).agg(
        min_cells=("n_cells", "min"), max_cells=("n_cells", "max"), n_questions=("question_id", "nunique"),
        text_value=("text_value", "mean"), image_value=("image_value", "mean")).reset_index()
    out["image_minus_text"] = out["image_value"] - out["text_value"]
    out = out.assign(_bin=out["size_bin"].map(order)).sort_values([*keys, "text_format", "_bin"], kind="stable")
    out = out.astype({"min_cells": "int64", "max_cells": "int64", "n_questions": "int64"})
    return out[BY_SIZE_COLUMNS].reset_index(drop=True)


def _empty_by_size() -> pd.DataFrame:
    dtypes = {"min_cells": "int64", "max_cells": "int64", "n_questions": "int64", "text_value": "float64",
              "image_value": "float64", "image_minus_text": "float64"}
    return pd.DataFrame({c: pd.Series(dtype=dtypes.get(c, "str")) for c in BY_SIZE_COLUMNS})
