"""How the inference modes compare (TReB's modes on HCTs): scores by model x mode x question family, the
gain of the code modes (pot, icot) over the text modes (direct, tcot) per family and per TReB skill (TReB's
Figure 2), how pot / icot code runs ended (error rates by kind), and the turns icot episodes used.

Scores are long eval_scores rows, each model on its primary table format as in every breakdown
(`selection.select_scores`); real questions have no family and are grouped as `real`.
"""
from __future__ import annotations


import numpy as np
import pandas as pd

from evaluation_py.scoring.final_answer import states_final_answer
from evaluation_py.scoring.scores import mean_scores

from .selection import PRIMARY, select_scores

REAL_FAMILY = "real"  # the family of questions of the HCT-QA release (benchmark_questions.family is NULL)


def code_modes() -> tuple[str, ...]:
    """The registered modes whose programs run in the sandbox (`runs_code`: pot, icot)."""
    from evaluation_py.modes.inference_mode import MODES

    return tuple(m.name for m in MODES if m.kind == "generate" and m.runs_code)


def text_modes() -> tuple[str, ...]:
    """The registered modes that answer in text alone (direct, tcot), the baselines of the code modes."""
    from evaluation_py.modes.inference_mode import MODES

    return tuple(m.name for m in MODES if m.kind == "generate" and not m.runs_code)


FAMILY_COLUMNS = ["model_name", "inference_mode", "scoring_mode", "family", "metric", "value", "n", "n_left_out"]
GAIN_COLUMNS = ["model_name", "scoring_mode", "level", "family", "treb_skill", "metric", "inference_mode",
                "baseline_mode", "value", "baseline_value", "gain", "n", "baseline_n"]
GAIN_LEVELS = ("family", "treb_skill")  # a gain row is per question family, or per TReB skill
ERROR_COLUMNS = ["model_name", "inference_mode", "sandbox", "outcome", "n_runs", "share_of_runs", "n_predictions",
                 "share_of_predictions"]
TURN_COLUMNS = ["model_name", "inference_mode", "turns_used", "ended_at_final_answer", "n_episodes",
                "share_of_episodes"]
_INTS = {"n", "n_left_out", "baseline_n", "n_runs", "n_predictions", "turns_used", "n_episodes"}
_FLOATS = {"value", "baseline_value", "gain", "share_of_runs", "share_of_predictions", "share_of_episodes"}


def _empty(columns) -> pd.DataFrame:
    """No rows, typed columns (DuckDB makes an untyped empty column NULL-typed)."""
    return pd.DataFrame({c: pd.Series(dtype="int64" if c in _INTS else "float64" if c in _FLOATS else
                                      "bool" if c == "ended_at_final_answer" else "string") for c in columns})


