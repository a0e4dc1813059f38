"""A floor baseline: answer a question by matching header labels mentioned in it.

1. Parse the table (`evaluation_py.baselines.html_table`); every value cell has a row path and a column
   path of header labels. A *level* is (axis, position on the path).
2. Find the labels mentioned in the question: whole words, case-insensitive, punctuation ignored,
   longest match wins where two mentions overlap (one-character labels only when quoted).
3. Split the question into disjunctive clauses at an "or" that is not followed by a label
   ("... in Q1 of 2021 or involving Female casualties in Q2 ..."). In each clause a level is
   *constrained* to the labels mentioned in the clause at that level; a level the clause does not
   mention takes the labels mentioned at that level anywhere in the question. A cell is selected
   by a clause when, on every constrained level, its label is one of the allowed ones; the answer
   cells are the union over clauses, in table order.
4. An aggregation label (Total, Average, ...) mentioned together with other labels of its level is
   read as the operation, not as a label. Cells under an aggregation label that was not mentioned
   are skipped; cells marked aggregate only by their class are skipped when plain cells were
   selected too.
5. Answer: the selected values joined by ` || `; one number per aggregation the question asks for
   (per group for "for each ...": groups are the levels where two or more labels were mentioned;
   with "report the corresponding ..." the group labels come first)
   (sum/total, average/mean, minimum/lowest/smallest, maximum/highest/largest); the k largest or
   smallest for "largest k ..."; the values sorted for "ordered by increasing/decreasing ...";
   `no answer` when no label is mentioned or no cell is selected.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from evaluation_py.baselines.html_table import ParsedTable, ValueCell, is_aggregate_label, parse_html_table
# An aggregate prints as the ground truth prints it (ties at the second decimal round half up).
from generator_py.core.formatting import format_number

NO_ANSWER = "no answer"

_OPERATION_WORDS = {
    "total": "sum",
    "totals": "sum",
    "sum": "sum",
    "sums": "sum",
    "average": "avg",
    "averages": "avg",
    "mean": "avg",
    "means": "avg",
    "minimum": "min",
    "minimums": "min",
    "minima": "min",
    "min": "min",
    "lowest": "min",
    "smallest": "min",
    "least": "min",
    "maximum": "max",
    "maximums": "max",
    "maxima": "max",
    "max": "max",
    "highest": "max",
    "largest": "max",
    "greatest": "max",
    "biggest": "max",
}
_TOP_WORDS = {"largest": "desc", "highest": "desc", "top": "desc", "greatest": "desc", "biggest": "desc",
              "smallest": "asc", "lowest": "asc", "bottom": "asc", "least": "asc"}

_TOKEN_RE = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[str]:
    return _TOKEN_RE.findall(text.lower())


def parse_number(text: str) -> Optional[float]:
    """Cell text -> float (thousands separators, spaces, % and a leading + ignored), else None."""
    t = text.strip().replace("\u2212", "-").replace(",", "").replace("%", "")
    t = re.sub(r"(?<=\d)\s+(?=\d)", "", t).strip()
    if t.startswith("+"):
        t = t[1:]
    if re.fullmatch(r"-?(\d+\.?\d*|\.\d+)", t):
        return float(t)
    return None


def _clean_value(text: str) -> str:
    """'39.00' -> '39', '12.50' -> '12.5'; other texts unchanged."""
    if re.fullmatch(r"-?\d+\.\d+", text):
        return text.rstrip("0").rstrip(".")
    return text


# ----------------------------------------------------------------------------- mentions


def _label_variants(label: str) -> list[list[str]]:
    toks = _tokens(label)
    variants = [toks] if toks else []
    # A trailing footnote number ("Durable goods 2") may be left out in the question.
    if len(toks) >= 2 and re.fullmatch(r"\d", toks[-1]):
        variants.append(toks[:-1])
    return variants


def _find_mentions(question: str, labels: set[str]) -> list[tuple[int, int, str]]:
    q_tokens = _tokens(question)
    q_lower = question.lower()
    spans: list[tuple[int, int, str]] = []
    for label in labels:
        for variant in _label_variants(label):
            if len("".join(variant)) < 2 and f'"{label.lower()}"' not in q_lower:
                continue
            n = len(variant)
            for i in range(len(q_tokens) - n + 1):
                window = q_tokens[i:i + n]
                if window[:-1] == variant[:-1] and (
                    window[-1] == variant[-1]
                    or window[-1] == variant[-1] + "s"
                    or window[-1] == variant[-1] + "es"
                ):
                    spans.append((i, i + n, label))
    # Longest mention wins where two overlap.
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    kept: list[tuple[int, int, str]] = []
    for s in spans:
        if any(s[0] < k[1] and k[0] < s[1] and (k[1] - k[0]) > (s[1] - s[0]) for k in kept):
            continue
        kept.append(s)
    kept.sort()
    return kept


def _clauses(
    question: str, mentions: list[tuple[int, int, str]], label_levels: dict[str, set]
) -> list[set[str]]:
    """Split at an "or" that is not followed by a label, or that is followed by a label of other
    levels than the label just before it ("... in 2020 or Car accidents ...")."""
    q_tokens = _tokens(question)
    by_start = {m[0]: m for m in mentions}
    by_end = {m[1]: m for m in mentions}
    inside = {i for m in mentions for i in range(m[0], m[1])}
    cuts = [0]
    for i, tok in enumerate(q_tokens):
        if tok != "or" or i in inside:
            continue
        nxt = by_start.get(i + 1)
        prev = by_end.get(i) or by_end.get(i - 1)  # allow "Fire, or" / "Fire or"
        if nxt is None or (prev is not None and not (label_levels.get(prev[2], set()) & label_levels.get(nxt[2], set()))):
            cuts.append(i + 1)
    cuts.append(len(q_tokens) + 1)
    clauses = []
    for a, b in zip(cuts, cuts[1:]):
        labels = {m[2] for m in mentions if a <= m[0] < b}
        if labels:
            clauses.append(labels)
    return clauses


# ----------------------------------------------------------------------------- selection


def _levels(cell: ValueCell) -> dict[tuple[str, int], str]:
    out = {("row", i): label for i, label in enumerate(cell.row_path)}
    out.update({("col", i): label for i, label in enumerate(cell.column_path)})
    return out


def select_cells(table: ParsedTable, question: str) -> list[ValueCell]:
    """The value cells the question points at (see the module docstring)."""
    return _select(table, question)[0]


def _select(table: ParsedTable, question: str) -> tuple[list[ValueCell], list[tuple[str, int]]]:
    """(selected cells, levels on which the question mentions two or more labels)."""
    cells = table.value_cells
    if not cells:
        return [], []
    level_labels: dict[tuple[str, int], set[str]] = {}
    cell_levels = []
    for cell in cells:
        lv = _levels(cell)
        cell_levels.append(lv)
        for key, label in lv.items():
            level_labels.setdefault(key, set()).add(label)
    all_labels = set().union(*level_labels.values()) if level_labels else set()
    mentions = _find_mentions(question, all_labels)
    if not mentions:
        return [], []
    mentioned = {m[2] for m in mentions}

    def constraints_for(labels: set[str]) -> dict[tuple[str, int], set[str]]:
        out = {}
        for key, present in level_labels.items():
            allowed = present & labels
            if any(not is_aggregate_label(x) for x in allowed):
                # An aggregation word next to other labels of its level is the operation.
                allowed = {x for x in allowed if not is_aggregate_label(x)}
            if allowed:
                out[key] = allowed
        return out

    global_constraints = constraints_for(mentioned)
    label_levels: dict[str, set] = {}
    for key, present in level_labels.items():
        for label in present:
            label_levels.setdefault(label, set()).add(key)
    clauses = _clauses(question, mentions, label_levels) or [mentioned]

    def run(dropped: set[tuple[str, int]]) -> set[int]:
        chosen: set[int] = set()
        for clause in clauses:
            constraints = dict(global_constraints)
            constraints.update(constraints_for(clause))
            for key in dropped:
                constraints.pop(key, None)
            if not constraints:
                continue
            for idx, lv in enumerate(cell_levels):
                if all(lv.get(key) in allowed for key, allowed in constraints.items()):
                    chosen.add(idx)
        return chosen

    selected_idx = run(set())
    if not selected_idx:
        # An aggregation word ("total") may match a label on a level the question does not
        # otherwise mention; retry without each such level.
        for key, allowed in sorted(global_constraints.items()):
            if all(is_aggregate_label(x) for x in allowed):
                selected_idx = run({key})
                if selected_idx:
                    global_constraints = {k: v for k, v in global_constraints.items() if k != key}
                    break
    picked = []
    final_named = {label for allowed in global_constraints.values() for label in allowed}
    for idx in sorted(selected_idx):
        cell = cells[idx]
        agg_labels = [x for x in cell.row_path + cell.column_path if is_aggregate_label(x)]
        if any(x not in final_named and x not in mentioned for x in agg_labels):
            continue
        picked.append(cell)
    plain = [c for c in picked if not (c.aggregate_by_class and not _named_aggregate(c, mentioned))]
    if plain and len(plain) < len(picked):
        picked = plain
    multi = sorted(
        (key for key, allowed in global_constraints.items() if len(allowed) >= 2),
        key=lambda k: (k[0] != "row", k[1]),
    )
    return picked, multi


def _named_aggregate(cell: ValueCell, mentioned: set[str]) -> bool:
    return any(is_aggregate_label(x) and x in mentioned for x in cell.row_path + cell.column_path)


# ----------------------------------------------------------------------------- answering


def _operations(question: str) -> tuple[list[str], Optional[tuple[str, int]], Optional[str]]:
    """(aggregations in order, top-k (direction, k), sort direction)."""
    toks = _tokens(question)
    top: Optional[tuple[str, int]] = None
    for i, tok in enumerate(toks[:-1]):
        if tok in _TOP_WORDS and toks[i + 1].isdigit():
            top = (_TOP_WORDS[tok], int(toks[i + 1]))
            break
    order: Optional[str] = None
    text = " ".join(toks)
    if re.search(r"\b(decreasing|descending)\b", text):
        order = "desc"
    elif re.search(r"\b(increasing|ascending)\b", text):
        order = "asc"
    ops: list[str] = []
    if top is None:
        for tok in toks:
            op = _OPERATION_WORDS.get(tok)
            if op and op not in ops:
                ops.append(op)
    return ops, top, order


def _aggregate(op: str, numbers: list[float]) -> float:
    if op == "sum":
        return sum(numbers)
    if op == "avg":
        return sum(numbers) / len(numbers)
    if op == "min":
        return min(numbers)
    return max(numbers)


def answer_table(table: ParsedTable, question: str) -> str:
    cells, multi_levels = _select(table, question)
    if not cells:
        return NO_ANSWER
    ops, top, order = _operations(question)
    q_text = " ".join(_tokens(question))
    if ops and multi_levels and re.search(r"\b(for each|per|for every|by each)\b", q_text):
        # Grouped aggregation: group on the levels where several labels were mentioned.
        groups: dict[tuple[str, ...], list[float]] = {}
        for cell in cells:
            x = parse_number(cell.text)
            if x is None:
                continue
            lv = _levels(cell)
            groups.setdefault(tuple(lv.get(k, "") for k in multi_levels), []).append(x)
        if groups:
            report = "corresponding" in q_text or "report" in q_text
            values: list[str] = []
            for key, numbers in groups.items():
                if report:
                    values.extend(k for k in key if k)
                values.extend(format_number(_aggregate(op, numbers)) for op in ops)
            return " || ".join(values)
    numbered = [(parse_number(c.text), c) for c in cells]
    numeric = [(x, c) for x, c in numbered if x is not None]
    if top is not None and numeric:
        direction, k = top
        numeric.sort(key=lambda p: p[0], reverse=direction == "desc")
        return " || ".join(_clean_value(c.text) for _, c in numeric[:k])
    if ops and numeric:
        numbers = [x for x, _ in numeric]
        return " || ".join(format_number(_aggregate(op, numbers)) for op in ops)
    if order is not None and numeric:
        numeric.sort(key=lambda p: p[0], reverse=order == "desc")
        return " || ".join(_clean_value(c.text) for _, c in numeric)
    return " || ".join(_clean_value(c.text) for c in cells)


def answer_question(html: str, question: str) -> str:
    """Answer `question` from the table in `html`; `no answer` when nothing matches."""
    table = _parsed(html)
    return NO_ANSWER if table is None else answer_table(table, question)


@lru_cache(maxsize=8)  # requests come sorted by table: a table's questions follow each other
def _parsed(html: str) -> Optional[ParsedTable]:
    try:
        return parse_html_table(html)
    except ValueError:
        return None
