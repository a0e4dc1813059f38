"""Question families and their registry.

A question family is one kind of question (the 15 SQL templates of the paper's Table III are 15
families): it draws a query spec on a table, says which drawn instances are valid, describes them
(metadata, release properties) and names the NL phrasings it needs. Generation walks the registered
families in order of their NL template id (`nl.template_id`), so a new family is one module of this package
holding a `FAMILIES` tuple of QuestionFamily instances (families/__init__.py imports every module) plus its
phrasings in seeds/nl_templates.csv, and the families before it keep their random draws. A family declares
what callers branch on: `suite`, `kind`, `answer_type` and, for a kind other than "sql", its `cross_check`.

Question ids: `{table_id}--{family_id}` for a family's first question on a table (variant 0), then
`{table_id}--{family_id}-{variant}` for variants 1, 2, ... (a family with `variants` > 1 asks several
questions per table). Family ids are lower-case words (`q01`, `row_count`), never holding '-'.
"""
from __future__ import annotations

import inspect
import random
import re
from typing import Any, Iterable, Optional

from ...core.registry import Registry, RegistryError
from ..properties import question_properties
from ..template_syntax import RESERVED, NLRequirements
from ..table_model import TableModel
from ..treb_skills import check_declaration

_FAMILY_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def question_id(table_id: str, family_id: str, variant: int) -> str:
    return f"{table_id}--{family_id}" if variant == 0 else f"{table_id}--{family_id}-{variant}"


class QuestionFamily:
    """Base of a question family: set the class attributes, implement `draw` (and `valid` where some draws
    must be redrawn), register an instance.

    `template_id`: the Table III template the family instantiates (1..15), None for other families;
    `nl`: the NL template_id of its phrasings in seeds/nl_templates.csv and the reserved words they need
    and may use; `kind`: how the answer is defined ("sql": the spec's query evaluated on the table; "computed", "statistical",
    "naming": the family's own computation, families/computed.py);
    `variants`: how many questions of the family one table may get; `aggregate_in_table`: its aggregate
    is displayed in the HCT (a release property); `suite`: the benchmark the family belongs to ("hctqa":
    Table III, "treb": TReB's skills, families/computed.py); `answer_type`: "values" (compared as values)
    or "text" (scored by text metrics) or "refusal" (the table cannot answer: families/unanswerable.py) or
    "boolean" (yes / no, true / false) or "labels" (one answer row of labels: a header path, a category); `treb_skill` and `treb_subtask`: the TReB skill and subtask its
    questions measure (questions/treb_skills.py spells them; None for a family outside TReB's map), and
    `treb_metric`: the registered metric that subtask is reported by (analysis_scores_by_treb_skill);
    `single_answer`: a TReB family's answers are one value each (data test assert_treb_questions_consistent).
    `n_tables`: how many tables one of its questions reads (2: the question's table and the partner
    the build pairs it with, questions/table_pairs.py; `QuestionInstance.tables` lists them);
    `olap_operation`: the OLAP operation its questions ask ("roll-up", "drill-down", "grouping sets"),
    None for others (analysis_scores_by_olap_operation).
    """

    family_id: str = ""
    template_id: Optional[int] = None
    nl: NLRequirements
    kind: str = "sql"
    variants: int = 1
    aggregate_in_table: bool = False
    suite: str = "hctqa"
    answer_type: str = "values"
    reads_header_cells: bool = False  # its draws read the table's header cells (the generation model loads them)
    treb_skill: Optional[str] = None
    treb_subtask: Optional[str] = None
    treb_metric: str = "exact_match"  # values compared exactly (TReB's exact-match accuracy); text: rouge_l
    single_answer: bool = True  # a TReB family's answer is one value (else a list, a header path, ...)
    n_tables: int = 1
    olap_operation: Optional[str] = None
    table_roles: tuple[str, ...] = ("answer",)  # per table read: "answer" (its values make the answer) or
    # "condition" (it only decides a condition)

    @property
    def layout_invariant(self) -> bool:
        """Whether a question of the family keeps its text, SQL and answer on any layout of its table's data: its
        answer is its SQL over T_REL and its draw reads no header cell (the layout counterfactuals ask these)."""
        return self.kind == "sql" and not self.reads_header_cells

    @property
    def description(self) -> str:
        """One line for listings: the Table III template, if any, and the class's first docstring line."""
        doc = (inspect.getdoc(type(self)) or "").strip()
        line = doc.splitlines()[0] if doc else self.family_id
        return f"Table III SQL{self.template_id}: {line}" if self.template_id is not None else line

    def applicable(self, m: TableModel) -> bool:
        """Whether the table can have this family's questions at all (checked before any draw)."""
        return True

    def draw(self, m: TableModel, rng: random.Random, variety: str) -> Optional[tuple[dict, dict]]:
        """One random instance: (spec, extra) or None when this draw found nothing to ask. `extra` may hold
        `choices` and `label` (a two-option item) and whatever `valid` needs to see."""
        raise NotImplementedError

    def exhausted(self, m: TableModel) -> bool:
        """After a draw returned None: whether no later draw can succeed on this table (stop trying)."""
        return False

    def valid(self, spec: dict, answer: list, sel: list[tuple], m: TableModel, extra: dict) -> bool:
        """Whether a drawn instance is kept; `answer` is non-empty and NULL-free already, `sel` the rows its
        WHERE clause keeps."""
        return True

    def metadata(self, spec: dict, m: TableModel) -> dict[str, Any]:
        """The METADATA_COLUMNS of one question."""
        return sql_metadata(self, spec, m)

    def properties(self, spec: dict, md: dict, m: TableModel, n_retained: int) -> dict[str, Any]:
        """The 36 release question properties of one question."""
        return question_properties(spec, md, m, n_retained)

    def table_conditions(self, spec: dict) -> list[list[dict]]:
        """The conditions ({attribute, values}) the question puts on each table it reads, in table order:
        a one-table family's every filter (sub-query and both selections of a computed family included)."""
        found = list(spec.get("filters") or [])
        if spec.get("semi_join"):
            found += spec["semi_join"].get("filters") or []
        for key in ("first", "second"):
            found += spec.get(key) or []
        return [found]

    def cross_check(self, spec: dict, table) -> str:
        """A family whose answer is not its spec's SQL (`kind` other than "sql") recomputes it here, by other
        means than `draw` used: numpy on `table` (a `generator_py.answers.computed_cross_check.CheckedTable`, read
        from the built relational rows and grid), printed as the ground truth prints it."""
        raise NotImplementedError(f"question family {self.family_id!r} (kind {self.kind!r}) has no cross_check")


