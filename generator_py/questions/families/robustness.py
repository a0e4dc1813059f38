"""TReB's robustness subtask on an HCT: one lookup asked on the table as it is and again on perturbed views of
it: its data rows put in another order within their groups, its columns likewise, its header labels re-cased
and re-spaced, and every header label the question does not name replaced by random letters or by random
digits (TabIS's content variants, kept answerable). Each view is a question of its own with the same text and
the same answer (the value does not move with its headers' order or spelling); scored by exact match, and
`analysis_robustness_consistency` compares a model's answers across the views of one table.

The views are grid changes (generator_py.render.grid_changes) its questions' renderings show. Whether rows
(columns) can be permuted is read from the relational table: two data rows sharing their parent header path;
the grid's groups are those (generator_py.render.grid_changes.permutable_groups). The cross-check reads the
cell from the built relational rows.
"""
from __future__ import annotations

from ...core.formatting import format_number
from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from .computed import ComputedFamily, facts_for, from_sql, value_sql, values_of, where_sql

# the views after the table as it is, in the order they are asked
PERTURBATIONS = ("permute_rows", "permute_columns", "header_noise", "letters", "numbers")
SEED_RANGE = 2 ** 31


def has_sibling_paths(paths) -> bool:
    """Two paths (their labels, NULLs left out) under one parent path: a group whose order can change."""
    parents: dict[tuple, set] = {}
    for p in paths:
        labels = tuple(x for x in p if x is not None)
        if labels:
            parents.setdefault(labels[:-1], set()).add(labels)
    return any(len(v) >= 2 for v in parents.values())


def named_labels(filters) -> list[str]:
    return sorted({str(v) for f in filters for v in f["values"]})


class Robustness(ComputedFamily):
    """One cell's lookup on the table and on up to five perturbed views of it (same text, same answer)."""

    family_id = "robustness"
    treb_skill, treb_subtask = "NLU", "robustness"
    variants = 1 + len(PERTURBATIONS)
    repeats_question = True
    perturbed_views = True
    nl = NLRequirements(29)

    def possible(self, m, kind: str, filters) -> bool:
        if kind == "permute_rows":
            return has_sibling_paths(m.row_paths)
        if kind == "permute_columns":
            return has_sibling_paths(m.col_paths)
        if kind in ("letters", "numbers"):  # some label the question does not name is there to replace
            kept = set(named_labels(filters))
            return any(label not in kept for a in m.row_attrs + m.col_attrs for label in m.order[a])
        return True

    def draw(self, m, rng, variety):
        return self.draw_next(m, rng, variety, [])

    def draw_next(self, m, rng, variety, asked):
        if not asked:
            rp, cp = rng.choice(list(m.cells))
            return {"computation": "lookup", "filters": m.filters_for("row", [rp]) + m.filters_for("col", [cp]),
                    "perturbation": None}, {}
        base = asked[0]
        done = {a["perturbation"]["name"] for a in asked[1:]}
        for name in PERTURBATIONS:
            if name in done or not self.possible(m, name, base["filters"]):
                continue
            change = {"name": name, "seed": rng.randrange(SEED_RANGE)}
            if name in ("letters", "numbers"):
                change.update(kind="content_variant", variant=name, keep=named_labels(base["filters"]))
            else:
                change["kind"] = name
            return {**base, "perturbation": change}, {}
        return None

    def view_name(self, spec):
        return "original" if spec["perturbation"] is None else spec["perturbation"]["name"]

    def exhausted(self, m):
        return True  # a later view is drawn without chance of failing: none left means none possible

    def compute(self, spec, m, extra):
        sel = filtered_rows(m.rows, spec)
        return [[format_number(float(values_of(m.rows, sel)[0]))]] if len(sel) == 1 else None

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [], "grouping": "none"}

    def statement(self, spec, m):
        return f"SELECT {value_sql()} FROM {from_sql()}{where_sql(spec['filters'])}", facts_for(spec["filters"]), 1

    def rendering_change(self, spec, extra):
        change = spec["perturbation"]
        grid_change = None if change is None else {k: v for k, v in change.items() if k != "name"}
        return {"hides_caption": False, "blank_cell": None, "grid_change": grid_change}

    def cross_check(self, spec, table):
        return format_number(table.columns.single(spec["filters"]))


FAMILIES = (Robustness(),)
