"""End-to-end: the analysis models and the report of a build with the HCT-QA release sample replayed.

Uses the session's `release_build` (tests/conftest.py: release sample imported, gemma-2-9b-it's published
responses replayed on its 194 real questions; one synthetic domain, one replica), made once a session.
"""
from __future__ import annotations

import re
import struct
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import duckdb
import pytest

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"


def _rows(project: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _scored_metrics(project: Path) -> set[str]:
    """The metrics the predictions are scored by, from the build's registry catalog (no judge in this build): every
    one but the partial metrics, which score only the questions they are about (here: false_refusal, every
    question of the release being answerable)."""
    return {n for (n,) in _rows(project, """select name from intermediate.int_registry_catalog where kind = 'metrics'
                                            and json_extract_string(attributes, '$.reads') <> 'verdict'
                                            and (not json_extract(attributes, '$.partial')::boolean
                                                 or name = 'false_refusal')""")}


def test_property_regression_of_gemma_uses_all_real_questions_and_tables(release_build):
    rows = _rows(release_build, """
        select property_kind, metric, n_questions, n_tables from analysis_property_regression
        where model_name = 'gemma' and dropped_reason is null""")
    assert rows, "no estimated regression rows for gemma"
    assert {kind for kind, *_ in rows} == {"table", "question"}
    assert {metric for _, metric, *_ in rows} == _scored_metrics(release_build) >= {"f1"}  # every metric scored
    assert {(n_q, n_t) for _, _, n_q, n_t in rows} == {(194, 38)}


def test_breakdowns_are_long_with_every_metric_and_agree_with_eval_summary(release_build):
    # analysis_scores_by_source_dataset (gemma: real questions, its primary format) against eval_summary's dataset level
    rows = _rows(release_build, """
        select b.scoring_mode, b.metric, b.dataset, b.value, s.value, b.n, s.n
        from analysis_scores_by_source_dataset b
        join eval_summary s using (model_name, inference_mode, scoring_mode, metric, source, dataset)
        where b.model_name = 'gemma' and s.level = 'dataset' and s.table_format = 'html'""")
    metrics = _scored_metrics(release_build)
    assert {(mode, metric) for mode, metric, *_ in rows} == {
        (mode, metric) for mode in ("strict", "paper") for metric in metrics}
    assert len(rows) == 2 * len(metrics) * 4  # scoring modes x metrics x the sample's datasets
    for *key, ours, theirs, n, n_summary in rows:
        assert ours == pytest.approx(theirs, abs=1e-12) and n == n_summary, key


def test_creation_type_breakdown_splits_gemmas_real_questions_by_the_release_mark(release_build):
    kinds = dict(_rows(release_build, "select creation_type, count(*) from benchmark_questions where source = 'real' "
                                      "group by all"))
    marks = dict(_rows(release_build, """select case left(split_part(question_id, '--', -1), 1) when 'M' then 'manual'
        when 'A' then 'model_generated' end, count(*) from benchmark_questions where source = 'real' group by all"""))
    assert kinds == marks and set(kinds) == {"manual", "model_generated"} and sum(kinds.values()) == 194
    # the breakdown's groups add up to gemma's predictions (left-out ones beside them), kind by kind
    rows = _rows(release_build, """select scoring_mode, creation_type, n + n_left_out from analysis_scores_by_creation_type
                                   where model_name = 'gemma' and metric = 'f1'""")
    assert {(mode, kind): n for mode, kind, n in rows} == {
        (mode, kind): n for mode in ("strict", "paper") for kind, n in kinds.items()}


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.refs.append(value)


def test_report_references_only_existing_files(release_build):
    reports = release_build / "reports"
    index = reports / "index.html"
    assert index.is_file()
    parser = _Refs()
    parser.feed(index.read_text(encoding="utf-8"))
    local = [r for r in parser.refs if not urlparse(r).scheme and not r.startswith("#")]
    assert any(r.endswith(".png") for r in local), "the report shows no figure"
    missing = [r for r in local if not (reports / unquote(urlparse(r).path)).is_file()]
    assert not missing, f"index.html references files that do not exist: {missing}"
    # Every figure the build wrote is shown, and the analysis_report model lists what is on disk.
    figures = sorted(p.name for p in (reports / "figures").glob("*.png"))
    shown = sorted(Path(urlparse(r).path).name for r in local if r.endswith(".png"))
    assert shown == figures
    listed = _rows(release_build, "select path, bytes from analysis_report")
    for path, size in listed:
        on_disk = release_build / path if not Path(path).is_absolute() else Path(path)
        assert on_disk.is_file() and on_disk.stat().st_size == size, path


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path.name}: not a PNG"
    assert data[12:16] == b"IHDR", f"{path.name}: no IHDR chunk first"
    assert data[-12:] == PNG_END, f"{path.name}: truncated (no IEND chunk at the end)"
    return struct.unpack(">II", data[16:24])