def sql_metadata(family: QuestionFamily, spec: dict, m: TableModel) -> dict[str, Any]:
    """Metadata read from a SQL spec: conditions per axis, projections, aggregates, grouping, order, top-k."""
    row_set, col_set = set(m.row_attrs), set(m.col_attrs)
    all_filters = list(spec["filters"]) + (list(spec["semi_join"]["filters"]) if spec.get("semi_join") else [])
    aggs = [s["function"] for s in spec["select"] if s["kind"] == "aggregate"]
    value_order = [o for o in spec.get("order_by") or [] if o["kind"] == "value"]
    return {
        "template_id": family.template_id,
        "n_row_conditions": sum(1 for f in all_filters if f["attribute"] in row_set),
        "n_col_conditions": sum(1 for f in all_filters if f["attribute"] in col_set),
        "projected_attributes": [s["name"] for s in spec["select"] if s["kind"] == "attribute"],
        "aggregations": aggs,
        "aggregate_in_table": family.aggregate_in_table,
        "grouping": "local" if spec.get("group_by") else ("global" if aggs else "none"),
        "ordering": value_order[0]["direction"] if value_order else "none",
        "top_k": spec.get("limit"),
        "value_condition": bool(spec.get("value_condition") or spec.get("semi_join")),
    }


METADATA_COLUMNS = ("template_id", "n_row_conditions", "n_col_conditions", "projected_attributes", "aggregations",
                    "aggregate_in_table", "grouping", "ordering", "top_k", "value_condition")


