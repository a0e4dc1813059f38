"""The base of families whose answer is not a spec's SQL query but a computation the family states itself
(TReB's computation and naming skills): the family computes the exact answer from the relational table,
writes the SQL text (DuckDB) that states it where there is one, and hands the NL rendering its conditions.

Such a family sets `kind` ("computed": stated by SQL text; "statistical": a statistical test or criterion
computed with scipy, no SQL text; "naming"), `suite` ("treb") and `answer_type` ("values": one number, compared
as a value; "text": free text scored by text metrics; "boolean": yes / no or true / false; "labels": one answer
row of one or more labels, such as a header path or a category), and implements `compute` and `statement`.
A multi-step family (`multi_step`) implements `solve` instead: its answer and the steps that led to it, in
order (`Step`: the operation and its intermediate result), kept as `steps_json`.
A family may show its question a changed copy of the table (`rendering_change`: a hidden caption, a blanked
header cell, or a change of the grid, `grid_change`: generator_py.render.grid_changes).
The generator keeps its answer as the ground truth (`py_answer_json`); `generator_py.answers.computed_cross_check`
recomputes every such answer (and every step) independently with pandas/numpy (scipy for a test statistic) from
the relational rows.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple, Optional, Sequence

from ...core.formatting import format_number
from ..query_facts import QueryFacts, Scope
from ..spec import TABLE_NAME, VALUE, Rows, conditions_sql, filtered_rows, identifier
from ..table_model import TableModel
from .registry import QuestionFamily

# answers of these families, as the gt prints them: format_number (two decimals, ties half up)
ROUNDING_MARGIN = 1e-4  # an exact value this close (in units of 0.01) to a .xx5 tie is not asked


class Step(NamedTuple):
    """One step of a multi-step question: what it does, and its result (canonical text, or lists of it)."""

    operation: str
    result: Any

    def as_json(self) -> dict:
        return {"operation": self.operation, "result": self.result}


class Solution(NamedTuple):
    """A question's answer rows and, for a multi-step family, the steps computing it (None otherwise)."""

    answer: list[list[str]]
    steps: Optional[list[Step]] = None


NO_CHANGE = {"hides_caption": False, "blank_cell": None, "grid_change": None}


class ComputedFamily(QuestionFamily):
    """A family answered by its own computation (see the module docstring)."""

    kind = "computed"
    suite = "treb"
    answer_type = "values"
    # its questions on one table are one question asked on several views of the table (rendering_change's
    # grid_change): the later ones repeat the first one's text (generate._computed_questions)
    repeats_question = False
    # its questions on one table are the same question, with the same answer, on perturbed views of the table:
    # a model's answers across them should agree (analysis_robustness_consistency, by `view_name`)
    perturbed_views = False
    multi_step = False  # its questions carry their steps (solve), and the cross-check recomputes each

    def draw_next(self, m: TableModel, rng, variety: str, asked: list[dict]) -> Optional[tuple[dict, dict]]:
        """A draw knowing the specs of the family's questions on this table so far (`asked`); by default an
        independent `draw`. A family whose later questions follow its first (robustness) overrides it."""
        return self.draw(m, rng, variety)

    def view_name(self, spec: dict) -> str:
        """Which view of its table a question of a `perturbed_views` family is asked on ("original" or the
        perturbation's name)."""
        return "original"

    def compute(self, spec: dict, m: TableModel, extra: dict) -> Optional[list[list[str]]]:
        """The exact answer rows (canonical text), or None when this draw cannot be asked."""
        raise NotImplementedError

    def solve(self, spec: dict, m: TableModel, extra: dict) -> Optional[Solution]:
        """The answer and, for a multi-step family, its steps; None when this draw cannot be asked."""
        answer = self.compute(spec, m, extra)
        return Solution(answer) if answer else None

    def statement(self, spec: dict, m: TableModel) -> tuple[Optional[str], QueryFacts, int]:
        """(SQL text or None, the facts the NL rendering reads, relational rows the question reads)."""
        raise NotImplementedError

    def cross_check_steps(self, spec: dict, table) -> list:
        """A multi-step family recomputes the result of every step here, independently of `solve` (pandas on
        `table`, like `cross_check`), in the order and the canonical text `solve` stores them."""
        raise NotImplementedError(f"question family {self.family_id!r} is not multi-step")

    def finish_question(self, text: str, spec: dict) -> str:
        """The rendered question as asked (a family may add a sentence its phrasings cannot hold)."""
        return text

    def question_text(self, template, nl, spec: dict, facts: QueryFacts) -> str:
        """The question from its phrasing: the phrasing filled from `facts`, then `finish_question`. A family
        whose question joins several filled phrasings (one per part it names) renders them here."""
        from ..rendering import render_question

        return self.finish_question(render_question(template, facts, nl), spec)

    def rendering_change(self, spec: dict, extra: dict) -> dict[str, Any]:
        """How the question's view of its table differs from the table's own rendering: {"hides_caption": bool,
        "blank_cell": (row, col) | None, "grid_change": a change of generator_py.render.grid_changes | None}
        (NO_CHANGE: none)."""
        return dict(NO_CHANGE)

    def metadata(self, spec, m):
        filters = [f for sel in selections(spec) for f in sel]
        row_set, col_set = set(m.row_attrs), set(m.col_attrs)
        return {"template_id": None,
                "n_row_conditions": sum(1 for f in filters if f["attribute"] in row_set),
                "n_col_conditions": sum(1 for f in filters if f["attribute"] in col_set),
                "projected_attributes": [], "aggregations": [spec["computation"]] if self.kind == "computed" else [],
                "aggregate_in_table": False, "grouping": "global" if self.kind == "computed" else "none",
                "ordering": "none", "top_k": None, "value_condition": False}

    def properties(self, spec, md, m, n_retained):
        # the release reading of a question that aggregates its selections' values (one output column)
        pseudo = {"filters": [f for sel in selections(spec) for f in sel],
                  "select": [{"kind": "aggregate", "function": c} for c in md["aggregations"]] or [{"kind": "value"}]}
        return super().properties(pseudo, md, m, n_retained)


