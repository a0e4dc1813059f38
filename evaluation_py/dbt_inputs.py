"""Turns what the evaluation dbt Python models receive into specs and requests (no dbt imports)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from generator_py.dbt_inputs import parse_config

from .backends.base import PredictionRequest
from .model_specs import ModelSpec, parse_eval_models
from .predict import all_requests


@dataclass
class EvalInputs:
    specs: list[ModelSpec]
    requests: list[PredictionRequest]


# The columns of the marts that requests are built from (reading only these saves most of the load time).
QUESTION_INPUT_COLUMNS = ("question_id", "table_id", "source", "question", "answer_gt")
TABLE_INPUT_COLUMNS = ("table_id", "html", "csv", "markdown")


def eval_inputs(questions: pd.DataFrame, tables: pd.DataFrame, eval_models_raw, seed_raw) -> EvalInputs:
    specs = parse_eval_models(parse_config(eval_models_raw))
    seed = int(parse_config(seed_raw) or 0)
    return EvalInputs(specs, all_requests(specs, questions, tables, seed))


def eval_inputs_from_relations(questions, tables, eval_models_raw, seed_raw) -> EvalInputs:
    """`eval_inputs` from the marts as relations (what `dbt.ref` gives), reading only the columns it uses."""
    return eval_inputs(_columns(questions, QUESTION_INPUT_COLUMNS), _columns(tables, TABLE_INPUT_COLUMNS),
                       eval_models_raw, seed_raw)


def _columns(relation, columns) -> pd.DataFrame:
    if isinstance(relation, pd.DataFrame):
        return relation[list(columns)]
    return relation.project(", ".join(f'"{c}"' for c in columns)).df()


def store_path(cache_dir_raw) -> Path:
    cache_dir = parse_config(cache_dir_raw) or os.environ.get("HCTQA_CACHE_DIR") or "cache"
    return Path(str(cache_dir)) / "predictions.sqlite"
