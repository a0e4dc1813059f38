"""A sandbox for model-written code (pot and icot): bubblewrap namespaces, kernel limits, warm workers.

Inside the sandbox this package is imported on its own (as `hctqa_sandbox`), so its modules import
only each other, the standard library and pandas.
"""
from .bubblewrap import INSTALL_HINT, SandboxUnavailable
from .limits import Limits
from .pool import SandboxError, SandboxPool
from .result import ERROR_KINDS, SANDBOX_NAMES, Result

__all__ = ["ERROR_KINDS", "INSTALL_HINT", "Limits", "Result", "SANDBOX_NAMES", "SandboxError", "SandboxPool",
           "SandboxUnavailable"]
