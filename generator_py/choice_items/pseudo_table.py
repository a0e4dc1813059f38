"""m_tis: a pseudo-relevant second table that looks like the first but cannot answer the question.

The other table is another HCT of the same individual template (same layout and header attributes)
whose values of at least one of the question's condition attributes are disjoint from the first
table's: the question's condition values do not occur in it, so only the first table answers.
TabIS Appendix B places it before or after the golden table at random; here the draw is seeded.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional, Sequence

from .choice_table import ChoiceTable

POSITIONS = ("before", "after")


@dataclass(frozen=True)
class PseudoTable:
    table_id: str
    position: str  # where the other table stands: before or after the question's table
    disjoint_attribute: str


def pseudo_relevant_table(spec: dict, table: ChoiceTable, same_template: Sequence[ChoiceTable],
                          rng: random.Random) -> Optional[PseudoTable]:
    attributes = sorted({f["attribute"] for f in spec["filters"]})
    candidates = sorted((o for o in same_template if o.table_id != table.table_id), key=lambda o: o.table_id)
    rng.shuffle(candidates)
    for other in candidates:
        for a in attributes:
            if a in other.rows.index and not (table.attribute_values(a) & other.attribute_values(a)):
                return PseudoTable(other.table_id, rng.choice(POSITIONS), a)
    return None
