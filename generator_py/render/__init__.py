"""Renderings of the cell grid, one module per format, looked up by name in `registry`; a question's own view of
its table (`question_grid`) and the changes of the grid such a view makes (`grid_changes`)."""
from generator_py.render.registry import TableFormat, format_names, get_format, register_format, render

__all__ = ["TableFormat", "format_names", "get_format", "register_format", "render"]
