"""What the reasoning modes add to a prediction: tcot's reasoning, the runs of pot's program and of
icot's code blocks (which sandbox ran them, how they ended, their output and answer).

pot's program runs here, after the response is cached (when eval_predictions is built), not in
the backend: a run is cached by its inputs (execution.ExecutionCache), and a prediction is linked
to its run (table `execution_links`: the answer's cache key, or an icot episode's turn keys, the
sandbox and the limits -> the run's key), so a rebuild reads both and reads no table. Where the link is missing
(first build, a replayed file, another sandbox) the tables are loaded (`load_tables`, and the questions' own
views of them, `load_views`: a question that hides or changes part of its table has its program read that view)
and the code is run once, in the entry's sandbox.

Columns added to eval_predictions (NULL where they do not apply):

- `reasoning`: the text before the last final-answer marker (tcot, icot), NULL without a marker;
- `sandbox`: bubblewrap or rlimits, for pot and icot predictions whose code ran;
- `code_blocks`: blocks run (pot: 1, the program; icot: every block of the replies that got a follow-up);
- `execution_error_kind`: pot: the program's error kind (syntax, runtime, timeout, memory,
  output_limit, sandbox_violation), NULL when it ran; icot: that of the episode's last block run;
- `execution_output`: the last run block's output (stdout and stderr, capped at execution.OUTPUT_CAP);
- `execution_answer`: the answer pot's program gave (`answer`, else what it printed), NULL when it failed:
  what pot is scored on (a failed run scores 0 in strict mode, and is left out in paper mode).
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Callable, Optional

import pandas as pd

from ..scoring.final_answer import before_final_answer
from .inference_mode import get_mode
from ..running import interrupt
from ..running.progress import Progress
from ..running.store import PredictionStore
from .code_blocks import code_blocks, program_of
from .execution import MODE_LIMITS, TABLE_INPUTS, CodeRunner, ExecutionCache, execution_key, require_sandbox

MODE_COLUMNS = ["reasoning", "sandbox", "code_blocks", "execution_error_kind", "execution_output", "execution_answer"]
EXECUTION_COLUMNS = ["cache_key", "question_id", "model_name", "inference_mode", "turn", "block", "sandbox",
                     "error_kind", "answer", "output"]


def _text(value) -> Optional[str]:
    return value if isinstance(value, str) else None  # None, NaN and pd.NA alike: no response


def reasoning_of(response: Optional[str]) -> Optional[str]:
    response = _text(response)
    return before_final_answer(response) if response else None


def program_inputs(tables: pd.DataFrame, views: Optional[pd.DataFrame]) -> Callable[[str, Optional[str]], dict]:
    """(table_id, question_id) -> the renderings a question's program reads: its own view of its table
    (`views`: benchmark_questions' question_id and rendering_<format> of the questions that have one), else the
    table's (`tables`: benchmark_tables' table_id and renderings)."""
    texts = {t: {c: row[c] for c in TABLE_INPUTS if c in tables.columns}
             for t, row in zip(tables["table_id"], tables.to_dict("records"))}
    own: dict[str, dict] = {}
    if views is not None:
        for q, row in zip(views["question_id"], views.to_dict("records")):
            view = {c: row.get(f"rendering_{c}") for c in TABLE_INPUTS}
            if all(isinstance(v, str) for v in view.values()):
                own[q] = view
    return lambda table_id, question_id=None: own.get(question_id) or texts[table_id]


@interrupt.stoppable
def _runs_of(predictions: pd.DataFrame, table_of: dict, store_path: str | Path,
             load_tables: Callable[[], pd.DataFrame], sandbox_of: dict,
             load_views: Optional[Callable[[], pd.DataFrame]] = None) -> dict[str, tuple[str, list[tuple[int, dict]]]]:
    """cache_key -> (sandbox, [(turn of the reply, block result), ...]) for the pot / icot predictions."""
    coding = predictions[predictions["inference_mode"].map(lambda m: get_mode(m).runs_code)]
    if len(coding) == 0:
        return {}
    icot_keys = coding.loc[coding["inference_mode"].map(lambda m: get_mode(m).multi_turn), "cache_key"].tolist()
    with PredictionStore(store_path) as store:
        episodes = store.episodes(icot_keys) if icot_keys else {}
    todo = []  # (cache_key, sandbox, table_id, question_id, blocks, turns, session, link_key)
    for row in coding.itertuples(index=False):
        sandbox = sandbox_of.get(row.model_name, "bubblewrap")
        if get_mode(row.inference_mode).multi_turn:
            e = episodes.get(row.cache_key)
            if e is None:
                continue
            replies = [m.get("content") or "" for m in e["transcript"] if m["role"] == "assistant"][:-1]
            turns = [t for t, reply in enumerate(replies) for _ in code_blocks(reply)]
            blocks = [b for reply in replies for b in code_blocks(reply)]
            link = json.dumps([row.cache_key, e["turn_keys"], sandbox, MODE_LIMITS.to_dict()])
            session = True
        else:
            blocks, turns, session = [program_of(_text(row.response))], [0], False
            link = json.dumps([row.cache_key, sandbox, MODE_LIMITS.to_dict()])
        if blocks:
            todo.append((row.cache_key, sandbox, table_of[row.cache_key], row.question_id, blocks, turns, session,
                         hashlib.sha256(link.encode("utf-8")).hexdigest()))
    out: dict = {}
    cache = ExecutionCache(store_path)
    try:
        missing = []
        for item in todo:
            results = cache.linked(item[7])
            if results is None:
                missing.append(item)
            else:
                out[item[0]] = (item[1], list(zip(item[5], results)))
        if missing:
            for sandbox in sorted({m[1] for m in missing}):
                require_sandbox(sandbox, f"eval_predictions (pot / icot code of {sandbox!r} entries)")
            inputs = program_inputs(load_tables(), load_views() if load_views is not None else None)
            desc = f"code runs ({', '.join(sorted({m[1] for m in missing}))})"
            bar = Progress(len(missing), desc=desc)
            t0, done = time.monotonic(), 0
            with CodeRunner(store_path, inputs) as runner:
                try:
                    for key, sandbox, table_id, question_id, blocks, turns, session, link_key in missing:
                        results = runner.run(sandbox, table_id, blocks, session=session, question_id=question_id)
                        table = {k: v for k, v in inputs(table_id, question_id).items() if k in TABLE_INPUTS}
                        cache.link(link_key, execution_key(sandbox, table, blocks, session))
                        out[key] = (sandbox, list(zip(turns, results)))
                        done += 1
                        bar.update()
                except interrupt.EvaluationInterrupted:
                    interrupt.count(programs_left=len(missing) - done)
                    raise
                finally:  # the programs of this build: run now, or read from the store
                    bar.close(final=f"{desc}: run {done}, cached {len(todo) - len(missing)}, "
                                    f"elapsed {time.monotonic() - t0:.1f} s")
    finally:
        cache.close()
    return out


def with_mode_columns(predictions: pd.DataFrame, requests: pd.DataFrame, store_path: str | Path,
                      load_tables: Callable[[], pd.DataFrame], sandbox_of: dict,
                      load_views: Optional[Callable[[], pd.DataFrame]] = None) -> pd.DataFrame:
    """`predictions` (eval_predictions rows) with MODE_COLUMNS; `requests` gives each key's table_id; a code run
    not cached yet reads the tables (`load_tables`) and the questions' own views of them (`load_views`)."""
    out = predictions.copy()
    table_of = dict(zip(requests["cache_key"], requests["table_id"]))
    runs = _runs_of(out, table_of, store_path, load_tables, sandbox_of, load_views) if len(out) else {}
    rows = []
    for key, mode_name, response in zip(out["cache_key"], out["inference_mode"], out["response"]):
        mode = get_mode(mode_name)
        reasoning = reasoning_of(response) if mode.extraction == "final_answer" and mode.answer_source == "response" \
            else None
        sandbox, blocks = runs.get(key, (None, []))
        last = blocks[-1][1] if blocks else {}
        rows.append((reasoning, sandbox if blocks else None, len(blocks) if mode.runs_code else None,
                     last.get("error_kind"), last.get("output") if blocks else None,
                     last.get("answer") if mode.answer_source == "execution" and blocks and not last.get("error_kind")
                     else None))
    extra = pd.DataFrame(rows, columns=MODE_COLUMNS, index=out.index)
    extra["code_blocks"] = extra["code_blocks"].astype("Int64")
    for c in MODE_COLUMNS:
        out[c] = extra[c] if c == "code_blocks" else extra[c].astype(object).where(extra[c].notna(), None)
    return out


