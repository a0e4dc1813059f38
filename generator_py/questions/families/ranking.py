"""Rankings, Table III SQL12 (top-k values) and SQL13 (all values sorted), over labels of the first row
attribute at one column path."""
from __future__ import annotations

from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from .draws import VALUE_SEL, new_spec, paths, sample
from .registry import QuestionFamily


class Ranking(QuestionFamily):
    """Row paths ordered by their value (the top k of them, or all in descending order)."""

    treb_skill, treb_subtask = "TBO", "table_query"

    def __init__(self, template_id: int, top_k: bool):
        self.template_id = template_id
        self.family_id = f"q{template_id:02d}"
        word = "TOPK" if top_k else "ORDERBYDESC"
        self.nl = NLRequirements(template_id, ((word,),), frozenset({word}))
        self.top_k = top_k

    def draw(self, m, rng, variety):
        r1 = m.row_attrs[0]
        labels = list(m.order[r1])
        chosen = sample(rng, labels, 1, 3) if len(labels) > 1 else labels
        filters = [{"attribute": r1, "values": chosen}] + m.filters_for("col", paths(m, "col", "one", rng))
        direction = rng.choice(["asc", "desc"])
        spec = new_spec(filters, VALUE_SEL, order_by=[{"kind": "value", "name": "Value", "direction": direction}])
        n = len(filtered_rows(m.rows, spec))
        if n < 2:
            return None  # nothing to rank
        if self.top_k:
            spec["limit"] = rng.randint(2, min(5, n - 1 if n > 2 else 2))
        return spec, {}

    def exhausted(self, m):
        return len(m.row_paths) < 2


FAMILIES = (Ranking(12, top_k=True), Ranking(13, top_k=False))
