"""The requests of a model's two-option items: each chosen item in both option orders, one request each.

A request's `question_id` is the request id `<item_id>--<order>` (a replay file answers by it), its
`kind` is `choose`, its inference mode `choice` (registered here: one turn, asked only through the
entry key `choice_items`, never through `modes`) and its table format `csv`. Backends reading the
benchmark read it from a `ChoiceLookup`: the oracle's ground truth of a request is the right letter
in its order, so it answers every item right (a check of the chain); header_match gets no table from
it and so abstains (`no answer`): matching headers cannot choose between two options.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Optional

import pandas as pd

from generator_py.rng import stable_int

from ..backends.base import PredictionRequest, backend_class, make_cache_key
from ..backends.params import resolve_params
from ..extraction import register_filter
from ..inference_modes import InferenceMode, register_mode
from .letters import letter_from_text
from ..model_specs import ModelSpec
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


class ChoiceLookup:
    """The benchmark as backends reading it see a choice request (`BenchmarkLookup`'s interface)."""

    FIELDS = ("question_id", "question", "answer_gt", "table_html")

    def __init__(self, right_letter: dict[str, str], question: dict[str, str]):
        self._right, self._question = right_letter, question

    def _known(self, rid: str, into: dict) -> str:
        if rid not in into:
            raise KeyError(f"choice lookup: request {rid!r} is not a choice request of this build")
        return into[rid]

    def answer_gt(self, rid: str) -> str:
        """The right letter of the request's order."""
        return self._known(rid, self._right)

    def question(self, rid: str) -> str:
        return self._known(rid, self._question)

    def table_html(self, table_id: str) -> str:
        return ""  # header_match abstains on choice items (see the module doc)

    def fields(self, rid: str, table_id: str, names: Iterable[str]) -> dict:
        out = {}
        for name in names:
            if name == "question_id":
                out[name] = rid
            elif name == "question":
                out[name] = self.question(rid)
            elif name == "answer_gt":
                out[name] = self.answer_gt(rid)
            elif name == "table_html":
                out[name] = self.table_html(table_id)
            else:
                raise ValueError(f"choice lookup: unknown field {name!r}; known: {', '.join(self.FIELDS)}")
        return out


def _check_items(items: pd.DataFrame) -> None:
    missing = [c for c in ITEM_COLUMNS if c not in items.columns]
    if missing:
        raise ValueError(f"benchmark_choice_items lacks column(s) {', '.join(missing)} the choice requests need")
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
        self.pools: dict[tuple[str, str, str], list[tuple[str, frozenset]]] = {}
        if "option_form" not in items.columns:
            items = items.assign(option_form="answer")
        # the example shows options of the item's own form (answers or statements)
        for (subset, variant, form), group in items.groupby(["subset", "content_variant", "option_form"], sort=True):
            ids = group["item_id"].tolist()
            tables = [frozenset(t for t in ts if isinstance(t, str))
                      for ts in zip(group["table_id"], group["other_table_id"])]
            pool = sorted(zip(ids, tables), key=lambda p: (stable_int(seed, "choice-example-pool", p[0]), p[0]))
            self.pools[(subset, variant, form)] = pool

    def pick(self, item_id: str, subset: str, variant: str, tables: frozenset, form: str = "answer") -> Optional[str]:
        pool = self.pools.get((subset, variant, form), [])
        if not pool:
            return None
        start = stable_int(self.seed, "choice-example", item_id) % len(pool)
        for k in range(len(pool)):
            cand, cand_tables = pool[(start + k) % len(pool)]
            if not (cand_tables & tables):
                return cand
        return None  # every item of the subset shares a table with this one: zero-shot


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
                          seed: int) -> tuple[list[ChoiceRequest], ChoiceLookup]:
    """Every choice request of the models with `choice_items`, and the lookup their backends read."""
    _check_items(items)
    specs = [s for s in specs if s.choice_items is not None]
    if not specs or len(items) == 0:
        return [], ChoiceLookup({}, {})
    shown = shown_items(items, tables)
    picker = ExamplePicker(items, seed)
    meta = {r.item_id: r for r in items.itertuples(index=False)}
    right, question = {}, {}
    out: list[ChoiceRequest] = []
    for spec in specs:
        chosen = select_items(spec, items, seed)
        params = choice_params(spec)
        reads = backend_class(spec.backend).benchmark_fields
        for item_id in chosen["item_id"].tolist():
            r = meta[item_id]
            item = shown[item_id]
            tables_of = frozenset(t for t in (r.table_id, r.other_table_id) if isinstance(t, str))
            example_id = picker.pick(item_id, r.subset, r.content_variant, tables_of,
                                     getattr(r, "option_form", "answer"))
            example = shown[example_id] if example_id is not None else None
            for order in ORDERS:
                rid = request_id(item_id, order)
                letter = options_in_order(item, order)[2]
                right[rid], question[rid] = letter, item.question
                messages = build_choice_messages(item, order, example, system_role=spec.system_role)
                read = ChoiceLookup({rid: letter}, {rid: item.question}).fields(rid, r.table_id, reads)
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
    return out, ChoiceLookup(right, question)
