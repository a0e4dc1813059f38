"""The requests of a model's two-option items: each chosen item in both option orders, one request each.

A request's `question_id` is the request id `<item_id>--<order>` (a replay file answers by it), its
`kind` is `choose`, its inference mode `choice` (registered here: one turn, asked only through the
entry key `choice_items`, never through `modes`) and its table format `csv`. Backends reading the
benchmark read it from `choice_lookup` (a `BenchmarkLookup` over the requests): the oracle's ground
truth of a request is the right letter in its order, so it answers every item right (a check of the
chain); header_match gets no table from it and so abstains (`no answer`): matching headers cannot choose between two options.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import pandas as pd

from generator_py.core.rng import stable_int, stable_ints

from ..backends.base import PredictionRequest, backend_class, make_cache_key
from ..backends.benchmark import BenchmarkLookup
from ..backends.params import resolve_params
from ..scoring.extraction import register_filter
from ..modes.inference_mode import InferenceMode, register_mode
from .letters import letter_from_text
from ..configuration.model_specs import ModelSpec
from .prompt import CHOICE_PROMPT_VERSION, ORDERS, ShownItem, build_choice_messages, options_in_order

CHOICE_MODE_NAME = "choice"
TABLE_FORMAT = "csv"
# Columns of benchmark_choice_items the requests are built from.
ITEM_COLUMNS = ("item_id", "subset", "table_id", "other_table_id", "other_table_position", "question", "option_a",
                "option_b", "correct_option", "content_variant", "table_csv")


def _refuse(*_args, **_kwargs):
    raise ValueError(f"inference mode {CHOICE_MODE_NAME!r} is asked through the eval_models entry key "
                     "`choice_items`, not through `modes`")


def _choice_letter(response: str) -> str:
    """The extraction filter of the `choice` mode: the letter read from the text ("" for an abstention)."""
    return letter_from_text(response) or ""


register_filter("choice_letter", _choice_letter)
CHOICE_MODE = register_mode(InferenceMode(name=CHOICE_MODE_NAME, prompt_version=CHOICE_PROMPT_VERSION,
                                          build_messages=_refuse, extraction="choice_letter", kind="choose",
                                          description="two-option items: the letter of the chosen option"))


def request_id(item_id: str, order: str) -> str:
    return f"{item_id}--{order}"


@dataclass(frozen=True)
class ChoiceRequest:
    """A request and what scoring needs to know of it."""

    request: PredictionRequest
    item_id: str
    order: str
    right_letter: str  # the right option's letter in this order
    example_item_id: Optional[str]
    logprobs_requested: bool


def choice_lookup(right_letter: dict[str, str], question: dict[str, str]) -> BenchmarkLookup:
    """The benchmark as backends reading it see choice requests: request id -> the right letter of its order
    (`answer_gt`) and the item's question; no tables, so header_match abstains (see the module doc)."""
    return BenchmarkLookup.of_maps(question, right_letter, name="choice lookup", what="request",
                                   missing="not a choice request of this build")


# Columns that choose a model's items and their worked examples (read for every item); the others of
# ITEM_COLUMNS (the question, options, the table variant's CSV) are read for the items asked only.
SELECTION_COLUMNS = ("item_id", "subset", "table_id", "other_table_id", "content_variant")


def _check_items(items: pd.DataFrame, columns=ITEM_COLUMNS) -> None:
    missing = [c for c in columns if c not in items.columns]
    if missing:
        raise ValueError(f"benchmark_choice_items lacks column(s) {', '.join(missing)} the choice requests need")
    if "correct_option" not in items.columns:
        return
    bad = items[~items["correct_option"].isin(["A", "B"])]
    if len(bad):
        raise ValueError(f"benchmark_choice_items item {bad['item_id'].iloc[0]!r}: correct_option "
                         f"{bad['correct_option'].iloc[0]!r} must be A or B")


