"""Turns what the evaluation dbt Python models receive into specs and requests (no dbt imports)."""
from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pandas as pd

from generator_py.dbt_glue.build_config import database_path, output_dir
from generator_py.dbt_glue.vars import parse_config, seed_var
from generator_py.render.registry import format_names

from ..backends.base import PredictionRequest
from ..backends.benchmark import BenchmarkLookup
from ..prompting.image_prompts import IMAGE_FORMAT, with_table_images
from ..backends.replay_backend import check_against_benchmark, read_responses
from ..configuration.model_specs import DEFAULT_EVAL_MODELS, ModelSpec, parse_eval_models
from ..running.predictions import all_requests
from ..running.requests import requested_rows
from generator_py.dbt_glue.relations import frame


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
ONE_SHOT_KIND_COLUMNS = ("template_id", "family")  # prompting.one_shot.KIND_COLUMNS beyond `source`
# what a request shows or answers from, read only for the questions the requests ask (the rest choose them)
QUESTION_TEXT_COLUMNS = ("question", "answer_gt", "output_instruction") + QUESTION_RENDERING_COLUMNS


log = logging.getLogger(__name__)


def eval_inputs(questions: pd.DataFrame, tables: pd.DataFrame, eval_models_raw, seed_raw,
                check_replay: bool = False, images=None, splits=None) -> EvalInputs:
    """Specs and requests; with `check_replay`, every replay file is first tied to these questions.

    `images` (benchmark_table_images rows, or a function giving them) is what `formats: [image]`
    requests point at; it is read only when an entry asks for images, so a build without image
    entries needs no images built. `splits` (benchmark_finetune_splits rows, or a function giving
    them) likewise, read only when an entry has `splits:`."""
    specs = parse_eval_models(parse_config(eval_models_raw))
    if images is not None and any(IMAGE_FORMAT in spec.formats for spec in specs):
        tables = with_table_images(tables, images() if callable(images) else images)
    questions = with_choosing_columns(specs, questions, tables, splits)
    seed = seed_var(seed_raw)
    if check_replay:
        check_replay_files(specs, questions)
    benchmark = BenchmarkLookup(questions, tables)
    return EvalInputs(specs, all_requests(specs, questions, tables, seed, benchmark), benchmark)


def with_choosing_columns(specs: list[ModelSpec], questions: pd.DataFrame, tables: pd.DataFrame,
                          splits=None) -> pd.DataFrame:
    """`questions` with what entries choose questions by beyond the mart's columns: each one's table's fine-tuning
    split for entries with `splits:`, its table's size for entries with `max_table_cells:`."""
    asking = [spec.name for spec in specs if spec.splits]
    if asking and splits is not None:
        questions = with_finetune_splits(questions, splits, asking[0])
    sizing = [spec.name for spec in specs if spec.max_table_cells is not None]
    if sizing:
        questions = with_table_cells(questions, tables, sizing[0])
    return questions


def with_finetune_splits(questions: pd.DataFrame, splits, entry_name: str) -> pd.DataFrame:
    """`questions` with each one's table's fine-tuning split (column `split`), for entries with `splits:`."""
    from ..running.requests import SPLIT_COLUMN

    try:
        rows = splits() if callable(splits) else splits
    except Exception as e:  # the relation is not built: the finetune tag was left out of the selection
        raise ValueError(f"eval_models entry {entry_name!r}: key `splits` reads benchmark_finetune_splits, which "
                         f"could not be read ({type(e).__name__}); build it too (`--select +tag:finetune`, or "
                         "`--selector full`)") from None
    split_of = dict(zip(rows["table_id"], rows["split"]))
    split = questions["table_id"].map(split_of)
    if split.isna().any():
        raise ValueError(f"eval_models entry {entry_name!r}: key `splits`: table "
                         f"{questions.loc[split.isna(), 'table_id'].iloc[0]!r} has no row in benchmark_finetune_splits; "
                         "rebuild it")
    return questions.assign(**{SPLIT_COLUMN: split.to_numpy()})


def with_table_cells(questions: pd.DataFrame, tables: pd.DataFrame, entry_name: str) -> pd.DataFrame:
    """`questions` with each one's table's size in cells (column `table_cells`), for entries with `max_table_cells:`."""
    from ..running.requests import TABLE_CELLS_COLUMN

    if "n_cells" not in tables.columns:
        raise ValueError(f"eval_models entry {entry_name!r}: key `max_table_cells` reads benchmark_tables.n_cells, "
                         "which the tables given lack")
    cells = questions["table_id"].map(dict(zip(tables["table_id"], tables["n_cells"])))
    if cells.isna().any():
        raise ValueError(f"eval_models entry {entry_name!r}: key `max_table_cells`: table "
                         f"{questions.loc[cells.isna(), 'table_id'].iloc[0]!r} has no row in benchmark_tables")
    return questions.assign(**{TABLE_CELLS_COLUMN: cells.to_numpy()})


