"""Renderings of the cell grid, one module per format, looked up by name in `registry`."""
from generator_py.render.registry import TableFormat, format_names, get_format, register_format, render

__all__ = ["TableFormat", "format_names", "get_format", "register_format", "render"]
