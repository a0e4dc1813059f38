"""Figures are real PNGs of sensible size, deterministic; the report links only existing files."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

from evaluation_py.analysis import breakdowns as bd
from evaluation_py.analysis import plots
from evaluation_py.analysis.composition import benchmark_composition
from evaluation_py.analysis.regression import property_regression
from evaluation_py.analysis.report import write_report
from evaluation_py.analysis.schema import POOLED
from evaluation_py.analysis.selection import model_order
from evaluation_py.testing.analysis_inputs import make_benchmark_inputs


@pytest.fixture(scope="module")
def inputs():
    return make_benchmark_inputs(80, 5, ["m_a", "m_b", "m_c"], seed=21, planted={"row_group_label": -0.3})


def _all_plots(inputs, out):
    t, q, s = inputs
    order = model_order(s)
    reg = property_regression(s, t, q)
    paths = [
        plots.plot_template_heatmap(bd.scores_by_template(s, q), out, model_order=order),
        plots.plot_question_property_heatmap(bd.scores_by_question_property(s, q), out, model_order=order),
        plots.plot_aggregation_type_heatmap(bd.scores_by_aggregation_type(s, q), out, model_order=order),
        plots.plot_coefficients_by_model(reg, out, (POOLED, *order), "f1"),
        plots.plot_coefficients_by_model(reg, out, ("nobody",), "f1", filename="coef_empty.png"),
        plots.plot_verbosity_recall(bd.answer_verbosity(s), out, model_order=order),
        *plots.plot_composition_all(benchmark_composition(t, q), out),
    ]
    return paths, reg


@pytest.fixture(scope="module")
def drawn(inputs, tmp_path_factory):
    """Every plot of `_all_plots` drawn once (under report/figures), the regression fit, and the warnings
    drawing them raised."""
    out = tmp_path_factory.mktemp("plots") / "report"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        paths, reg = _all_plots(inputs, out / "figures")
    return out, paths, reg, [str(w.message) for w in caught]


def test_plots_are_pngs_of_sensible_size(drawn):
    _, paths, _, _ = drawn
    assert len(paths) == 10 and len(set(paths)) == 10
    for p in paths:
        w, h = plots.png_size(p)
        assert w >= 300 and h >= 200, (p, w, h)
        assert Path(p).stat().st_size > 2000


def test_plots_are_deterministic(inputs, drawn, tmp_path):
    a = drawn[1]
    b, _ = _all_plots(inputs, tmp_path / "b")
    for pa, pb in zip(a, b):
        assert Path(pa).read_bytes() == Path(pb).read_bytes(), pa
    assert b"Software" not in Path(a[0]).read_bytes()[:400]


def test_svg_is_deterministic(inputs, tmp_path):
    t, q, s = inputs
    by_t = bd.scores_by_template(s, q)
    a = Path(plots.plot_template_heatmap(by_t, tmp_path / "a", filename="h.svg")).read_bytes()
    b = Path(plots.plot_template_heatmap(by_t, tmp_path / "b", filename="h.svg")).read_bytes()
    assert a == b and b"<svg" in a


def test_model_order_is_consistent(inputs):
    _, _, s = inputs
    order = model_order(s)
    assert order == ["m_a", "m_b", "m_c"]  # synthetic skills decrease with the index


def test_report_references_only_existing_files(drawn):
    from evaluation_py.analysis.report import Section, Table

    out, paths, reg, _ = drawn
    paths = [*paths, str(out / "figures" / "does_not_exist.png")]
    sections = [Section("figs", "All figures <b>", figures=[(p, "a caption") for p in paths]),
                Section("tables", "Tables", tables=[Table(reg[reg.model_name == POOLED], "regression <pooled>"),
                                                    Table(pd.DataFrame({"x": ["<script>alert(1)</script>"]}))])]
    index = write_report(out, sections, {"build_date": "2025-01-02", "seed": 42,
                                         "config": {"models": ["m_a"], "mode": "strict"}})
    text = Path(index).read_text()
    refs = re.findall(r"""src=['"]([^'"]+)['"]""", text)
    assert len(refs) == 10
    for r in refs:
        assert not r.startswith("/") and (out / r).is_file(), r
    assert "does_not_exist" not in " ".join(refs) and "does_not_exist.png" in text  # named as missing
    assert re.findall(r"href='#([^']+)'", text) == ["figs", "tables"]  # the contents link every section
    assert "id='figs'" in text and "id='tables'" in text
    assert "<script>" not in text and "&lt;script&gt;" in text and "All figures &lt;b&gt;" in text
    assert "2025-01-02" in text and "42" in text and "&quot;mode&quot;" in text
    assert "regression &lt;pooled&gt;" in text


def test_run_analysis_end_to_end(inputs, tmp_path):
    from evaluation_py.analysis.pipeline import run_analysis

    t, q, s = inputs
    res = run_analysis(s, t, q, tmp_path / "out", {"build_date": "2025-01-02", "seed": 1})
    text = Path(res["report"]).read_text()
    assert "Verbosity and the metrics across models" in text
    refs = re.findall(r"""src=['"]([^'"]+)['"]""", text)
    assert len(refs) == len(res["plots"]) and all((tmp_path / "out" / r).is_file() for r in refs)
    assert res["model_order"] == ["m_a", "m_b", "m_c"]


def test_composition_plot_of_long_property_combinations_warns_nothing(tmp_path):
    # Keys as long as the build's property combinations (a dozen properties): without room for
    # them matplotlib's tight_layout warned into every build log.
    from evaluation_py.analysis.schema import TABLE_PROPERTY_COLUMNS

    keys = [" + ".join(TABLE_PROPERTY_COLUMNS[i:i + 12]) for i in range(10)] + ["(other combinations)"]
    composition = pd.DataFrame({"facet": "property_combination", "key": keys,
                                "n_tables": range(11, 0, -1), "n_questions": range(110, 0, -10)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = plots.plot_composition(composition, tmp_path, "property_combination")
    assert Path(path).stat().st_size > 0


def _with_oracle(scores):
    one = scores[scores.model_name == scores.model_name.iloc[0]]
    oracle = one.assign(model_name="oracle", backend="oracle", value=1.0, n_values_given=one.n_values_expected,
                        cache_key="oracle--" + one.cache_key)
    return pd.concat([scores, oracle], ignore_index=True)


def _worded(q):
    """The planted questions with a wording each (the planted inputs have none): words shared by template."""
    return pd.DataFrame({"table_id": q["table_id"], "source": "synthetic", "template_id": q["template_id"],
                         "question": [f"what is value {t} of cell {i % 7}" for i, t in enumerate(q["template_id"])]})


def _frames(t, q, s):
    from evaluation_py.analysis.regression import property_regressions
    from evaluation_py.analysis.table_size import scores_by_table_size
    from generator_py.questions.diversity import diversity_table

    overall = pd.concat([bd.overall_scores(s).assign(level="overall"),
                         bd.scores_by_source_dataset(s).assign(level="dataset")], ignore_index=True)
    return {
        "overall": overall,
        "by_template": bd.scores_by_template(s, q),
        "by_question_property": bd.scores_by_question_property(s, q),
        "by_aggregation_type": bd.scores_by_aggregation_type(s, q),
        "by_table_format": bd.scores_by_table_format(s),
        "by_source_dataset": bd.scores_by_source_dataset(s),
        "verbosity": bd.answer_verbosity(s),
        "regression": property_regressions(s, t, q),
        "composition": benchmark_composition(t, q, include_question_properties=True),
        "by_table_size": scores_by_table_size(s, t, None, 42, q),
        "by_creation_type": bd.scores_by_creation_type(s, q.assign(creation_type="synthetic")),
        "question_diversity": diversity_table(_worded(q)),
    }


def test_creation_type_and_question_diversity_sections(inputs, frames, section):
    t, q, s = inputs
    real = q.assign(creation_type=["manual" if i % 3 else "model_generated" for i in range(len(q))])
    # only the frames of the two sections (and the overall scores): every section a frames dict fills is drawn
    with_real = {"overall": frames["overall"], "by_creation_type": bd.scores_by_creation_type(s, real),
                 "question_diversity": frames["question_diversity"]}
    creation = section(with_real, "by_creation_type")
    shown = creation.tables[0].frame
    assert set(shown["creation_type"]) == {"manual", "model_generated"} and Path(creation.figures[0][0]).is_file()
    diversity = section(with_real, "question_diversity")
    table = diversity.tables[0].frame
    assert {"all", "source"} <= set(table["level"]) and table["syntactic_similarity"].between(0, 1).all()
    assert Path(diversity.figures[0][0]).stat().st_size > 0
    # without the marts (a build before them), neither section is made
    bare = {k: v for k, v in with_real.items() if k not in ("by_creation_type", "question_diversity")}
    assert section(bare, "by_creation_type") is None
    assert section(bare, "question_diversity") is None


@pytest.fixture(scope="module")
def frames(inputs):
    """The analysis frames of the planted inputs, computed once (tests add or leave out frames on copies)."""
    return _frames(*inputs)


@pytest.fixture(scope="module")
def section(inputs, tmp_path_factory):
    """section(frames, key): the report's section ``key`` for these frames (None when the build cannot fill
    it); the sections of one frames dict are drawn once, their figures under a folder of their own."""
    from evaluation_py.analysis.report_build import report_sections

    drawn = {}

    def of(frames, key):
        if id(frames) not in drawn:  # the dict is kept with its sections, so its id is not reused
            drawn[id(frames)] = frames, report_sections(frames, inputs[2], tmp_path_factory.mktemp("sections"))[0]
        return next((x for x in drawn[id(frames)][1] if x.key == key), None)

    return of


def _section(frames, scores, key, fig_dir):
    """The report's section ``key`` for these frames (None when the build cannot fill it)."""
    from evaluation_py.analysis.report_build import report_sections

    sections, _ = report_sections(frames, scores, fig_dir)
    return next((x for x in sections if x.key == key), None)


