"""Prediction requests for one model: which questions, which table rendering, which mode, which messages.

`build_requests` makes every episode's first turn; `next_turn` the turn that follows a reply in a
multi-turn mode. Requests carry no benchmark content: what a backend reads from the benchmark
(`Backend.benchmark_fields`) only enters their cache keys, read through a `BenchmarkLookup`.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Optional

import pandas as pd

from ..backends.base import PredictionRequest, backend_class, make_cache_key
from ..backends.benchmark import BenchmarkLookup
from ..backends.params import resolve_params
from ..prompting.image_prompts import IMAGE_FORMAT, IMAGE_PROMPT_VERSION, build_image_messages, table_images
from ..modes.inference_mode import get_mode
from ..configuration.model_specs import ModelSpec
from generator_py.render.question_grid import TABLE_HEADINGS
from generator_py.render.registry import format_names

RENDERING_COLUMN = {name: name for name in format_names(text_only=True)}  # a column of benchmark_tables each
# a column of benchmark_questions each: the question's own table view, NULL when it shows its table's
QUESTION_RENDERING_COLUMN = {name: f"rendering_{name}" for name in format_names(text_only=True)}


SPLIT_COLUMN = "split"  # a question's table's fine-tuning split, where an entry asks for `splits`
TABLE_CELLS_COLUMN = "table_cells"  # a question's table's n_cells, where an entry has `max_table_cells`


def select_questions(spec: ModelSpec, questions: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The model's questions: its sources, families and fine-tuning splits, then a seeded sample (of the whole,
    or per family) stable across runs and scales.

    The sample order depends on the seed and the question only (not on the model), so models with the
    same `sources` and `sample` answer the same questions and a smaller sample is part of a larger one:
    their scores compare on equal terms.
    """
    q = questions
    # the sample is drawn from the originals; `variants` then picks the originals and/or their twins
    has_variants = "variant" in q.columns
    if has_variants:
        q = q[q["variant"] == "original"]
    if spec.sources:
        q = q[q["source"].isin(spec.sources)]
    if spec.families:
        if "family" not in q.columns:
            raise ValueError(f"eval_models entry {spec.name!r}: key `families` needs each question's family "
                             "(benchmark_questions.family), which was not given")
        q = q[q["family"].isin(spec.families)]
    if spec.max_table_cells is not None:
        if TABLE_CELLS_COLUMN not in q.columns:
            raise ValueError(f"eval_models entry {spec.name!r}: key `max_table_cells` needs each question's table size "
                             "(benchmark_tables.n_cells), which was not given")
        q = q[q[TABLE_CELLS_COLUMN] <= spec.max_table_cells]
    if spec.splits:
        if SPLIT_COLUMN not in q.columns:
            raise ValueError(f"eval_models entry {spec.name!r}: key `splits` needs each table's fine-tuning split "
                             "(benchmark_finetune_splits), which was not given")
        q = q[q[SPLIT_COLUMN].isin(spec.splits)]
    if spec.sample is not None and len(q) > spec.sample:
        q = q.assign(_order=_sample_order(q, seed)).sort_values(["_order", "question_id"]).head(spec.sample) \
            .drop(columns="_order")
    if spec.sample_per_family is not None:  # the same seeded order, cut per family (real questions: one group)
        family = q["family"].astype(object).where(q["family"].notna(), "") if "family" in q.columns else ""
        q = (q.assign(_order=_sample_order(q, seed), _family=family).sort_values(["_order", "question_id"])
             .groupby("_family", sort=False).head(spec.sample_per_family).drop(columns=["_order", "_family"]))
    if has_variants and spec.variants != ("original",):
        keep = questions["original_question_id"].isin(set(q["question_id"])) & questions["variant"].isin(spec.variants)
        if "counterfactual" in spec.variants:
            # the counterfactual sets are a sample of their own: every toggle of every set with its questions, and
            # those questions on the set's base (an original, the reference layout of its toggles)
            toggled = questions["variant"] == "counterfactual"
            keep |= toggled | questions["question_id"].isin(set(questions.loc[toggled, "original_question_id"]))
        q = questions[keep]
    # originals first: a variant's prompt that is its original's (a toggle of the rules in a format that shows
    # none) then leaves the original its request (requests are one per prompt)
    return q.assign(_variant=q["variant"] != "original" if has_variants else False).sort_values(
        ["_variant", "table_id", "question_id"]).drop(columns="_variant")


