"""A static HTML report (``index.html``) with every plot and the summary tables."""

from __future__ import annotations

import datetime as _dt
import html
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

MAX_ROWS = 200


def _table_html(df: pd.DataFrame, max_rows: int) -> str:
    shown = df.head(max_rows).copy()
    for c in shown.columns[shown.dtypes == object]:  # None would print as "None"
        shown[c] = shown[c].where(shown[c].notna(), "")
    body = shown.to_html(index=False, escape=True, na_rep="", border=0, classes="frame",
                         float_format=lambda v: f"{v:.4g}")
    more = ""
    if len(df) > max_rows:
        more = f"<p class='more'>{len(df) - max_rows} more rows not shown ({len(df)} in all).</p>"
    return body + more


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, (Path,)):
        return str(o)
    return str(o)


def _with_caption(item) -> tuple:
    """``x`` or ``(x, caption)`` -> ``(x, caption or None)``."""
    if isinstance(item, tuple):
        return item[0], (item[1] if len(item) > 1 else None)
    return item, None


def write_report(out_dir, frames: Mapping[str, pd.DataFrame | tuple], plots: Sequence, build_info: Mapping,
                 title: str = "HCT-QA analysis", max_rows: int = MAX_ROWS, models: pd.DataFrame | None = None) -> str:
    """Write ``out_dir/index.html`` and return its path.

    ``frames``: section title -> DataFrame, or (DataFrame, caption) (shown HTML-escaped,
    at most ``max_rows`` rows). ``plots``: image paths, or (path, caption) pairs; each is
    linked relative to ``out_dir`` with its caption (its file name without one); paths
    that do not exist are listed as missing (not linked). ``build_info``: shown at the
    top; ``build_date`` (default: today, UTC), ``seed`` and ``config`` get their own
    lines. ``models``: the models evaluated, shown under the build.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    info = dict(build_info or {})
    build_date = info.pop("build_date", None) or _dt.datetime.now(_dt.timezone.utc).date().isoformat()
    seed = info.pop("seed", None)
    config = info.pop("config", None)
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        f"<title>{e(title)}</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:1400px}"
        "table.frame{border-collapse:collapse;font-size:12px;margin-bottom:1em}"
        "table.frame td,table.frame th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
        "figure{margin:1em 0}img{max-width:100%;border:1px solid #eee}"
        "pre{background:#f6f6f6;padding:.5em;overflow-x:auto}.missing{color:#a00}"
        "figcaption,p.caption{max-width:60em;color:#333}</style>",
        "</head><body>",
        f"<h1>{e(title)}</h1>",
        "<h2>Build</h2><ul>",
        f"<li>build date: {e(str(build_date))}</li>",
        f"<li>seed: {e(str(seed)) if seed is not None else 'not given'}</li>",
    ]
    for k in sorted(info, key=str):
        parts.append(f"<li>{e(str(k))}: {e(str(info[k]))}</li>")
    parts.append("</ul>")
    if models is not None:
        parts.append("<h3>Models evaluated</h3>")
        parts.append(_table_html(models, max_rows) if len(models) else "<p>none: no predictions in this build</p>")
    if config is not None:
        text = config if isinstance(config, str) else json.dumps(config, indent=2, sort_keys=True,
                                                                  default=_json_default)
        parts.append(f"<h3>Configuration</h3><pre>{e(text)}</pre>")

    parts.append("<h2>Figures</h2>")
    missing = []
    for item in plots:
        p, caption = _with_caption(item)
        path = Path(p)
        if not path.is_absolute():
            path = Path(os.path.abspath(path))
        path = path.resolve()
        if not path.is_file():
            missing.append(str(p))
            continue
        rel = Path(os.path.relpath(path, out.resolve())).as_posix()
        parts.append(f"<figure><img src='{e(rel, quote=True)}' alt='{e(path.stem, quote=True)}'>"
                     f"<figcaption>{e(caption or path.stem.replace('_', ' '))}</figcaption></figure>")
    if missing:
        parts.append("<p class='missing'>Figures not found (not shown): "
                     + ", ".join(e(Path(m).name) for m in missing) + "</p>")

    parts.append("<h2>Tables</h2>")
    for name, item in frames.items():
        df, caption = _with_caption(item)
        parts.append(f"<h3>{e(str(name))}</h3>")
        if caption:
            parts.append(f"<p class='caption'>{e(caption)}</p>")
        if df is None or len(df) == 0:
            parts.append("<p>(empty)</p>")
        else:
            parts.append(_table_html(df, max_rows))
    parts.append("</body></html>")
    path = out / "index.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return str(path)