def _checked(fid: str, family: QuestionFamily) -> QuestionFamily:
    """A family as the registry stores it: registered under its own family_id, its NL requirements sound."""
    name = type(family).__name__
    if not isinstance(family, QuestionFamily):
        raise ValueError(f"question family {fid!r}: expected a QuestionFamily instance, got {name}")
    if not _FAMILY_ID.match(fid):
        raise ValueError(f"question family {name}: family_id must be a lower-case word "
                         f"([a-z][a-z0-9_]*, no '-'), got {fid!r}")
    if family.family_id != fid:
        raise ValueError(f"question family {name}: registered as {fid!r} but its family_id is {family.family_id!r}")
    nl = getattr(family, "nl", None)
    if not isinstance(nl, NLRequirements):
        raise ValueError(f"question family {fid!r}: `nl` must be an NLRequirements, got {nl!r}")
    if not isinstance(nl.template_id, int) or nl.template_id < 1:
        raise ValueError(f"question family {fid!r}: nl.template_id must be a positive int "
                         f"(0 is the report sentence), got {nl.template_id!r}")
    unknown = sorted((set(nl.allowed) | {w for g in nl.required for w in g}) - set(RESERVED))
    if unknown:
        raise ValueError(f"question family {fid!r}: unknown reserved words {unknown} in its NL requirements")
    unallowed = sorted({w for g in nl.required for w in g} - set(nl.allowed))
    if unallowed:
        raise ValueError(f"question family {fid!r}: required reserved words {unallowed} are not allowed")
    if not isinstance(family.variants, int) or family.variants < 1:
        raise ValueError(f"question family {fid!r}: variants must be an int >= 1, got {family.variants!r}")
    if not isinstance(family.suite, str) or not _FAMILY_ID.match(family.suite):
        raise ValueError(f"question family {fid!r}: suite must be a lower-case word, got {family.suite!r}")
    if family.treb_skill is not None or family.treb_subtask is not None:
        check_declaration(f"question family {fid!r}", family.treb_skill, family.treb_subtask)
    if family.n_tables not in (1, 2) or len(family.table_roles) != family.n_tables:
        raise ValueError(f"question family {fid!r}: n_tables must be 1 or 2 with one table role each, got "
                         f"{family.n_tables!r} and {family.table_roles!r}")
    if not set(family.table_roles) <= {"answer", "condition"} or "answer" not in family.table_roles:
        raise ValueError(f"question family {fid!r}: table_roles must be 'answer' or 'condition', at least one "
                         f"'answer', got {family.table_roles!r}")
    if not isinstance(family.treb_metric, str) or not family.treb_metric.isidentifier():
        raise ValueError(f"question family {fid!r}: treb_metric must name a metric, got {family.treb_metric!r}")
    return family


class FamilyRegistry(Registry[QuestionFamily]):
    """Question families by id, in registration order (the order generation draws them in)."""

    def __init__(self, families: Iterable[QuestionFamily] = (), *, entry_point_group: Optional[str] = None):
        super().__init__("question family", entry_point_group=entry_point_group, prepare=_checked)
        for f in families:
            self.register(f)

    def register(self, family, item=None, *, description=None, origin=None) -> QuestionFamily:
        """`register(family)`: under its family_id (the plugin loader passes the entry point's name first)."""
        if item is None:
            family, item = getattr(family, "family_id", ""), family
        if not isinstance(family, str) or not family:
            raise RegistryError(f"question family {type(item).__name__}: family_id must be a lower-case word "
                                f"([a-z][a-z0-9_]*, no '-'), got {family!r}")
        origin = type(item).__module__ if origin is None else origin
        return super().register(family, item, description=description, origin=origin)

    def subset(self, keep) -> "FamilyRegistry":
        """The families `keep(family)` selects, in this registry's order, with their origins."""
        out = FamilyRegistry()
        for e in self.listing():
            f = self.get(e.name)
            if keep(f):
                out.register(f, description=e.description, origin=e.origin)
        return out

    def copy(self) -> "FamilyRegistry":
        return self.subset(lambda f: True)

    def ids(self) -> tuple[str, ...]:
        return self.names()
