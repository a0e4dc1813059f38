"""The seeds' domain vocabularies (`domains`: attributes, value trees, numeric ranges), the value model of
each measure (`value_model`: baseline, effects, trends, noise) and the statements expected of it
(`value_expectations`), generic table templates with their expansion into variants (`templates`), and what
TReB's families know of a domain beyond the table (`knowledge`: labels with their ancestors, groupings, units,
declared ranges).

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "AGG_FUNCTIONS": "domains",
    "Code": "domains",
    "Domain": "domains",
    "GT_DELIMITERS": "domains",
    "IDENTIFIER": "domains",
    "NUMBER": "domains",
    "ValueNode": "domains",
    "ValueRange": "domains",
    "expand_variants": "templates",
    "load_domains": "domains",
    "load_templates": "templates",
    "make_range": "domains",
    "parse_aggregations": "domains",
    "parse_range": "domains",
    "rows_with_lines": "domains",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