def requested_rows(specs: list[ModelSpec], questions: pd.DataFrame, seed: int) -> tuple[set[str], set[str]]:
    """(question ids, table ids) that the requests of `specs` read from `questions`: each entry's chosen
    questions (with their twins) and, for an entry with `shots: 1`, the questions an example can be
    (prompting.one_shot.example_candidates). `questions` needs only the columns that choose (no texts), and
    `build_requests` over the questions and tables cut to these ids makes the requests it makes over all."""
    ids: set[str] = set()
    tables: set[str] = set()
    for spec in specs:
        chosen = select_questions(spec, questions, seed)
        ids.update(chosen["question_id"].tolist())
        tables.update(chosen["table_id"].tolist())
    if any(spec.shots == 1 for spec in specs):
        from ..prompting.one_shot import example_candidates

        candidates = example_candidates(questions, seed)
        ids.update(candidates)
        tables.update(candidates.values())
    return ids, tables


def _sample_order(q: pd.DataFrame, seed: int) -> list[int]:
    """Each question's place in the seeded sample order. The questions of one table asked on its perturbed views
    (a `perturbed_views` family: one question, several views) share their group's place, so a sample holds a
    group whole (but at its cut), which their consistency needs (analysis_robustness_consistency)."""
    ids = q["question_id"].tolist()
    if "family" in q.columns:
        grouped = _perturbed_view_families()
        ids = [f"{t}--{f}" if f in grouped else qid
               for qid, t, f in zip(ids, q["table_id"].tolist(), q["family"].tolist())]
    return _sample_keys(seed, ids)


@lru_cache(maxsize=1)
def _perturbed_view_families() -> frozenset:
    from generator_py.questions.families import ALL_FAMILIES

    return frozenset(n for n in ALL_FAMILIES.names() if getattr(ALL_FAMILIES.get(n), "perturbed_views", False))


def _sample_keys(seed: int, keys: list[str]) -> list[int]:
    """`stable_int(seed, "eval-sample", key)` of each key; remembered, since every entry (and the three evaluation
    models) draws the same questions' keys."""
    from generator_py.core.rng import stable_ints

    known = _SAMPLE_KEYS.setdefault(seed, {})
    missing = [k for k in dict.fromkeys(keys) if k not in known]
    if missing:
        known.update(zip(missing, stable_ints((seed, "eval-sample"), missing)))
    return [known[k] for k in keys]


_SAMPLE_KEYS: dict[int, dict[str, int]] = {}


