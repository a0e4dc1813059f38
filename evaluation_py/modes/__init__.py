"""The reasoning inference modes (TReB's): `tcot`, `pot`, `icot`, one module each; importing this
package registers them (`inference_mode`, the mode type and its registry, imports it after
registering `direct`).

`pot` and `icot` run model-written code in the sandbox (evaluation_py.sandbox); what a run gave is
cached beside the answers (`execution`) and shown per prediction (`outcomes`).
"""
from . import icot, pot, tcot  # noqa: F401  (each registers its mode)

__all__ = ["icot", "pot", "tcot"]