def select_items(spec: ModelSpec, items: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The model's items: its subsets, then per subset a seeded sample stable across runs and models.

    The order is drawn on the item id without its subset (the source question; a probe's table and
    variant), so the subsets of one sample share their questions and tables: the robustness gap pairs
    b_tis and m_tis items of the same question.
    """
    cs = spec.choice_items
    chosen = items[items["subset"].isin(cs.subsets)]
    if cs.sample is not None:
        order = chosen["item_id"].map(lambda i: stable_int(seed, "choice-sample", str(i).split("--", 1)[-1]))
        chosen = (chosen.assign(_order=order).sort_values(["subset", "_order"]).groupby("subset", sort=False)
                  .head(cs.sample).drop(columns="_order"))
    return chosen.sort_values("item_id")


class ExamplePicker:
    """The worked example of an item: an item of the same subset and content variant on other tables,
    picked by seed and item (not by the sample or the model), so every model sees the same example."""

    def __init__(self, items: pd.DataFrame, seed: int):
        self.seed = seed
        # per (subset, content variant, option form): (item_id, table_id, other_table_id) in a seeded order
        self.pools: dict[tuple[str, str, str], list[tuple[str, object, object]]] = {}
        if "option_form" not in items.columns:
            items = items.assign(option_form="answer")
        # the example shows options of the item's own form (answers or statements)
        for (subset, variant, form), group in items.groupby(["subset", "content_variant", "option_form"], sort=True):
            ids = group["item_id"].tolist()
            keys = stable_ints((seed, "choice-example-pool"), ids)
            order = sorted(range(len(ids)), key=lambda k: (keys[k], ids[k]))
            own, other = group["table_id"].tolist(), group["other_table_id"].tolist()
            self.pools[(subset, variant, form)] = [(ids[k], own[k], other[k]) for k in order]

    def pick(self, item_id: str, subset: str, variant: str, tables: frozenset, form: str = "answer") -> Optional[str]:
        pool = self.pools.get((subset, variant, form), [])
        if not pool:
            return None
        start = stable_int(self.seed, "choice-example", item_id) % len(pool)
        for k in range(len(pool)):
            cand, own, other = pool[(start + k) % len(pool)]
            if not (_shows(own, tables) or _shows(other, tables)):
                return cand
        return None  # every item of the subset shares a table with this one: zero-shot


def _shows(table_id, tables: frozenset) -> bool:
    return isinstance(table_id, str) and table_id in tables


def shown_items(items: pd.DataFrame, tables: pd.DataFrame) -> dict[str, ShownItem]:
    csv_of = dict(zip(tables["table_id"], tables["csv"]))

    def csv(table_id: str, variant_csv) -> str:
        if isinstance(variant_csv, str):  # the letters / numbers variant of the table
            return variant_csv
        if table_id not in csv_of:
            raise ValueError(f"benchmark_choice_items: table {table_id!r} is not in benchmark_tables")
        return csv_of[table_id]

    out = {}
    for r in items.itertuples(index=False):
        own = csv(r.table_id, r.table_csv)
        if isinstance(r.other_table_id, str):
            other = csv(r.other_table_id, None)
            shown = (other, own) if r.other_table_position == "before" else (own, other)
        else:
            shown = (own,)
        out[r.item_id] = ShownItem(r.item_id, shown, r.question, r.option_a, r.option_b, r.correct_option)
    return out


def choice_params(spec: ModelSpec) -> dict:
    """The decoding parameters of the model's choice requests (what is sent, so in the cache key)."""
    cs = spec.choice_items
    if not backend_class(spec.backend).speaks_openai:  # its params are no decoding parameters
        return dict(spec.params)
    extra = {"max_tokens": cs.max_tokens}
    if cs.logprobs:
        extra.update(logprobs=True, top_logprobs=cs.top_logprobs)
    return resolve_params({**spec.params, **extra})


def choice_spec(spec: ModelSpec) -> ModelSpec:
    """The spec its backend is started with for choice requests: the choice params in its config (a
    llama.cpp server keeps the logits only when its config asks for log-probabilities)."""
    return replace(spec, backend_config={**spec.backend_config, "params": choice_params(spec)})


def build_choice_requests(specs: list[ModelSpec], items: pd.DataFrame, tables: pd.DataFrame,
                          seed: int, details=None) -> tuple[list[ChoiceRequest], BenchmarkLookup]:
    """Every choice request of the models with `choice_items`, and the lookup their backends read.

    `items` holds every item with at least SELECTION_COLUMNS (the samples and the worked examples are
    drawn over all of them); `details(item_ids)` gives the ITEM_COLUMNS rows of those items (default: from
    `items`), asked for the chosen items and their examples only. `tables`: a frame of table_id, csv, or a
    function giving that frame for the table ids it is called with (those the asked items show).
    """
    _check_items(items, SELECTION_COLUMNS if details is not None else ITEM_COLUMNS)
    specs = [s for s in specs if s.choice_items is not None]
    if not specs or len(items) == 0:
        return [], choice_lookup({}, {})
    picker = ExamplePicker(items, seed)
    selected = [(spec, select_items(spec, items, seed)["item_id"].tolist()) for spec in specs]
    asked = {i for _, ids in selected for i in ids}
    meta = {r.item_id: r for r in items[items["item_id"].isin(asked)].itertuples(index=False)}  # the sampled only
    plan = []  # (spec, [(item_id, example_id)])
    for spec, ids in selected:
        chosen = []
        for item_id in ids:
            r = meta[item_id]
            tables_of = frozenset(t for t in (r.table_id, r.other_table_id) if isinstance(t, str))
            chosen.append((item_id, picker.pick(item_id, r.subset, r.content_variant, tables_of,
                                                getattr(r, "option_form", "answer"))))
        plan.append((spec, chosen))
    needed = sorted({i for _, chosen in plan for pair in chosen for i in pair if i is not None})
    if details is None:
        shown_rows = items[items["item_id"].isin(needed)]
    else:
        shown_rows = details(needed)
        _check_items(shown_rows)
    if callable(tables):
        tables = tables(sorted({t for c in ("table_id", "other_table_id") for t in shown_rows[c].tolist()
                                if isinstance(t, str)}))
    shown = shown_items(shown_rows, tables)
    right, question = {}, {}
    out: list[ChoiceRequest] = []
    for spec, chosen in plan:
        params = choice_params(spec)
        reads = backend_class(spec.backend).benchmark_fields
        for item_id, example_id in chosen:
            r = meta[item_id]
            item = shown[item_id]
            example = shown[example_id] if example_id is not None else None
            for order in ORDERS:
                rid = request_id(item_id, order)
                letter = options_in_order(item, order)[2]
                right[rid], question[rid] = letter, item.question
                messages = build_choice_messages(item, order, example, system_role=spec.system_role)
                read = choice_lookup({rid: letter}, {rid: item.question}).fields(rid, r.table_id, reads)
                identity = {"entry": spec.identity, "request": read}
                key = make_cache_key(spec.name, spec.backend, spec.model, params, messages, identity,
                                     CHOICE_PROMPT_VERSION, kind="choose", inference_mode=CHOICE_MODE_NAME)
                req = PredictionRequest(
                    cache_key=key, question_id=rid, table_id=r.table_id, model_name=spec.name,
                    backend=spec.backend, model=spec.model, table_format=TABLE_FORMAT, messages=messages,
                    params=params, kind="choose", inference_mode=CHOICE_MODE_NAME, turn=0, parent_key=None,
                    prompt_version=CHOICE_PROMPT_VERSION)
                out.append(ChoiceRequest(req, item_id, order, letter, example_id,
                                         bool(params.get("logprobs"))))
    return out, choice_lookup(right, question)
