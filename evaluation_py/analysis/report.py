"""The static HTML report (``index.html``): a header with the build, a table of contents, one section per
research question (figures with captions, short tables with the SQL that returns all their rows), and the
questions the build cannot answer, listed once with what would answer them."""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

MAX_ROWS = 20
BLANK = "–"  # a missing value in a shown table
HIDDEN_COLUMNS = ("build_fingerprint",)  # said once, in the header


@dataclass
class Table:
    """A shown table: ``frame`` (its first ``MAX_ROWS`` rows shown), a caption, and ``sql``: the query on
    the database that returns all of its rows (shown when the frame has more)."""
    frame: pd.DataFrame
    caption: str = ""
    sql: str | None = None
    title: str | None = None
    verbatim: tuple[str, ...] = ()  # columns named by a value (a model's name), shown as they are


@dataclass
class Section:
    """One research question: ``figures`` as (path, caption), then ``tables``."""
    key: str
    title: str
    intro: str = ""
    figures: list[tuple[str, str]] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


@dataclass
class Unanswered:
    """A question this build cannot answer, and what would answer it."""
    title: str
    remedy: str


def _cell(v) -> str:
    if v is None or v is pd.NA or v is pd.NaT:
        return BLANK
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return BLANK
        return f"{v:.3f}" if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}" if abs(int(v)) >= 10000 else str(int(v))
    text = str(v)
    return text if text else BLANK


METRIC_LABELS = {"f1": "F1", "cc": "CC"}


def column_label(name) -> str:
    """A column's header: spaces for underscores, F1 and CC in capitals."""
    return " ".join(METRIC_LABELS.get(w, w) for w in str(name).replace("_", " ").split(" "))


