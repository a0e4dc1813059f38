"""Test data: relational tables sampled straight from the vocabulary seeds, for tests and benchmarks of
question generation (the real tables come from the table generator; this is a small stand-in with the same
shape: cross product of row and column header paths, NULL-padded unbalanced hierarchies, unique values).

Tests get it through the conftest fixtures `seed_frames` and `toy_tables`; bench/bench_questions.py
imports it directly."""
from __future__ import annotations

import itertools
import random
from pathlib import Path

import pandas as pd

from generator_py.tables.relational import RelationalTable, ShownAggregate, TableAttribute

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def load_seed_frames(seeds: Path = SEEDS) -> dict[str, pd.DataFrame]:
    names = ["domain_attributes", "domain_values", "table_templates", "nl_templates", "nl_table_meanings"]
    return {n: pd.read_csv(seeds / f"{n}.csv", dtype=str, keep_default_na=False) for n in names}


def _label_index(frames: dict) -> dict:
    """(domain, code, level, parent or None) -> labels in position order."""
    idx: dict[tuple, list] = {}
    v = frames["domain_values"].copy()
    v["_pos"] = v["position"].astype(int)
    for r in v.sort_values("_pos").itertuples(index=False):
        lvl = int(r.level)
        parent = r.parent_label or None if lvl > 1 else None
        idx.setdefault((r.domain, r.code, lvl, parent), []).append(r.label)
    return idx


def _code_paths(index, domain, code, rng, levels):
    """Paths (tuples of labels, one per level, None-padded) of one code."""
    def children(level, parent):
        return index.get((domain, code, level, parent), [])

    def pick(labels):
        if len(labels) <= 1:
            return labels
        k = min(len(labels), rng.randint(2, 3))
        start = rng.randint(0, len(labels) - k)
        return labels[start:start + k]

    paths = [()]
    for level in range(1, levels + 1):
        nxt = []
        for p in paths:
            parent = p[-1] if p else None
            if level > 1 and parent is None:
                nxt.append(p + (None,))
                continue
            kids = pick(children(level, parent))
            nxt.extend(p + (k,) for k in kids) if kids else nxt.append(p + (None,))
        paths = nxt
    return paths


class ToyTables:
    """Toy tables of the seed frames (`frames`, load_seed_frames); the label index is built once."""

    def __init__(self, frames: dict):
        self.frames = frames
        self._index = _label_index(frames)

    def domains(self) -> list[tuple[str, str]]:
        """(domain, template_name) of every table template."""
        return list(self.frames["table_templates"][["domain", "template_name"]].itertuples(index=False, name=None))

    def table(self, domain: str, index: int, seed: int = 0, max_codes: int = 2) -> RelationalTable:
        return _toy_table(self.frames, self._index, domain, index, seed, max_codes)


def _toy_table(frames: dict, label_index: dict, domain: str, index: int, seed: int, max_codes: int) -> RelationalTable:
    rng = random.Random(f"{seed}|{domain}|{index}")
    attrs_df = frames["domain_attributes"]
    tpl = frames["table_templates"][frames["table_templates"]["domain"] == domain].iloc[0]
    attributes, axis_paths = [], {}
    for axis, key in (("row", "row_codes"), ("col", "col_codes")):
        codes = tpl[key].split(";")
        rng.shuffle(codes)
        codes = codes[:rng.randint(1, max_codes)]
        per_code = []
        depth = 1
        for code in codes:
            a = attrs_df[(attrs_df["domain"] == domain) & (attrs_df["code"] == code)]
            a = a.sort_values("level", key=lambda s: s.astype(int))
            levels = len(a)
            for _, r in a.iterrows():
                attributes.append(TableAttribute(r["attribute_name"], code, int(r["level"]), axis, depth))
                depth += 1
            per_code.append(_code_paths(label_index, domain, code, rng, levels))
        axis_paths[axis] = [sum(combo, ()) for combo in itertools.product(*per_code)]
    integer = rng.random() < 0.7
    n = len(axis_paths["row"]) * len(axis_paths["col"])
    if integer:
        values = [float(v) for v in rng.sample(range(10, 10 + 20 * n), n)]
    else:
        values = [v / 100 for v in rng.sample(range(50, 50 + 2000 * n), n)]
    names = [a.name for a in attributes]
    recs = [rp + cp + (values[i],) for i, (rp, cp) in enumerate(itertools.product(axis_paths["row"], axis_paths["col"]))]
    frame = pd.DataFrame(recs, columns=names + ["Value"])
    frame = frame.astype({c: object for c in names})
    frame[names] = frame[names].where(frame[names].notna(), None)
    agg_fun = tpl["agg_fun1"]
    shown = []
    if rng.random() < 0.6:
        fn = {"sum": "sum", "avg": "mean", "min": "min", "max": "max"}[agg_fun]
        first = names[0]
        for label in frame[first].drop_duplicates():
            shown.append(ShownAggregate((label,), (), float(round(getattr(frame.loc[frame[first] == label, "Value"], fn)(), 2))))
        shown.append(ShownAggregate((), (), float(round(getattr(frame["Value"], fn)(), 2))))
    return RelationalTable(
        table_id=f"syn--{domain}--{tpl['template_name']}--v{index:04d}--r1", domain=domain,
        template_name=tpl["template_name"], value_name=tpl["value_name"], attributes=tuple(attributes),
        frame=frame, value_is_integer=integer, agg_fun=agg_fun, agg_name=tpl["agg_name1"],
        shown_aggregates=tuple(shown))