def _report(inputs, out, models=None):
    from evaluation_py.analysis.report_build import build_report

    t, q, s = inputs
    s = _with_oracle(s if models is None else s[s.model_name.isin(models)])
    files = build_report(out, s, _frames(t, q, s), {"seed": 42, "replicas": None,
                                                    "build_fingerprint": "fp-of-the-build"})
    return files, Path(out, "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def report3(inputs, tmp_path_factory):
    """The report of three models under test and the oracle, and the warnings drawing it raised."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        files, text = _report(inputs, tmp_path_factory.mktemp("report3"))
    return files, text, [str(w.message) for w in caught]


def test_figures_draw_without_matplotlib_warnings(report3, drawn):
    assert report3[2] == []
    assert drawn[3] == []


def test_report_lists_the_models_evaluated_with_their_counts(inputs, report3):
    _, _, s = inputs
    _, text, _ = report3
    models = text[text.index("<h3>Models evaluated</h3>"):text.index("<nav>")]
    n = len(s[(s.model_name == "m_a") & (s.metric == "f1")])
    for name in ("m_a", "m_b", "m_c", "oracle"):
        assert f"<td class='txt'>{name}</td>" in models
    assert models.count(f"<td class='num'>{n}</td>") == 4  # predictions of each model (one mode counted)
    assert "baseline: the ground truth (a check of the chain)" in models
    assert "eval_models" not in text and "None" not in text
    assert "replicas: not set (default)" in text


def test_every_figure_has_a_caption_saying_what_it_shows(report3):
    files, text, _ = report3
    figures = re.findall(r"<figure><img src='([^']+)'[^>]*><figcaption>([^<]+)</figcaption></figure>", text)
    assert len(figures) == int((files.kind == "figure").sum()) >= 11
    for src, caption in figures:
        assert len(caption) > 40 and caption != Path(src).stem.replace("_", " "), (src, caption)
    coef = dict(figures)["figures/coefficients_table_f1.png"]
    assert "pools the models under test" in coef and "oracle" in coef


def test_report_opens_with_the_leaderboard_and_its_intervals(inputs, report3):
    from evaluation_py.analysis.leaderboard import leaderboard_of_scores as leaderboard

    _, _, s = inputs
    _, text, _ = report3
    sections = re.findall(r"<section id='([^']+)'><h2>", text)
    assert sections[0] == "leaderboard"
    lead = text[text.index("<section id='leaderboard'>"):text.index("</section>")]
    assert "figures/leaderboard.png" in lead
    board = leaderboard(_with_oracle(s))  # the report's scores: the oracle's rows too
    row = board[(board.model_name == "m_a") & (board.metric == "f1") & (board.scoring_mode == "strict")].iloc[0]
    assert f"[{row.ci_low:.3f}, {row.ci_high:.3f}]" in lead and row.ci_low < row["mean"] < row.ci_high
    # the baselines once, in a table of their own
    body = text[text.index("<section id='leaderboard'>"):]
    row_of = "<tr><td class='txt'>oracle</td>"  # a row whose model is the oracle
    assert lead.count(row_of) == 1 and body.count(row_of) == 1
    assert "[1.000, 1.000]" in lead


def test_report_tables_are_short_clean_and_give_their_sql(report3):
    _, text, _ = report3
    tables = re.findall(r"<table class='frame'>.*?</table>", text, re.S)
    assert len(tables) >= 10
    for t in tables:
        assert t.count("<tr>") - 1 <= 20  # the header row, then at most 20
        assert "build fingerprint" not in t and "build_fingerprint" not in t
    assert "&lt;NA&gt;" not in text and "<NA>" not in text and "(empty)" not in text and ">nan<" not in text
    assert text.count("build fingerprint: fp-of-the-build") == 1
    sqls = re.findall(r"<pre class='sql' data-rows='(\d+)'>", text)
    assert sqls and any(int(n) > 20 for n in sqls)  # a long table says how to get the rest
    assert "20 of " in text and "this query on the database returns them all" in text


def test_sections_the_build_cannot_fill_are_listed_once_with_what_fills_them(report3):
    _, text, _ = report3
    tail = text[text.index("<section id='not-answered'>"):]
    assert "Text versus image" in tail and "`formats: [image]`" in tail
    assert "several inference modes in one entry" in tail
    assert "id='text_vs_image'" not in text and "Not answered by this build" in text[:text.index("<section")]


def test_template_axes_and_tables_use_one_readable_label(inputs, report3):
    from evaluation_py.analysis.schema import template_label

    assert template_label(5) == template_label("q05") == template_label(5.0) == "q05 aggregate shown in the table"
    assert template_label("stdev") == "stdev"
    _, text, _ = report3
    section = text[text.index("<section id='by_template'>"):]
    section = section[:section.index("</section>")]
    assert "q01 one cell" in section and "q15 values of rows passing a threshold" in section


def test_report_and_figures_use_readable_property_labels(frames, section):
    from evaluation_py.analysis.schema import QUESTION_REGRESSION_PROPERTIES, TABLE_PROPERTY_COLUMNS, property_label

    for p in (*TABLE_PROPERTY_COLUMNS, *QUESTION_REGRESSION_PROPERTIES, "aggregation_aggregation_type_min"):
        assert "_" not in property_label(p) and property_label(p)[0].isupper(), p
    assert property_label("column_nesting") == "Multi Level Column"
    est = section(frames, "regression_table").tables[0].frame
    assert len(est) and not est.property.str.contains("_").any()


def test_one_model_under_test_has_per_model_panels_and_says_there_is_no_pooled_fit(inputs, report3, tmp_path):
    files, text = _report(inputs, tmp_path / "one", models=["m_a"])
    assert "a pooled fit needs two models, this build has 1" in text
    three = report3[0]
    # one panel per fit, side by side: pooled + 3 models is wider than the one model's panel
    one_w = plots.png_size(files[files.path.str.endswith("coefficients_table_f1.png")].path.iloc[0])[0]
    three_w = plots.png_size(three[three.path.str.endswith("coefficients_table_f1.png")].path.iloc[0])[0]
    assert three_w > 1.5 * one_w


def test_property_combinations_are_of_main_properties_and_not_dominated_by_other(inputs):
    from evaluation_py.analysis.composition import OTHER
    from evaluation_py.analysis.schema import TABLE_MAIN_PROPERTIES

    t, q, _ = inputs
    combo = benchmark_composition(t, q)
    combo = combo[combo.facet == "property_combination"]
    assert combo.n_tables.sum() == len(t)
    drawn = combo[~combo.key.str.startswith(OTHER)]
    for key in drawn.key:
        assert key == "standard_relational_table" or set(key.split(" + ")) <= set(TABLE_MAIN_PROPERTIES), key
    other = combo[combo.key.str.startswith(OTHER)]
    assert other.n_tables.sum() <= drawn.n_tables.max()


def test_report_composition_table_names_properties_readably(frames, section):
    comp = section(frames, "composition").tables[0].frame
    named = comp[comp.facet.isin(["property", "question_property", "property_combination"])]
    assert len(named) and not named.key.str.contains("_").any()
    assert "Multi Level Column" in set(named.key)


def test_report_has_a_judge_agreement_section_when_given(inputs, frames, section):
    from evaluation_py.analysis.judge_agreement import judge_agreement

    t, q, s = inputs
    cc = s[(s.scoring_mode == "strict") & (s.metric == "cc")].drop_duplicates("cache_key")
    judgements = cc[["model_name", "inference_mode", "cache_key"]].assign(
        judge_name="j", judge_correct=pd.array(cc.value.to_numpy() == 1.0, dtype="boolean"))  # a judge agreeing with cc
    judged = {"overall": frames["overall"],  # and the judge's frame: the sections of these two alone are drawn
              "judge_agreement": judge_agreement(judgements, cc).assign(build_fingerprint="fp")}
    agreement = section(judged, "judge_agreement")
    shown = agreement.tables[0].frame
    assert "cohen_kappa" in shown.columns and "kappa" in agreement.figures[0][1]
    assert len(shown) == cc.groupby(["model_name", "inference_mode"]).ngroups
    assert (shown.n_judge_correct_cc_incorrect == 0).all() and (shown.n_judge_incorrect_cc_correct == 0).all()
    assert section(frames, "judge_agreement") is None


def test_the_report_in_a_browser_loads_every_image_and_no_figure_overflows(report3, tmp_path):
    from evaluation_py.testing.report_browser import layout_problems, measure_report

    files, text, _ = report3
    index = files[files.kind == "report"].path.iloc[0]
    shot = tmp_path / "report.png"
    result = measure_report(index, screenshot=shot)
    assert len(result["images"]) == int((files.kind == "figure").sum()) >= 11
    assert layout_problems(result) == []
    assert all(img["width"] > 200 for img in result["images"])  # drawn, not collapsed
    from evaluation_py.testing.report_browser import SCREENSHOT_MAX_HEIGHT

    assert result["page_height"] > 3000
    assert plots.png_size(shot)[1] >= min(result["page_height"], SCREENSHOT_MAX_HEIGHT)


def test_tables_read_and_olap_sections(inputs, tmp_path):
    _, q, s = inputs
    # every third question reads two tables, every fifth asks a roll-up and every seventh grouping sets
    q2 = q.assign(n_tables=[2 if i % 3 == 0 else 1 for i in range(len(q))],
                  olap_operation=["roll-up" if i % 5 == 0 else "grouping sets" if i % 7 == 0 else None
                                  for i in range(len(q))])
    by_tables = bd.scores_by_tables_read(s, q2)
    by_olap = bd.scores_by_olap_operation(s, q2)
    assert set(by_tables["n_tables"]) == {1, 2}
    assert set(by_olap["olap_operation"]) == {"roll-up", "grouping sets", bd.NO_OLAP_OPERATION}
    # the means are those of the questions of each group
    two = set(q2.loc[q2["n_tables"] == 2, "question_id"])
    strict = s[(s["scoring_mode"] == "strict") & (s["metric"] == "f1") & (s["model_name"] == "m_a")]
    strict = strict[strict["table_format"] == strict["table_format"].iloc[0]]
    row = by_tables[(by_tables["model_name"] == "m_a") & (by_tables["scoring_mode"] == "strict")
                    & (by_tables["metric"] == "f1") & (by_tables["n_tables"] == 2)]
    assert row["value"].iloc[0] == pytest.approx(strict.loc[strict["question_id"].isin(two), "value"].mean())
    assert row["n"].iloc[0] == strict["question_id"].isin(two).sum() > 0
    # only these marts (the others' sections are not asked for here; no leaderboard: none is computed)
    frames = {"leaderboard": pd.DataFrame(), "by_tables_read": by_tables, "by_olap_operation": by_olap}
    tables_section = _section(frames, s, "by_tables_read", tmp_path)
    olap_section = _section(frames, s, "by_olap_operation", tmp_path)
    assert set(tables_section.tables[0].frame["n_tables"]) == {1, 2}
    assert set(olap_section.tables[0].frame["olap_operation"]) == {"roll-up", "grouping sets", "none"}
    for section in (tables_section, olap_section):
        assert Path(section.figures[0][0]).stat().st_size > 2000
    # a build without such questions: no section, and the breakdowns without the columns are empty
    one_table = {**frames, "by_tables_read": bd.scores_by_tables_read(s, q.assign(n_tables=1)),
                 "by_olap_operation": bd.scores_by_olap_operation(s, q.assign(olap_operation=None))}
    assert _section(one_table, s, "by_tables_read", tmp_path) is None
    assert _section(one_table, s, "by_olap_operation", tmp_path) is None
    assert bd.scores_by_tables_read(s, q).empty and bd.scores_by_olap_operation(s, q).empty
