"""How good the LLM judge is: its correct / incorrect against our complete-containment score (cc, strict).

We have exact ground truth, so the judge can be checked: per judge, evaluated model and inference mode,
the confusion counts of the judge's verdict (``eval_judgements.judge_correct``) against strict ``cc``
(1: every ground-truth value is in the answer) over the predictions with a verdict, the share on which
they agree, the share expected by chance from their margins, and Cohen's kappa
(``(observed - chance) / (1 - chance)``; NULL when chance agreement is 1, i.e. both always say the
same one thing, where kappa is undefined). Judgements without a verdict are counted, not compared.
No dbt imports.
"""
from __future__ import annotations

import pandas as pd

KEYS = ["judge_name", "model_name", "inference_mode"]
AGREEMENT_COLUMNS = [*KEYS, "n_compared", "n_judge_errors", "n_both_correct", "n_judge_correct_cc_incorrect",
                     "n_judge_incorrect_cc_correct", "n_both_incorrect", "observed_agreement", "chance_agreement",
                     "cohen_kappa"]
_COUNTS = ["n_both_correct", "n_judge_correct_cc_incorrect", "n_judge_incorrect_cc_correct", "n_both_incorrect"]


def cohen_kappa(both_correct: int, judge_only: int, cc_only: int, both_incorrect: int) -> tuple[float, float, float]:
    """(observed agreement, chance agreement, kappa) of a 2x2 table; NaN where undefined."""
    n = both_correct + judge_only + cc_only + both_incorrect
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    observed = (both_correct + both_incorrect) / n
    judge_yes, cc_yes = (both_correct + judge_only) / n, (both_correct + cc_only) / n
    chance = judge_yes * cc_yes + (1 - judge_yes) * (1 - cc_yes)
    kappa = float("nan") if chance >= 1.0 else (observed - chance) / (1 - chance)
    return observed, chance, kappa


def judge_agreement(judgements: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """``analysis_judge_agreement`` from ``eval_judgements`` and ``eval_scores`` (module doc)."""
    if len(judgements) == 0:
        return _typed(pd.DataFrame(columns=AGREEMENT_COLUMNS))
    cc = scores[(scores["scoring_mode"] == "strict") & (scores["metric"] == "cc")]
    cc = cc.drop_duplicates("cache_key").set_index("cache_key")["value"]
    j = judgements[[*KEYS, "cache_key", "judge_correct"]].copy()
    j["cc"] = j["cache_key"].map(cc)
    missing = j[j["cc"].isna()]
    if len(missing):
        raise ValueError(f"analysis_judge_agreement: judged prediction {missing['cache_key'].iloc[0]!r} has no "
                         "strict cc row in eval_scores")
    rows = []
    for key, group in j.groupby(KEYS, sort=True, dropna=False):
        ok = group[group["judge_correct"].notna()]
        judge_says = ok["judge_correct"].astype(bool).to_numpy()
        cc_says = ok["cc"].to_numpy() == 1.0
        counts = [int((judge_says & cc_says).sum()), int((judge_says & ~cc_says).sum()),
                  int((~judge_says & cc_says).sum()), int((~judge_says & ~cc_says).sum())]
        rows.append((*key, len(ok), len(group) - len(ok), *counts, *cohen_kappa(*counts)))
    return _typed(pd.DataFrame(rows, columns=AGREEMENT_COLUMNS))


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    for c in KEYS:
        frame[c] = frame[c].astype("string")
    for c in ["n_compared", "n_judge_errors", *_COUNTS]:
        frame[c] = frame[c].astype("int64")
    for c in ("observed_agreement", "chance_agreement", "cohen_kappa"):
        frame[c] = frame[c].astype("float64")
    return frame