def selections(spec: dict) -> list[list[dict]]:
    """The filter lists of a computed spec, in the order the question names them (a compound statement's
    `facts`, each a first and a second selection, after them)."""
    return [spec[k] for k in ("filters", "first", "second") if k in spec] + \
        [fact[k] for fact in spec.get("facts", ()) for k in ("first", "second")]


def scope_of(filters: Sequence[dict]) -> Scope:
    """The NL conditions of one selection (labels as the SQL literals print them)."""
    sc = Scope()
    for f in filters:
        vals = [str(v) for v in f["values"]]
        sc.conditions[f["attribute"]] = vals
        sc.literals.extend(vals)
    return sc


def facts_for(first: Sequence[dict], second: Optional[Sequence[dict]] = None,
              aggregates: Sequence[str] = ()) -> QueryFacts:
    """Facts of a question on one selection, or two (the second read by the tokens from $NESTED on)."""
    outer = scope_of(first)
    if second is not None:
        outer.sub = scope_of(second)
        outer.literals.extend(outer.sub.literals)
    return QueryFacts(outer, [], False, list(aggregates), [], None, None)


def where_sql(filters: Sequence[dict]) -> str:
    """` WHERE ...` of one selection (DuckDB), empty without conditions."""
    conditions = conditions_sql(filters, None)
    return " WHERE " + " AND ".join(conditions) if conditions else ""


def value_sql() -> str:
    return identifier(VALUE)


def from_sql() -> str:
    return TABLE_NAME


def values_of(rows: Rows, sel: list[tuple]) -> list[Fraction]:
    vi = rows.index[VALUE]
    return [Fraction(r[vi]) for r in sel]


def robust(x: float | Fraction) -> bool:
    """Whether the answer's two-decimal text cannot flip between two correct float computations."""
    frac = abs(float(x) * 100) % 1
    return abs(frac - 0.5) > ROUNDING_MARGIN


def answer_text(x: float | Fraction) -> Optional[list[list[str]]]:
    return [[format_number(float(x))]] if robust(x) else None



def value_groups(m: TableModel) -> list[tuple[list[dict], int]]:
    """(filters, number of cells) of the selections a statistic of "these values" reads: each column and each
    row of the table, and every cell of one label of an attribute (a group); one filter list per distinct set
    of cells, in that order, computed once per table."""
    cached = getattr(m, "_value_groups", None)
    if cached is not None:
        return cached
    found: dict[tuple, tuple[list[dict], int]] = {}
    candidates = [m.filters_for("col", [cp]) for cp in m.col_paths] + [m.filters_for("row", [rp]) for rp in m.row_paths]
    candidates += [[{"attribute": a, "values": [label]}] for a in m.row_attrs + m.col_attrs
                   if a in m.complete and len(m.order[a]) >= 2 for label in m.order[a]]
    for filters in candidates:
        cells = filtered_rows(m.rows, {"filters": filters})
        found.setdefault(tuple(sorted(id(r) for r in cells)), (filters, len(cells)))
    m._value_groups = list(found.values())
    return m._value_groups