def build_requests(spec: ModelSpec, questions: pd.DataFrame, tables: pd.DataFrame, seed: int,
                   benchmark: Optional[BenchmarkLookup] = None) -> list[PredictionRequest]:
    """First turns of the model's episodes: per inference mode, table format and chosen question.

    `benchmark` (default: one over `questions` and `tables`) is what the cache keys of backends that
    read the benchmark are computed from. A question with a `rendering_<format>` text (benchmark_questions:
    a naming family hides part of its table, outlier detection moves a value) shows it instead of its table's
    rendering, and a code mode's structure and program are of that view.
    """
    chosen = select_questions(spec, questions, seed)
    params = resolve_params(spec.params) if backend_class(spec.backend).speaks_openai else dict(spec.params)
    reads = backend_class(spec.backend).benchmark_fields
    if reads and benchmark is None:
        benchmark = BenchmarkLookup(questions, tables)
    # Plain dicts: a DataFrame lookup per request (`.at`) costs more than rendering the prompt.
    rows = list(zip(chosen["question_id"].tolist(), chosen["table_id"].tolist(), chosen["question"].tolist()))
    read_of = {(q, t): benchmark.fields(q, t, reads) for q, t, _ in rows} if reads else {}
    # A question with its own view of its table (a hidden or changed part) is not asked on the image, which is
    # drawn from the whole table; a code mode's program reads the view (modes.execution), so it is asked there.
    hiding = _questions_with_own_view(chosen)
    several = _questions_reading_several_tables(chosen)
    example_of, example_text = {}, {}
    if spec.shots == 1:  # one worked example before each question (prompting.one_shot)
        from ..backends.oracle_backend import gt_to_answer
        from ..prompting.one_shot import one_shot_examples

        pool = questions.set_index("question_id", drop=False)
        example_of = {q: (pool.at[e, "question"], gt_to_answer(pool.at[e, "answer_gt"]), e)
                      for q, e in one_shot_examples(chosen, questions, seed).items()}
        examples = pool.loc[sorted({e for _, _, e in example_of.values()})]
        example_text = {f: dict(zip(examples["question_id"], question_table_texts(examples, tables, f)))
                        for f in spec.formats if f != IMAGE_FORMAT}
    out = []
    for mode_name in spec.modes:
        mode = get_mode(mode_name)
        for table_format in spec.formats:
            structure = False
            if table_format == IMAGE_FORMAT:  # the stored PNG, by reference (evaluation_py.prompting.image_prompts)
                image_of = table_images(tables, {t for _, t, _ in rows}, spec.name)
                prompt_version = IMAGE_PROMPT_VERSION
            else:
                text_of = dict(zip(chosen["question_id"].tolist(), question_table_texts(chosen, tables, table_format)))
                structure = mode.shows_structure and spec.table_in_prompt == "structure"
                if structure:
                    structure_of = _structures(tables, table_format, chosen)
                prompt_version = mode.structure_prompt_version if structure else mode.prompt_version
            for question_id, table_id, question in rows:
                if question_id in hiding and table_format == IMAGE_FORMAT:
                    continue
                # a program reads one table (`df`, `csv`, ...); a question over two tables is not asked in a
                # mode that runs code
                if question_id in several and mode.runs_code:
                    continue
                if table_format == IMAGE_FORMAT:
                    messages = build_image_messages(image_of[table_id], question, system_role=spec.system_role)
                elif structure:
                    messages = mode.build_structure_messages(structure_of(table_id, question_id), table_format,
                                                             question, system_role=spec.system_role)
                elif question_id in example_of:
                    messages = _one_shot_messages(text_of[question_id], table_format, question, spec.system_role,
                                                  example_of[question_id], example_text[table_format])
                else:
                    messages = mode.build_messages(text_of[question_id], table_format, question,
                                                   system_role=spec.system_role)
                identity = {"entry": spec.identity, "request": read_of.get((question_id, table_id), {})}
                if mode.multi_turn and mode.runs_code:
                    # Its follow-ups come from the sandbox and its length from the entry: both shape the episode.
                    identity["episode"] = {"sandbox": spec.sandbox, "max_turns": turn_limit(spec, mode)}
                key = make_cache_key(spec.name, spec.backend, spec.model, params, messages, identity,
                                     prompt_version, kind=mode.kind, inference_mode=mode.name)
                out.append(PredictionRequest(
                    cache_key=key, question_id=question_id, table_id=table_id, model_name=spec.name,
                    backend=spec.backend, model=spec.model, table_format=table_format, messages=messages,
                    params=params, kind=mode.kind, inference_mode=mode.name, turn=0, parent_key=None,
                    prompt_version=prompt_version))
    return out


def _one_shot_messages(table_text: str, table_format: str, question: str, system_role: bool, example: tuple,
                       example_texts: dict) -> tuple[dict, ...]:
    from ..prompting.one_shot import with_example
    from ..prompting.prompts import build_messages

    example_question, example_answer, example_id = example
    shown = build_messages(example_texts[example_id], table_format, example_question, system_role=system_role)
    asked = build_messages(table_text, table_format, question)
    return with_example(asked, shown, example_answer)


