"""What every part of the generator uses: seeded randomness (`rng`), the canonical number and value
text (`formatting`), errors that name the seed row to fix (`errors`) and the registry type
(`registry`), the lazy package fronts (`lazy_front`), Python work run in a forked child process, off the
dbt process's GIL (`child_process`), and what a fork waits for: SQLite calls in progress (`sqlite_gate`),
imports in progress and pyarrow's one-time pandas set-up (`fork_safety`).

The names below are a lazy front: each is imported from its module on first use."""
from .lazy_front import lazy_front

_EXPORTS = {
    "Registry": "registry",
    "SeedError": "errors",
    "format_number": "formatting",
    "format_value": "formatting",
    "rng_for": "rng",
    "stable_int": "rng",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
