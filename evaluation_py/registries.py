"""Every registry of the project by kind: what `hctqa list KIND`, the catalog relation
(`int_registry_catalog`) and plugins (entry point group `hctqa.<kind>`) see.

Each registry is a `generator_py.core.registry.Registry`; the question families and the table formats live in
generator_py (generation uses them), the rest here. Importing this module imports every built-in
registration; a registry loads its plugins on its first lookup or listing.
"""
from __future__ import annotations

import json
from typing import Any

from generator_py.questions.families import ALL_FAMILIES
from generator_py.core.registry import Registry
from generator_py.render.registry import FORMATS

from .choice import requests as _choice_requests  # noqa: F401  (registers the choice mode, its filter)
from .backends import BACKENDS
from .scoring.extraction import FILTERS
from .modes.inference_mode import MODES
from .scoring.metrics import METRICS

REGISTRIES: dict[str, Registry] = {
    "families": ALL_FAMILIES,
    "formats": FORMATS,
    "modes": MODES,
    "backends": BACKENDS,
    "metrics": METRICS,
    "filters": FILTERS,
}

CATALOG_COLUMNS = ("kind", "name", "description", "origin", "attributes")


def _family(f) -> dict[str, Any]:
    return {"suite": f.suite, "kind": f.kind, "answer_type": f.answer_type, "template_id": f.template_id,
            "nl_template_id": f.nl.template_id, "variants": f.variants, "treb_skill": f.treb_skill,
            "treb_subtask": f.treb_subtask, "treb_metric": f.treb_metric, "single_answer": f.single_answer,
            "perturbed_views": getattr(f, "perturbed_views", False), "multi_step": getattr(f, "multi_step", False),
            "n_tables": f.n_tables, "table_roles": list(f.table_roles), "olap_operation": f.olap_operation}


def _backend(cls) -> dict[str, Any]:
    return {"needs_model": cls.needs_model, "speaks_openai": cls.speaks_openai, "is_reference": cls.is_reference,
            "capabilities": sorted(cls.capabilities), "benchmark_fields": list(cls.benchmark_fields)}


ATTRIBUTES = {
    "families": _family,
    "formats": lambda f: {"display_name": f.display_name, "is_text": f.is_text},
    "modes": lambda m: {"kind": m.kind, "max_turns": m.max_turns, "extraction": m.extraction,
                        "runs_code": m.runs_code, "answer_source": m.answer_source,
                        "needs": sorted(m.required_capabilities())},
    "backends": _backend,
    "metrics": lambda m: {"reads": m.reads, "binary": m.binary, "partial": m.partial, "best": m.best},
    "filters": lambda f: {"modes": sorted(f.modes)},
}


def catalog_rows() -> list[tuple[str, str, str, str, str]]:
    """One row per registered thing (CATALOG_COLUMNS), kinds in REGISTRIES order and each in registration
    order; `attributes`: a JSON object of what callers branch on."""
    rows = []
    for kind, registry in REGISTRIES.items():
        for entry in registry.listing():
            attrs = ATTRIBUTES[kind](registry.get(entry.name))
            rows.append((kind, entry.name, entry.description, entry.origin,
                         json.dumps(attrs, sort_keys=True, separators=(",", ":"))))
    return rows
