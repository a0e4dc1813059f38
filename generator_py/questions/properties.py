"""The 36 question properties of the HCT-QA release, computed for a synthetic question from its spec.

Mapping (one computable reading; the release annotates real questions by hand):

* Row Filter: the SQL has a WHERE clause. Condition Type Lookup: it has equality / IN conditions on
  attributes; Condition Type Expression: it compares Value with a number (templates 14, 15).
  Involved Columns Single / Multiple: one / several distinct attributes (Value counts for a value
  condition) in the conditions, sub-query included. Max Depth Of Involved Columns: the largest header
  depth (1 = outermost) of a conditioned attribute (null without attribute conditions). Retained Rows
  Single / Multiple: the WHERE clause keeps one / several relational rows. Num Of Conditions: atomic
  conditions (one per attribute filter, one per value comparison, one for the nested IN).
* Returned Columns: always true. Project On Plain: an attribute or Value is projected; Project On
  Expression: an aggregate is projected. Expression In Table Present: template 5 (the aggregate is shown
  in the HCT); Not Present: any other aggregate projection. Max Depth Of Involved Columns: largest header
  depth of a projected attribute (null when none). Num Of Output Columns: number of projections.
* Yes/No (and scopes): false (no template asks a yes/no question).
* Aggregation: an aggregate is projected; On Plain: true then (aggregates are over Value); On Expression:
  false; Type Min/Max/Sum/Avg: that function is used; Count: false; Grouping Local: GROUP BY; Global:
  aggregate without GROUP BY; In Table Present: template 5; Not Present: other aggregates (4, 7, 8-11);
  Num Of Aggregations: number of aggregate projections (null without aggregation).
* Rank: ORDER BY Value (templates 12, 13); Rank On Plain: true then; On Expression: false; Report Top:
  the LIMIT k (null without LIMIT).
"""
from __future__ import annotations

from typing import Any

# the release's names and their column names live in the one release-format module
from ..release.properties import QUESTION_PROPERTIES, QUESTION_PROPERTY_COLUMNS, release_name_to_column  # noqa: F401

_COLUMN = dict(zip(QUESTION_PROPERTIES, QUESTION_PROPERTY_COLUMNS))
assert len(QUESTION_PROPERTY_COLUMNS) == 36


def question_properties(spec: dict, md: dict, model, n_retained: int) -> dict[str, Any]:
    """The 36 properties (column names) of one question from its spec and metadata (md: its family's
    `metadata`, `aggregate_in_table` true for an aggregate shown in the HCT); `n_retained`: rows kept by
    its WHERE clause."""
    filters = list(spec["filters"])
    vcs = [spec.get("value_condition")]
    sj = spec.get("semi_join")
    if sj:
        filters += sj["filters"]
        vcs.append(sj.get("value_condition"))
    vcs = [v for v in vcs if v]
    attrs = {f["attribute"] for f in filters}
    involved = len(attrs) + (1 if vcs else 0)
    depth = getattr(model, "depth", None) or {a.name: a.depth for a in model.table.attributes}
    n_cond = len(filters) + len(vcs) + (1 if sj else 0)
    retained = n_retained if n_cond else len(model.rows.rows)
    aggs = md["aggregations"]
    select = spec["select"]
    plain = any(s["kind"] != "aggregate" for s in select)
    proj_attrs = [s["name"] for s in select if s["kind"] == "attribute"]
    rank = md["ordering"] != "none"
    has_agg = bool(aggs)
    grouping = md["grouping"]
    in_table = md["aggregate_in_table"]
    # values in QUESTION_PROPERTIES order
    values = (
        n_cond > 0,  # Row Filter
        bool(filters),  # Condition Type Lookup
        bool(vcs),  # Condition Type Expression
        involved == 1,  # Involved Columns Single
        involved > 1,  # Involved Columns Multiple
        max((depth[a] for a in attrs), default=None),  # Max Depth Of Involved Columns
        n_cond > 0 and retained == 1,  # Retained Rows Single
        n_cond > 0 and retained > 1,  # Retained Rows Multiple
        n_cond or None,  # Num Of Conditions
        True,  # Returned Columns
        plain,  # Project On Plain
        has_agg,  # Project On Expression
        max((depth[a] for a in proj_attrs), default=None),  # Max Depth Of Involved Columns
        has_agg and in_table,  # Expression In Table Present
        has_agg and not in_table,  # Expression In Table Not Present
        len(select),  # Num Of Output Columns
        False, False, False,  # Yes/No, Scope Single, Scope Multiple
        has_agg,  # Aggregation
        has_agg,  # Aggregation On Plain
        False,  # Aggregation On Expression
        "min" in aggs, "max" in aggs, False, "sum" in aggs, "avg" in aggs,  # Type Min/Max/Count/Sum/Avg
        grouping == "local",  # Grouping Local
        grouping == "global",  # Grouping Global
        has_agg and in_table,  # Aggregation In Table Present
        has_agg and not in_table,  # Aggregation In Table Not Present
        len(aggs) or None,  # Num Of Aggregations
        rank, rank, False,  # Rank, Rank On Plain, Rank On Expression
        md["top_k"],  # Report Top
    )
    return dict(zip(QUESTION_PROPERTY_COLUMNS, values))