def check_build_inputs(eval_models_raw, judge_model_raw, finetune_split_fractions_raw, release_dir) -> None:
    """Every entry (the judge too) and every file the build will read, checked before any model writes.

    The full reads (each replay file, the release) stay in this process for the models that use them
    (read_responses, load_release keep what they read), so a large file is read once per build.
    """
    from ..exports.finetune_splits import parse_fractions
    from ..scoring.judge import parse_judge_model
    from generator_py.release.real_import import load_release

    specs = parse_eval_models(parse_config(eval_models_raw))
    judge = parse_judge_model(parse_config(judge_model_raw))
    parse_fractions(parse_config(finetune_split_fractions_raw))
    for spec in [*specs, *([judge] if judge else [])]:
        if spec.backend == "replay":
            read_responses(spec.backend_config["path"])
    if release_dir:
        load_release(release_dir, renderings=False)


def check_replay_files(specs: list[ModelSpec], questions) -> None:
    """Fail on a replay file that answers another benchmark; log ids it has beyond this one and repeats.
    `questions`: the benchmark's questions, or a function giving them (called only when an entry replays)."""
    for spec in specs:
        if spec.backend == "replay":
            if callable(questions):
                questions = questions()
            note = check_against_benchmark(read_responses(spec.backend_config["path"]), questions, spec.name)
            if note:
                log.warning(note)


def eval_inputs_from_relations(questions, tables, eval_models_raw, seed_raw, check_replay: bool = False,
                               images=None, splits=None) -> EvalInputs:
    """`eval_inputs` from the marts as relations (what `dbt.ref` gives), reading only the columns it uses
    and the texts of only the questions and tables its requests ask (`_build_from_relations`).

    Inside one dbt invocation, eval_prompts, eval_requests and eval_predictions ask for the same requests:
    relations (not frames) with the same arguments get the inputs built by the first of them
    (kept in `_SHARED` for the invocation); a replay file is still checked where `check_replay` asks."""
    key = _invocation_key(questions, tables, eval_models_raw, seed_raw, images, splits)
    if key is None:
        return _build_from_relations(questions, tables, eval_models_raw, seed_raw, images, splits, check_replay)
    with _SHARED_LOCK:
        inputs = _SHARED.get(key)
        if inputs is None:
            inputs = _build_from_relations(questions, tables, eval_models_raw, seed_raw, images, splits)
            _SHARED.clear()  # one invocation's inputs at a time
            _SHARED[key] = inputs
    if check_replay:
        check_replay_files(inputs.specs, _every_question(questions))
    return inputs


_SHARED: dict = {}
_SHARED_LOCK = threading.Lock()  # the evaluation models run in threads of one dbt process


def _invocation_key(questions, tables, eval_models_raw, seed_raw, images, splits):
    """What identifies a build's requests inside one dbt invocation, or None (frames, or no dbt invocation)."""
    if isinstance(questions, pd.DataFrame) or isinstance(tables, pd.DataFrame):
        return None
    try:
        from dbt_common.invocation import get_invocation_id

        invocation = get_invocation_id()
    except Exception:  # noqa: BLE001 - not inside dbt
        return None
    return (invocation, str(questions.sql_query()), str(tables.sql_query()), repr(eval_models_raw), repr(seed_raw),
            images is not None, splits is not None)


