"""The table formats: name -> renderer(grid) -> rendering. The one list of formats in the project.

A format is registered once, with the name used in configuration (`formats: [csv]`) and marts, the
display name prompts show, and whether its rendering is text (a column of `benchmark_tables` and a
prompt body) or bytes (an image, stored as a file). Adding a format is one renderer module plus one
`register_format` call; everything else looks formats up here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from generator_py.grid.cells import TableGrid

Rendering = Union[str, bytes]


@dataclass(frozen=True)
class TableFormat:
    name: str
    display_name: str
    render: Callable[[TableGrid], Rendering]
    is_text: bool = True


_FORMATS: dict[str, TableFormat] = {}


def register_format(name: str, display_name: str, render: Callable[[TableGrid], Rendering], *,
                    is_text: bool = True) -> TableFormat:
    """Add a format; a name already registered is an error (formats are never silently replaced)."""
    if not isinstance(name, str) or not name.isidentifier() or name != name.lower():
        raise ValueError(f"table format name {name!r} must be a lower-case identifier")
    if name in _FORMATS:
        raise ValueError(f"table format {name!r} is already registered")
    entry = TableFormat(name, display_name, render, is_text)
    _FORMATS[name] = entry
    return entry


def unregister_format(name: str) -> None:
    """Remove a format (for tests that register a toy one)."""
    get_format(name)
    del _FORMATS[name]


def get_format(name: str) -> TableFormat:
    try:
        return _FORMATS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown table format {name!r}; expected one of {', '.join(_FORMATS)}") from None


def format_names(text_only: bool = False) -> tuple[str, ...]:
    """Registered format names in registration order (`text_only`: the text formats)."""
    return tuple(n for n, f in _FORMATS.items() if f.is_text or not text_only)


def render(grid: TableGrid, name: str) -> Rendering:
    return get_format(name).render(grid)


def _register_builtin_formats() -> None:
    from generator_py.render.csv import render_csv
    from generator_py.render.html import render_html
    from generator_py.render.markdown import render_markdown

    register_format("html", "HTML", render_html)
    register_format("csv", "CSV", render_csv)
    register_format("markdown", "Markdown", render_markdown)
    register_format("image", "PNG image", _render_image, is_text=False)


def _render_image(grid: TableGrid) -> bytes:
    from generator_py.render.image import render_grid_png  # late: Pillow and the fonts load only when drawing

    return render_grid_png(grid)


_register_builtin_formats()
