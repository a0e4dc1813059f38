"""The seeds' domain vocabularies (`domains`: attributes, value trees, numeric ranges) and generic table
templates with their expansion into variants (`templates`).

The names below are a lazy front: each is imported from its module on first use."""
from importlib import import_module

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


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