def _build_from_relations(questions, tables, eval_models_raw, seed_raw, images=None, splits=None,
                          check_replay: bool = False) -> EvalInputs:
    present = list(questions.columns)  # a DataFrame or a DuckDB relation
    question_columns = QUESTION_INPUT_COLUMNS + tuple(c for c in VARIANT_COLUMNS if c in present)
    # the questions' own table views (naming, robustness, plausibility, outlier) and output instructions, where
    # the mart has them (what the prompts show, what the oracle and header_match read, and what programs read)
    question_columns += tuple(c for c in QUESTION_RENDERING_COLUMNS + ("output_instruction",) if c in present)
    # what a one-shot example is chosen by (its kind: template, family), where the mart has them
    question_columns += tuple(c for c in ONE_SHOT_KIND_COLUMNS if c in present)
    # `images`: a function giving the relation (called only for image entries), or the relation itself
    def image_rows():
        return _columns(images() if callable(images) else images, IMAGE_INPUT_COLUMNS)

    def split_rows():
        return _columns(splits() if callable(splits) else splits, ("table_id", "split"))

    # the tables' size, where the mart has it (what an entry's `max_table_cells` picks questions by)
    sizes = ("n_cells",) if "n_cells" in list(tables.columns) else ()
    specs = parse_eval_models(parse_config(eval_models_raw))
    # Which rows the requests read is decided on the columns that choose them; the texts are then read for those
    # rows only: a few thousand requests read a few thousand tables, where every question's text and every
    # table's renderings are about 3 GB at 10x scale.
    choosing = with_choosing_columns(
        specs, _columns(questions, [c for c in question_columns if c not in QUESTION_TEXT_COLUMNS]),
        _columns(tables, ("table_id",) + sizes), split_rows if splits is not None else None)
    question_ids, table_ids = requested_rows(specs, choosing, seed_var(seed_raw))
    n_questions, n_tables = len(choosing), choosing["table_id"].nunique()
    del choosing
    question_rows = _columns(_rows_with(questions, "question_id", question_ids, n_questions), question_columns)
    inputs = eval_inputs(question_rows, _columns(_rows_with(tables, "table_id", table_ids, n_tables),
                                                 TABLE_INPUT_COLUMNS + sizes),
                         eval_models_raw, seed_raw, False, image_rows if images is not None else None,
                         split_rows if splits is not None else None)

    if check_replay:
        check_replay_files(specs, _every_question(questions))
    return inputs


def _every_question(questions) -> Callable[[], pd.DataFrame]:
    """What a replay file is checked against: the whole benchmark's questions, read when an entry replays."""
    return lambda: _columns(questions, ("question_id", "question", "answer_gt"))


def own_views(dbt) -> Optional[pd.DataFrame]:
    """The questions' own views of their tables (question_id and rendering_<format> of the benchmark_questions
    rows that have one), which a pot / icot program of such a question reads; None when the mart has none."""
    questions = dbt.ref("benchmark_questions")
    columns = [c for c in QUESTION_RENDERING_COLUMNS if c in questions.columns]
    if not columns:
        return None
    present = " or ".join(f'"{c}" is not null' for c in columns)
    return frame(questions.filter(present).project(", ".join(["question_id", *(f'"{c}"' for c in columns)])))


def _rows_with(relation, column: str, values: set[str], n_rows: int):
    """The rows of `relation` (a DuckDB relation or a frame, `n_rows` values of `column`) whose `column` is one of
    `values`; the whole relation when they are most of it (a filter by a list that long costs more than it saves)."""
    if isinstance(relation, pd.DataFrame):
        return relation[relation[column].isin(values)]
    if 2 * len(values) > n_rows:
        return relation
    if not values:
        return relation.filter("false")
    listed = ", ".join("'" + str(v).replace("'", "''") + "'" for v in sorted(values))
    return relation.filter(f'"{column}" in ({listed})')


def _columns(relation, columns) -> pd.DataFrame:
    if isinstance(relation, pd.DataFrame):
        return relation[list(columns)]
    return frame(relation.project(", ".join(f'"{c}"' for c in columns)))


def store_path(cache_dir_raw, database: Optional[Path] = None) -> Path:
    """The prediction store: var eval_cache_dir, else HCTQA_CACHE_DIR, else beside the database file
    (`hctqa.duckdb` -> `cache/`, `NAME.duckdb` -> `NAME_cache/`), else `cache/` of the working directory."""
    cache_dir = parse_config(cache_dir_raw) or os.environ.get("HCTQA_CACHE_DIR")
    if not cache_dir:
        cache_dir = output_dir(None, database, "cache") if database is not None else "cache"
    return Path(str(cache_dir)) / "predictions.sqlite"


SCOPES = ("accumulate", "this_build")


def scope_var(raw) -> str:
    """var eval_scope: `accumulate` (default: the marts show every model evaluated on this benchmark so
    far) or `this_build` (only the entries of this build, without the baselines added)."""
    value = parse_config(raw) or "accumulate"
    if value not in SCOPES:
        raise ValueError(f"var eval_scope must be one of {', '.join(SCOPES)}, got {value!r}")
    return value


def remove_var(raw) -> list[str]:
    """var eval_remove_models: model names whose results leave this benchmark's marts."""
    value = parse_config(raw)
    if value is None:
        return []
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"var eval_remove_models must be a model name or a list of them, got {value!r}")
    return value


