"""Layout counterfactuals: relational tables of the benchmark laid out again with one table property changed
(`layouts`: the bases and their toggles), the toggles kept when the built flags say so (`pairs`), and the
questions every layout of a set is asked, the same on each (`questions`)."""
from .layouts import (COUNTERFACTUAL_COLUMNS, COUNTERFACTUAL_MARK, INSTANCE_COLUMNS, PROPERTIES, PROPERTY_NAMES, Base,
                      CounterfactualProperty, Layout, base_of, candidate_toggles, choose_bases,
                      counterfactual_property, counterfactual_table_id, laid_out, set_id)
from .pairs import Rejected, colliding_layouts, kept_toggles, toggle_verdict

__all__ = ["COUNTERFACTUAL_COLUMNS", "COUNTERFACTUAL_MARK", "INSTANCE_COLUMNS", "PROPERTIES", "PROPERTY_NAMES", "Base",
           "CounterfactualProperty", "Layout", "Rejected", "base_of", "candidate_toggles", "choose_bases",
           "colliding_layouts", "counterfactual_property", "counterfactual_table_id", "kept_toggles", "laid_out",
           "set_id", "toggle_verdict"]
