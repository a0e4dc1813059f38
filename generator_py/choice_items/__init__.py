"""TabIS-style two-option items on the benchmark's HCTs.

Every wrong option is made by a rule with known provenance: five distractor strategies on the
question answers (b_tis), the same items with positions for conditions (su_tis) or with a
pseudo-relevant second table (m_tis), and the six structure probes of TabIS Table 9 (tsu_*).
"""
from .items import SUBSETS, build_choice_items

__all__ = ["SUBSETS", "build_choice_items"]
