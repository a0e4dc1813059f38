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