def executions_table(predictions: pd.DataFrame, requests: pd.DataFrame, store_path: str | Path,
                     load_tables: Callable[[], pd.DataFrame], sandbox_of: dict,
                     load_views: Optional[Callable[[], pd.DataFrame]] = None) -> pd.DataFrame:
    """eval_executions: one row per code block run (pot: its program; icot: each block of the episode)."""
    table_of = dict(zip(requests["cache_key"], requests["table_id"]))
    runs = _runs_of(predictions, table_of, store_path, load_tables, sandbox_of, load_views) if len(predictions) else {}
    who = {k: (q, m, i) for k, q, m, i in zip(predictions["cache_key"], predictions["question_id"],
                                               predictions["model_name"], predictions["inference_mode"])}
    rows = [(key, *who[key], turn, b, sandbox, r.get("error_kind"), r.get("answer"), r.get("output"))
            for key, (sandbox, blocks) in sorted(runs.items()) for b, (turn, r) in enumerate(blocks)]
    out = pd.DataFrame(rows, columns=EXECUTION_COLUMNS)
    for c in ("turn", "block"):
        out[c] = out[c].astype("int64")
    for c in ("error_kind", "answer", "output"):
        out[c] = out[c].astype(object).where(out[c].notna(), None)
    return out


def answers_for_scoring(merged: pd.DataFrame, extracted: pd.Series) -> pd.Series:
    """The answer each request is scored on: extracted from its response, or, for a mode whose answer
    is executed (pot), its `execution_answer` (None when the run failed: scored 0 in strict mode)."""
    if "execution_answer" not in merged.columns:
        return extracted
    executed = merged["inference_mode"].map(lambda m: get_mode(m).answer_source == "execution"
                                            if m in _known_modes() else False).astype(bool)
    return extracted.where(~executed, merged["execution_answer"])


def _known_modes():
    from .inference_mode import mode_names

    return set(mode_names())


def text_columns_typed(frame: pd.DataFrame, columns) -> pd.DataFrame:
    """`frame` with `columns` as pandas strings, so a column with no value yet is VARCHAR in DuckDB, not NULL."""
    return frame.assign(**{c: frame[c].astype("string") for c in columns if c in frame.columns})