def eval_entries(eval_models_raw, scope_raw):
    """The entries a build evaluates: var eval_models (default: the baselines); in the accumulate scope
    the baselines (oracle, header_match) are added when an entry list names neither of them, so the
    chain check is in every build."""
    raw = parse_config(eval_models_raw)
    if raw is None or scope_var(scope_raw) == "this_build" or not isinstance(raw, list):
        return raw
    names = {e.get("name") for e in raw if isinstance(e, dict)}
    return list(raw) + [dict(b) for b in DEFAULT_EVAL_MODELS if b["name"] not in names]


def sandbox_of_entries(eval_models_raw) -> dict[str, str]:
    """model name -> the sandbox its pot / icot code runs in (the entry's `sandbox:`, default bubblewrap)."""
    return {spec.name: spec.sandbox for spec in parse_eval_models(parse_config(eval_models_raw))}


def entry_metadata(eval_models_raw, scope_raw=None) -> pd.DataFrame:
    """One row per entry the build evaluates (the baselines added as eval_entries adds them): model_name, what
    the entry says about its model (configuration.model_metadata), NULL where it says nothing, and its `shots`."""
    from ..configuration.model_metadata import METADATA_KEYS

    specs = parse_eval_models(eval_entries(eval_models_raw, scope_raw))
    out = pd.DataFrame({"model_name": [s.name for s in specs],
                        **{k: [s.metadata.get(k) for s in specs] for k in METADATA_KEYS},
                        "shots": pd.array([s.shots for s in specs], dtype="int64")})
    out["params_b"] = pd.to_numeric(out["params_b"], errors="raise").astype("float64")
    return out.astype({k: "object" for k in METADATA_KEYS if k != "params_b"})


def scores_of_models(relation, models, columns="*") -> pd.DataFrame:
    """eval_scores rows (a relation) of the named models only: no read at all when there are none (the
    analyses of entry metadata cost nothing in a build whose entries say nothing)."""
    names = sorted({str(m) for m in models})
    if not names:
        return frame(relation.limit(0).project(columns))
    quoted = ", ".join("'" + n.replace("'", "''") + "'" for n in names)
    return frame(relation.filter(f"model_name in ({quoted})").project(columns))


def table_images_in(relation, folder) -> object:
    """benchmark_table_images rows (table_id, path, sha256) with each path, relative to the exports folder,
    made a path the evaluation can open."""
    prefix = str(folder).rstrip("/") + "/"
    quoted = prefix.replace("'", "''")
    return relation.project(f"table_id, case when starts_with(path, '/') then path else '{quoted}' || path end as path, "
                            "sha256")
def build_requests_with_results(this_build: pd.DataFrame, eval_models_raw, scope_raw, remove_raw,
                                fingerprint: str, store_file: Path) -> pd.DataFrame:
    """eval_requests: this build's request rows, and in the accumulate scope every other request of a
    model evaluated on this fingerprint that the store has answered (each model's latest entry).

    This build's requests are recorded first (so the next build sees them), after the models of
    var eval_remove_models are taken out."""
    from ..running.predictions import answered_request_keys
    from ..running.results import ResultsIndex
    from ..configuration.redaction import redact_entry
    from ..running.runs import current_run_id, entries_json, git_commit, package_versions

    scope = scope_var(scope_raw)
    remove = remove_var(remove_raw)
    raw = parse_config(eval_models_raw)
    specs = parse_eval_models(raw)
    entries = {e["name"]: redact_entry(e) for e in (raw or DEFAULT_EVAL_MODELS)}
    run_id = current_run_id()
    with ResultsIndex(store_file) as index:
        if remove:
            removed = index.remove_models(fingerprint, remove)
            log.info("eval_remove_models: %s", ", ".join(f"{k} ({n} requests)" for k, n in removed.items()))
        index.start_run(run_id, fingerprint, entries_json(list(entries.values())), package_versions(),
                        git_commit(Path.cwd()))
        index.record_requests(fingerprint, specs, entries, this_build, run_id)
        recorded = index.requests(fingerprint) if scope == "accumulate" else pd.DataFrame()
    mine = this_build.assign(this_build=True)
    if len(recorded) == 0:
        return mine
    past = recorded[~recorded["cache_key"].isin(set(this_build["cache_key"]))]
    past = past[past["cache_key"].isin(answered_request_keys(past, store_file))]
    if len(past) == 0:
        return mine
    past = past[list(this_build.columns)].astype({c: this_build[c].dtype for c in this_build.columns
                                                   if str(this_build[c].dtype) != "object"})
    out = pd.concat([mine, past.assign(this_build=False)], ignore_index=True).drop_duplicates("cache_key")
    return out.sort_values(["model_name", "cache_key"], kind="stable").reset_index(drop=True)
