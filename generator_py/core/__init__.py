"""What every part of the generator uses: seeded randomness (`rng`), the canonical number and value
text (`formatting`), errors that name the seed row to fix (`errors`) and the registry type
(`registry`).

The names below are a lazy front: each is imported from its module on first use."""
from importlib import import_module

_EXPORTS = {
    "Registry": "registry",
    "SeedError": "errors",
    "format_number": "formatting",
    "format_value": "formatting",
    "rng_for": "rng",
    "stable_int": "rng",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