def _with_family(scores: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    family = questions.drop_duplicates("question_id").set_index("question_id")["family"]
    fam = scores["question_id"].map(family)
    return scores.assign(family=fam.astype(object).where(fam.notna(), REAL_FAMILY))


def scores_by_mode_family(scores: pd.DataFrame, questions: pd.DataFrame, scoring_mode=None,
                          table_format=PRIMARY) -> pd.DataFrame:
    """Every metric per model x inference mode x scoring mode x question family."""
    sel = select_scores(scores, scoring_mode, table_format, exclude_left_out=False)
    if sel.empty:
        return _empty(FAMILY_COLUMNS)
    return mean_scores(_with_family(sel, questions), ["model_name", "inference_mode", "scoring_mode", "family"])[
        FAMILY_COLUMNS]


def _gains(frame: pd.DataFrame, keys: list[str]) -> list[pd.DataFrame]:
    """Each code mode's `value` minus each text mode's, matched on `keys`."""
    rows = []
    for mode in code_modes():
        for base in text_modes():
            a = frame[frame["inference_mode"] == mode]
            b = frame[frame["inference_mode"] == base]
            m = a.merge(b, on=keys, suffixes=("", "_base"))
            if m.empty:
                continue
            rows.append(pd.DataFrame({**{k: m[k] for k in keys}, "inference_mode": mode, "baseline_mode": base,
                                      "value": m["value"], "baseline_value": m["value_base"],
                                      "gain": m["value"] - m["value_base"], "n": m["n"], "baseline_n": m["n_base"]}))
    return rows


def mode_gains(by_family: pd.DataFrame, by_skill: pd.DataFrame | None = None) -> pd.DataFrame:
    """Each code mode's mean minus each text mode's, where the model ran both (its questions are the same in
    every mode: one seeded sample per entry): per model, scoring mode, family and metric (`level` family), and,
    from `by_skill` (analysis_scores_by_treb_skill), per TReB skill on its skill rows (`level` treb_skill: the
    mean of the skill's subtasks, each by its own metric; TReB's Figure 2)."""
    rows = [r.assign(level="family", treb_skill=None)
            for r in _gains(by_family, ["model_name", "scoring_mode", "family", "metric"])]
    if by_skill is not None and len(by_skill):
        skills = by_skill[by_skill["treb_subtask"].isna()].rename(columns={"mean": "value", "n_questions": "n"})
        rows += [r.assign(level="treb_skill", family=None)
                 for r in _gains(skills, ["model_name", "scoring_mode", "treb_skill", "metric"])]
    if not rows:
        return _empty(GAIN_COLUMNS)
    out = pd.concat(rows, ignore_index=True)
    out["gain"] = out["gain"].astype("float64")
    for c in ("n", "baseline_n"):
        out[c] = out[c].astype("int64")
    for c in ("family", "treb_skill"):
        out[c] = out[c].astype(object).where(out[c].notna(), None)
    order = ["model_name", "scoring_mode", "level", "family", "treb_skill", "metric", "inference_mode", "baseline_mode"]
    return out.sort_values(order, na_position="first").reset_index(drop=True)[GAIN_COLUMNS]


def execution_errors(executions: pd.DataFrame) -> pd.DataFrame:
    """Per model x mode x sandbox: how the code runs ended (`ok` or the error kind), as a share of the
    runs and of the predictions with at least one run of that outcome."""
    if executions.empty:
        return _empty(ERROR_COLUMNS)
    ex = executions.assign(outcome=executions["error_kind"].astype(object).where(executions["error_kind"].notna(), "ok"))
    keys = ["model_name", "inference_mode", "sandbox"]
    runs = ex.groupby([*keys, "outcome"], sort=True).size().rename("n_runs").reset_index()
    preds = ex.drop_duplicates([*keys, "cache_key", "outcome"]).groupby([*keys, "outcome"], sort=True).size() \
        .rename("n_predictions").reset_index()
    out = runs.merge(preds, on=[*keys, "outcome"])
    total_runs = out.groupby(keys)["n_runs"].transform("sum")
    total_preds = out[keys].merge(ex.groupby(keys)["cache_key"].nunique().rename("t").reset_index(), on=keys)["t"]
    out["share_of_runs"] = out["n_runs"] / total_runs
    out["share_of_predictions"] = out["n_predictions"].to_numpy() / total_preds.to_numpy()
    for c in ("n_runs", "n_predictions"):
        out[c] = out[c].astype("int64")
    return out[ERROR_COLUMNS].reset_index(drop=True)


def episode_turns(predictions: pd.DataFrame, multi_turn_modes) -> pd.DataFrame:
    """Per model x multi-turn mode: episodes by the turns they used and whether they ended at a final answer."""
    ep = predictions[predictions["inference_mode"].isin(list(multi_turn_modes))]
    if ep.empty:
        return _empty(TURN_COLUMNS)
    ep = ep.assign(turns_used=ep["turn"].astype("int64") + 1,
                   ended_at_final_answer=np.array([isinstance(r, str) and states_final_answer(r) for r in ep["response"]], bool))
    keys = ["model_name", "inference_mode"]
    out = ep.groupby([*keys, "turns_used", "ended_at_final_answer"], sort=True).size().rename("n_episodes") \
        .reset_index()
    out["share_of_episodes"] = out["n_episodes"] / out.groupby(keys)["n_episodes"].transform("sum")
    out["n_episodes"] = out["n_episodes"].astype("int64")
    out["turns_used"] = out["turns_used"].astype("int64")
    return out[TURN_COLUMNS]
