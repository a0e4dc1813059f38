"""Inference backends. Importing this package fills the registry (`BACKENDS`, `get_backend(name, config)`):
every module of the package named `*_backend` is imported and registers its class (`@register(name)`), so a
new backend is one module; plugins add theirs through the `hctqa.backends` entry point group."""
from __future__ import annotations

import importlib
import pkgutil

from .base import (BACKENDS, CAPABILITIES, Backend, Prediction, PredictionRequest, backend_class, backend_names,
                   get_backend, make_cache_key, register)
from .benchmark import BenchmarkLookup

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.endswith("_backend")):
    importlib.import_module(f"{__name__}.{_module}")

__all__ = ["BACKENDS", "CAPABILITIES", "Backend", "BenchmarkLookup", "Prediction", "PredictionRequest", "backend_class",
           "backend_names", "get_backend", "make_cache_key", "register"]