def test_every_figure_is_a_readable_png_of_useful_size(release_build):
    pngs = sorted((release_build / "reports" / "figures").glob("*.png"))
    assert len(pngs) >= 5
    for path in pngs:
        width, height = _png_size(path)
        assert width >= 300 and height >= 200, (path.name, width, height)
    import matplotlib.image as mpimg
    for path in pngs:  # the whole image decodes
        pixels = mpimg.imread(str(path))
        assert pixels.shape[:2] == _png_size(path)[::-1], path.name



def test_one_model_under_test_gives_no_pooled_rows_and_the_report_lists_it(release_build):
    # gemma is the build's only model: no __pooled__ rows (a pooled fit over one model would repeat it)
    assert _rows(release_build, "select distinct model_name from analysis_property_regression") == [("gemma",)]
    (n, n_left_out), = _rows(release_build, """
        select distinct n, n_left_out from analysis_property_regression where metric = 'f1'""")
    assert (n, n_left_out) == (194, 0)  # strict scores: every prediction scored
    text = (release_build / "reports" / "index.html").read_text(encoding="utf-8")
    models = text[text.index("<h3>Models evaluated</h3>"):text.index("<nav>")]
    assert "<td class='txt'>gemma</td>" in models and "<td class='num'>194</td>" in models
    assert "eval_models" not in models  # listed from eval_scores, not from the var
    assert "a pooled fit needs two models, this build has 1" in text


def test_the_report_opens_with_the_leaderboard_of_the_mart(release_build):
    text = (release_build / "reports" / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<section id='([^']+)'>", text)[0] == "leaderboard"
    lead = text[text.index("<section id='leaderboard'>"):]
    lead = lead[:lead.index("</section>")]
    (mean, low, high, n_q), = _rows(release_build, """
        select mean, ci_low, ci_high, n_questions from eval_leaderboard
        where model_name = 'gemma' and scoring_mode = 'strict' and metric = 'f1'""")
    assert low < mean < high and n_q == 194
    assert f"<td class='num'>{mean:.3f}</td>" in lead and f"[{low:.3f}, {high:.3f}]" in lead
    assert "build_fingerprint" not in text and text.count("build fingerprint:") == 1


def test_every_query_the_report_shows_runs_and_returns_at_least_its_rows(release_build):
    import html as html_module

    text = (release_build / "reports" / "index.html").read_text(encoding="utf-8")
    queries = re.findall(r"<pre class='sql' data-rows='(\d+)'>(.*?)</pre>", text, re.S)
    assert len(queries) >= 8
    for n, sql in queries:
        rows = _rows(release_build, html_module.unescape(sql))
        assert len(rows) >= int(n), sql


def test_the_report_in_a_browser_loads_every_image_and_no_figure_overflows(release_build, tmp_path):
    from evaluation_py.testing.report_browser import layout_problems, measure_report

    index = release_build / "reports" / "index.html"
    result = measure_report(index, screenshot=tmp_path / "report.png")
    assert len(result["images"]) == len(list((release_build / "reports" / "figures").glob("*.png")))
    assert layout_problems(result) == []
    assert (tmp_path / "report.png").stat().st_size > 10_000
