"""Turns what the evaluation dbt Python models receive into specs and requests (no dbt imports)."""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from generator_py.dbt_inputs import parse_config, seed_var
from generator_py.render.registry import format_names

from .backends.base import PredictionRequest
from .backends.benchmark import BenchmarkLookup
from .image_prompts import IMAGE_FORMAT, with_table_images
from .backends.replay_backend import check_against_benchmark, read_responses
from .model_specs import ModelSpec, parse_eval_models
from .predict import all_requests


@dataclass
class EvalInputs:
    specs: list[ModelSpec]
    requests: list[PredictionRequest]
    benchmark: BenchmarkLookup  # what the oracle and header_match backends answer from


# The columns of the marts that requests are built from (reading only these saves most of the load time).
QUESTION_INPUT_COLUMNS = ("question_id", "table_id", "source", "question", "answer_gt")
VARIANT_COLUMNS = ("variant", "original_question_id")  # read when the mart has them (the obfuscated variant)
TABLE_INPUT_COLUMNS = ("table_id",) + format_names(text_only=True)
IMAGE_INPUT_COLUMNS = ("table_id", "path", "sha256")  # benchmark_table_images, for `formats: [image]`
QUESTION_RENDERING_COLUMNS = tuple(f"rendering_{name}" for name in format_names(text_only=True))


log = logging.getLogger(__name__)


def eval_inputs(questions: pd.DataFrame, tables: pd.DataFrame, eval_models_raw, seed_raw,
                check_replay: bool = False, images=None) -> EvalInputs:
    """Specs and requests; with `check_replay`, every replay file is first tied to these questions.

    `images` (benchmark_table_images rows, or a function giving them) is what `formats: [image]`
    requests point at; it is read only when an entry asks for images, so a build without image
    entries needs no images built."""
    specs = parse_eval_models(parse_config(eval_models_raw))
    if images is not None and any(IMAGE_FORMAT in spec.formats for spec in specs):
        tables = with_table_images(tables, images() if callable(images) else images)
    seed = seed_var(seed_raw)
    if check_replay:
        check_replay_files(specs, questions)
    benchmark = BenchmarkLookup(questions, tables)
    return EvalInputs(specs, all_requests(specs, questions, tables, seed, benchmark), benchmark)


def check_build_inputs(eval_models_raw, judge_model_raw, finetune_split_fractions_raw, release_dir) -> None:
    """Every entry (the judge too) and every file the build will read, checked before any model writes.

    The full reads (each replay file, the release) stay in this process for the models that use them
    (read_responses, load_release keep what they read), so a large file is read once per build.
    """
    from .finetune_splits import parse_fractions
    from .judge import parse_judge_model
    from .real_import import load_release

    specs = parse_eval_models(parse_config(eval_models_raw))
    judge = parse_judge_model(parse_config(judge_model_raw))
    parse_fractions(parse_config(finetune_split_fractions_raw))
    for spec in [*specs, *([judge] if judge else [])]:
        if spec.backend == "replay":
            read_responses(spec.backend_config["path"])
    if release_dir:
        load_release(release_dir, renderings=False)


def check_replay_files(specs: list[ModelSpec], questions: pd.DataFrame) -> None:
    """Fail on a replay file that answers another benchmark; log ids it has beyond this one and repeats."""
    for spec in specs:
        if spec.backend == "replay":
            note = check_against_benchmark(read_responses(spec.backend_config["path"]), questions, spec.name)
            if note:
                log.warning(note)


def eval_inputs_from_relations(questions, tables, eval_models_raw, seed_raw, check_replay: bool = False,
                               images=None) -> EvalInputs:
    """`eval_inputs` from the marts as relations (what `dbt.ref` gives), reading only the columns it uses."""
    present = list(questions.columns)  # a DataFrame or a DuckDB relation
    question_columns = QUESTION_INPUT_COLUMNS + tuple(c for c in VARIANT_COLUMNS if c in present)
    # the questions' own table views (naming families), where the mart has them
    question_columns += tuple(c for c in QUESTION_RENDERING_COLUMNS if c in present)
    # `images`: a function giving the relation (called only for image entries), or the relation itself
    def image_rows():
        return _columns(images() if callable(images) else images, IMAGE_INPUT_COLUMNS)

    return eval_inputs(_columns(questions, question_columns), _columns(tables, TABLE_INPUT_COLUMNS),
                       eval_models_raw, seed_raw, check_replay, image_rows if images is not None else None)


def _columns(relation, columns) -> pd.DataFrame:
    if isinstance(relation, pd.DataFrame):
        return relation[list(columns)]
    return relation.project(", ".join(f'"{c}"' for c in columns)).df()


def store_path(cache_dir_raw) -> Path:
    cache_dir = parse_config(cache_dir_raw) or os.environ.get("HCTQA_CACHE_DIR") or "cache"
    return Path(str(cache_dir)) / "predictions.sqlite"


def sandbox_of_entries(eval_models_raw) -> dict[str, str]:
    """model name -> the sandbox its pot / icot code runs in (the entry's `sandbox:`, default bubblewrap)."""
    return {spec.name: spec.sandbox for spec in parse_eval_models(parse_config(eval_models_raw))}


def table_images_in(relation, folder) -> object:
    """benchmark_table_images rows (table_id, path, sha256) with each path, relative to the exports folder,
    made a path the evaluation can open."""
    prefix = str(folder).rstrip("/") + "/"
    quoted = prefix.replace("'", "''")
    return relation.project(f"table_id, case when starts_with(path, '/') then path else '{quoted}' || path end as path, "
                            "sha256")