def table_html(df: pd.DataFrame, max_rows: int = MAX_ROWS, verbatim=()) -> str:
    """``df``'s first ``max_rows`` rows as an HTML table, every cell escaped, missing values as a dash,
    column names with spaces for underscores, without the columns the header states once."""
    shown = df.drop(columns=[c for c in HIDDEN_COLUMNS if c in df.columns]).head(max_rows)
    e = html.escape
    head = "".join(f"<th>{e(str(c) if c in set(verbatim) else column_label(c))}</th>" for c in shown.columns)
    numeric = [pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t) for t in shown.dtypes]
    body = []
    for row in shown.itertuples(index=False, name=None):
        cells = "".join(f"<td class='{'num' if n else 'txt'}'>{e(_cell(v))}</td>" for v, n in zip(row, numeric))
        body.append(f"<tr>{cells}</tr>")
    return (f"<div class='scroll'><table class='frame'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _json_default(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    return str(o)


def _anchor(key: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "-" for c in key.lower())


STYLE = (
    "body{font-family:sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;line-height:1.4}"
    "nav ol{columns:2}section{border-top:1px solid #ddd;margin-top:2em}"
    "table.frame{border-collapse:collapse;font-size:12px;margin:.5em 0}"
    "table.frame td,table.frame th{border:1px solid #ccc;padding:2px 6px}"
    "table.frame th{background:#f3f3f3}td.num{text-align:right}td.txt{text-align:left}"
    "div.scroll{max-width:100%;overflow-x:auto}"
    "figure{margin:1em 0;max-width:100%}figure img{max-width:100%;height:auto;box-sizing:border-box;border:1px solid #eee}"
    "figcaption,p.caption{max-width:60em;color:#333}p.more{color:#555;font-size:13px}"
    "pre{background:#f6f6f6;padding:.5em;overflow-x:auto;font-size:12px}.missing{color:#a00}"
)


def write_report(out_dir, sections: Sequence[Section], build_info: Mapping, title: str = "HCT-QA results",
                 models: pd.DataFrame | None = None, unanswered: Sequence[Unanswered] = (),
                 max_rows: int = MAX_ROWS) -> str:
    """Write ``out_dir/index.html`` and return its path.

    ``build_info``: shown in the header (``build_date``, default today UTC; ``seed``; ``config`` as JSON;
    every other key on its own line, the build fingerprint among them). ``models``: the models evaluated.
    Figures are linked relative to ``out_dir``; a figure file that does not exist is named as missing,
    never linked. A table longer than ``max_rows`` shows its first rows and the SQL returning all of them.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    info = dict(build_info or {})
    build_date = info.pop("build_date", None) or _dt.datetime.now(_dt.timezone.utc).date().isoformat()
    seed = info.pop("seed", None)
    config = info.pop("config", None)
    e = html.escape
    parts = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
             "<meta name='viewport' content='width=device-width, initial-scale=1'>",
             f"<title>{e(title)}</title>", f"<style>{STYLE}</style>", "</head><body>", f"<h1>{e(title)}</h1>",
             "<header><ul>", f"<li>build date: {e(str(build_date))}</li>",
             f"<li>seed: {e(str(seed)) if seed is not None else 'not given'}</li>"]
    parts += [f"<li>{e(str(k).replace('_', ' '))}: {e(str(info[k]))}</li>" for k in sorted(info, key=str)]
    parts.append("</ul>")
    if models is not None:
        parts.append("<h3>Models evaluated</h3>")
        parts.append(table_html(models, max(max_rows, len(models))) if len(models)
                     else "<p>none: no predictions in this build</p>")
    if config is not None:
        text = config if isinstance(config, str) else json.dumps(config, indent=2, sort_keys=True,
                                                                  default=_json_default)
        parts.append(f"<h3>Configuration</h3><pre>{e(text)}</pre>")
    parts.append("</header>")

    parts.append("<nav><h2>Contents</h2><ol>")
    for i, s in enumerate(sections, 1):
        parts.append(f"<li><a href='#{_anchor(s.key)}'>{e(s.title)}</a></li>")
    if unanswered:
        parts.append("<li><a href='#not-answered'>Not answered by this build</a></li>")
    parts.append("</ol></nav>")

    for i, s in enumerate(sections, 1):
        parts.append(f"<section id='{_anchor(s.key)}'><h2>{i}. {e(s.title)}</h2>")
        if s.intro:
            parts.append(f"<p>{e(s.intro)}</p>")
        missing = []
        for p, caption in s.figures:
            path = Path(os.path.abspath(p)).resolve()
            if not path.is_file():
                missing.append(path.name)
                continue
            rel = Path(os.path.relpath(path, out.resolve())).as_posix()
            parts.append(f"<figure><img src='{e(rel, quote=True)}' alt='{e(path.stem.replace('_', ' '), quote=True)}'>"
                         f"<figcaption>{e(caption)}</figcaption></figure>")
        if missing:
            parts.append("<p class='missing'>Figures not found (not shown): " + ", ".join(map(e, missing)) + "</p>")
        for t in s.tables:
            if t.title:
                parts.append(f"<h3>{e(t.title)}</h3>")
            if t.caption:
                parts.append(f"<p class='caption'>{e(t.caption)}</p>")
            parts.append(table_html(t.frame, max_rows, t.verbatim))
            if t.sql:
                if len(t.frame) > max_rows:
                    parts.append(f"<p class='more'>{max_rows} of {len(t.frame)} rows shown; this query on the "
                                 f"database returns them all:</p><pre class='sql' data-rows='{len(t.frame)}'>{e(t.sql)}</pre>")
                else:
                    parts.append(f"<details><summary>The query returning these rows</summary>"
                                 f"<pre class='sql' data-rows='{len(t.frame)}'>{e(t.sql)}</pre></details>")
        parts.append("</section>")
    if unanswered:
        parts.append("<section id='not-answered'><h2>Not answered by this build</h2><ul>")
        parts += [f"<li><b>{e(u.title)}</b>: {e(u.remedy)}</li>" for u in unanswered]
        parts.append("</ul></section>")
    parts.append("</body></html>")
    path = out / "index.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return str(path)