def question_table_texts(questions: pd.DataFrame, tables: pd.DataFrame, table_format: str) -> list:
    """Each question's table text in `table_format` as its prompt shows it: the question's own view
    (`rendering_<format>`, a naming family hiding its answer) where it has one, else its table's rendering.
    None where the table has no such rendering (or is not in `tables`)."""
    text_of = dict(zip(tables["table_id"].tolist(), tables[RENDERING_COLUMN[table_format]].tolist()))
    own_column = QUESTION_RENDERING_COLUMN[table_format]
    own = questions[own_column].tolist() if own_column in questions.columns else [None] * len(questions)
    return [o if isinstance(o, str) and o else text_of.get(t) for o, t in zip(own, questions["table_id"].tolist())]


def _structures(tables: pd.DataFrame, table_format: str, questions: pd.DataFrame):
    """(table_id, question_id) -> the structure text a code mode's prompt shows instead of the table: of the
    question's own view where it has one (a blanked header is then not listed), else of its table (made on first
    use)."""
    from generator_py.render.registry import get_format
    from ..prompting.table_structure import describe_structure

    rows = tables.drop_duplicates("table_id").set_index("table_id")
    own = {}
    if all(c in questions.columns for c in ("rendering_html", "rendering_csv")):
        own = {q: (h, c) for q, h, c in zip(questions["question_id"], questions["rendering_html"],
                                            questions["rendering_csv"]) if isinstance(h, str) and isinstance(c, str)}
    name = get_format(table_format).display_name
    made: dict[str, str] = {}

    def structure_of(table_id: str, question_id: Optional[str] = None) -> str:
        key = question_id if question_id in own else table_id
        if key not in made:
            html, csv = own[key] if key in own else (rows.at[table_id, "html"], rows.at[table_id, "csv"])
            made[key] = describe_structure(html, csv, table_format, name)
        return made[key]

    return structure_of


def _questions_with_own_view(questions: pd.DataFrame) -> set[str]:
    own = [c for c in QUESTION_RENDERING_COLUMN.values() if c in questions.columns]
    if not own:
        return set()
    hides = questions[own].map(lambda t: isinstance(t, str)).any(axis=1)
    return set(questions.loc[hides, "question_id"].tolist())


def _questions_reading_several_tables(questions: pd.DataFrame) -> set[str]:
    """The questions whose own view shows several tables, each under its heading (question_grid.tables_view)."""
    column = QUESTION_RENDERING_COLUMN.get("csv")
    if column not in questions.columns:
        return set()
    first = TABLE_HEADINGS[0] + "\n"
    return {q for q, t in zip(questions["question_id"].tolist(), questions[column].tolist())
            if isinstance(t, str) and t.startswith(first)}


def turn_limit(spec: ModelSpec, mode) -> int:
    """The most turns an episode of `mode` has for this entry: its `max_turns`, else the mode's."""
    return spec.max_turns if (spec.max_turns is not None and mode.multi_turn) else mode.max_turns


def next_turn(request: PredictionRequest, reply: str, user_message: str) -> PredictionRequest:
    """The turn after `request` was answered `reply`: its messages plus that reply and `user_message`.

    Its key covers the whole conversation so far and chains to the previous turn's key (which covers
    the entry and what the backend read from the benchmark).
    """
    messages = tuple(request.messages) + ({"role": "assistant", "content": reply},
                                          {"role": "user", "content": user_message})
    key = make_cache_key(request.model_name, request.backend, request.model, request.params, messages, None,
                         request.prompt_version, kind=request.kind, inference_mode=request.inference_mode,
                         parent_key=request.cache_key)
    return replace(request, cache_key=key, messages=messages, turn=request.turn + 1, parent_key=request.cache_key)


# The request fields eval_requests shows (predict.requests_table adds the prompt id and params).
REQUEST_COLUMNS = ["cache_key", "question_id", "table_id", "model_name", "backend", "model", "table_format",
                   "inference_mode", "kind", "turn", "parent_key", "prompt_version"]
