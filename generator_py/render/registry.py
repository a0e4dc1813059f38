"""The table formats: name -> renderer(grid) -> rendering. The one list of formats in the project.

A format is registered once (`register_format`, or a plugin's `hctqa.formats` entry point naming a
`TableFormat`), with the name used in configuration (`formats: [csv]`) and marts, the display name prompts
show, and whether its rendering is text (`is_text`: a column of `benchmark_tables` and a prompt body) or
bytes (an image, stored as a file). Everything else looks formats up here. The built-in ones register here,
in the order of their `benchmark_tables` columns; a new format is one module of this package named
`<name>_format.py` that calls `register_format` (imported below, after the built-in ones).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from generator_py.grid.cells import TableGrid
from generator_py.core.registry import Registry

Rendering = Union[str, bytes]


@dataclass(frozen=True)
class TableFormat:
    name: str
    display_name: str
    render: Callable[[TableGrid], Rendering]
    is_text: bool = True

    @property
    def description(self) -> str:
        return f"{self.display_name} rendering ({'text' if self.is_text else 'bytes, stored as a file'})"


def _checked(name: str, fmt: TableFormat) -> TableFormat:
    if not name.isidentifier() or name != name.lower():
        raise ValueError(f"table format name {name!r} must be a lower-case identifier")
    if not isinstance(fmt, TableFormat) or fmt.name != name or not callable(fmt.render):
        raise ValueError(f"table format {name!r} must be a TableFormat named {name!r} with a render function")
    return fmt


FORMATS: Registry[TableFormat] = Registry("table format", entry_point_group="hctqa.formats", prepare=_checked)


def register_format(name: str, display_name: str, render: Callable[[TableGrid], Rendering], *,
                    is_text: bool = True) -> TableFormat:
    """Add a format; a name already registered is an error (formats are never silently replaced)."""
    return FORMATS.register(name, TableFormat(name, display_name, render, is_text))


def unregister_format(name: str) -> None:
    """Remove a format (for tests that register a toy one)."""
    FORMATS.unregister(name)


def get_format(name: str) -> TableFormat:
    return FORMATS.get(name)


def format_names(text_only: bool = False) -> tuple[str, ...]:
    """Registered format names in registration order (`text_only`: the text formats)."""
    return tuple(f.name for f in FORMATS if f.is_text or not text_only)


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


def _import_format_modules() -> None:
    """Every module of this package named `*_format` registers a format of its own when imported."""
    import importlib
    import pkgutil

    import generator_py.render as package

    for name in sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.name.endswith("_format")):
        importlib.import_module(f"{package.__name__}.{name}")


_register_builtin_formats()
_import_format_modules()
