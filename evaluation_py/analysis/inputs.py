"""Marts as the analysis functions expect them (column names of eval_scores mapped once, here)."""
from __future__ import annotations

import pandas as pd


def analysis_scores(eval_scores: pd.DataFrame) -> pd.DataFrame:
    return eval_scores.rename(columns={"answer_n_values": "n_values_expected"})
