"""The TReB families (suite treb): exact answers on a hand-checked table, their SQL text run in DuckDB, the
independent numpy cross-check, NL per family, the suites var and what the default build keeps."""
from __future__ import annotations

import json

import duckdb
import pandas as pd
import pytest

from generator_py.dbt_glue.vars import question_suites_var
from generator_py.answers.computed_cross_check import CheckedTable, family_cross_check, relational_columns
from generator_py.core.formatting import format_number
from generator_py.questions import generate_questions, load_domain_nl
from generator_py.questions.families import FAMILIES, TREB_FAMILIES, families_for_suites
from generator_py.questions.families.computed import answer_text
from generator_py.questions.table_model import TableModel
from generator_py.questions.types import NLTemplateError
from support import question_fixtures, treb_fixtures

BOTH = families_for_suites(["hctqa", "treb"])


@pytest.fixture(scope="module")
def hand():
    t = treb_fixtures.hand_table()
    object.__setattr__(t, "header_cells", treb_fixtures.header_cells(t))
    return t


@pytest.fixture(scope="module")
def model(hand):
    return TableModel(hand)


def _f(attr, *values):
    return {"attribute": attr, "values": list(values)}


FIRE_FATAL = [_f("Event", "Fire"), _f("Severity", "Fatal")]


@pytest.mark.parametrize("family, spec, expected", [
    # [10, 20, 30, 40]: mean 25, squares 500, / (4 - 1), sqrt
    ("stdev", {"computation": "stddev_samp", "filters": FIRE_FATAL}, "12.91"),
    ("median", {"computation": "median", "filters": [_f("Event", "Fire"), _f("Severity", "Minor")]}, "6.5"),
    ("median", {"computation": "median", "filters": [_f("Event", "Fire"), _f("Severity", "Minor"),
                                                     _f("Year", "2020", "2021", "2022")]}, "6"),
    ("pct_change", {"computation": "pct_change", "first": FIRE_FATAL + [_f("Year", "2020")],
                    "second": FIRE_FATAL + [_f("Year", "2023")]}, "300"),
    ("pct_change", {"computation": "pct_change", "first": [_f("Event", "Traffic"), _f("Severity", "Fatal"),
                                                           _f("Year", "2020")],
                    "second": [_f("Event", "Traffic"), _f("Severity", "Fatal"), _f("Year", "2022")]}, "-75"),
    # 2020: Fire 10 + 5, Traffic 8 + 1
    ("agg_ratio", {"computation": "ratio", "function": "sum", "first": [_f("Event", "Fire"), _f("Year", "2020")],
                   "second": [_f("Event", "Traffic"), _f("Year", "2020")]}, "1.67"),
    ("agg_ratio", {"computation": "ratio", "function": "min", "first": [_f("Event", "Fire"), _f("Year", "2020")],
                   "second": [_f("Event", "Traffic"), _f("Year", "2020")]}, "5"),
    ("agg_ratio", {"computation": "ratio", "function": "max", "first": [_f("Event", "Fire"), _f("Year", "2020")],
                   "second": [_f("Event", "Traffic"), _f("Year", "2020")]}, "1.25"),
    # [10, 20, 30, 40] vs [1, 3, 5, 7]: linear; vs [8, 8, 2, 4]: -90 / sqrt(500 * 27)
    ("correlation", {"computation": "correlation", "paired_by": "col", "first": FIRE_FATAL,
                     "second": [_f("Event", "Traffic"), _f("Severity", "Minor")]}, "1"),
    ("correlation", {"computation": "correlation", "paired_by": "col", "first": FIRE_FATAL,
                     "second": [_f("Event", "Traffic"), _f("Severity", "Fatal")]}, "-0.77"),
    ("title_name", {"computation": "title"}, "Number of accidents"),
    # the formulas the question states: 2020 -> 2023 of Fire / Fatal is 10 -> 40
    ("index_to_base", {"computation": "index", "year_attribute": "Year", "first": FIRE_FATAL + [_f("Year", "2020")],
                       "second": FIRE_FATAL + [_f("Year", "2023")]}, "400"),
    # 100 * (4 ** (1 / 3) - 1) = 58.740...
    ("cagr", {"computation": "cagr", "year_attribute": "Year", "first": FIRE_FATAL + [_f("Year", "2020")],
              "second": FIRE_FATAL + [_f("Year", "2023")]}, "58.74"),
    # 8 of 8 + 1 + 8 + 3 (Traffic 2020, 2021: Fatal 8, 8; Minor 1, 3)
    ("share_of_total", {"computation": "share", "first": [_f("Event", "Traffic"), _f("Severity", "Fatal"),
                                                          _f("Year", "2020")],
                        "second": [_f("Event", "Traffic"), _f("Year", "2020", "2021")]}, "40"),
])
def test_family_answers_by_hand(family, spec, expected, hand, model):
    fam = BOTH.get(family)
    assert fam.compute(spec, model, {}) == [[expected]]
    # the numpy cross-check reads the same spec from int_relational_rows-shaped rows and agrees
    q = {"question_id": "q", "table_id": hand.table_id, "family": family, "spec_json": json.dumps(spec),
         "py_answer_json": json.dumps([[expected]])}
    import pandas as pd
    grid = pd.DataFrame([(hand.table_id, 1, 1, "", "Number of accidents")],
                        columns=["table_id", "grid_row", "grid_col", "text", "caption"])
    out = family_cross_check(pd.DataFrame([q]), treb_fixtures.relational_rows([hand]), grid)
    assert out["check_answer"].tolist() == [expected] and out["agrees"].tolist() == [True]


def test_unaskable_draws_are_refused(model):
    stdev, pct, ratio, corr = (BOTH.get(f) for f in ("stdev", "pct_change", "agg_ratio", "correlation"))
    # two cells are too few for a standard deviation; constant values have none worth asking
    assert stdev.compute({"computation": "stddev_samp", "filters": FIRE_FATAL + [_f("Year", "2020", "2021")]},
                         model, {}) is None
    # a percentage change needs one cell on each side
    assert pct.compute({"computation": "pct_change", "first": FIRE_FATAL, "second": FIRE_FATAL}, model, {}) is None
    # a ratio of one cell to another is no ratio of aggregates
    one = [_f("Event", "Fire"), _f("Severity", "Fatal"), _f("Year", "2020")]
    assert ratio.compute({"computation": "ratio", "function": "sum", "first": one, "second": one}, model, {}) is None
    # a correlation with a constant series is undefined
    assert corr.compute({"computation": "correlation", "paired_by": "col", "first": FIRE_FATAL,
                         "second": [_f("Event", "Fire"), _f("Severity", "Fatal"), _f("Year", "2020")]},
                        model, {}) is None


def test_absent_year_names_a_year_next_to_those_shown_and_is_answered_by_the_refusal(hand, model):
    import random
    fam = BOTH.get("absent_year")
    rows = treb_fixtures.relational_rows([hand])
    table = CheckedTable(relational_columns(rows)[hand.table_id], None, {})
    years = set()
    for seed in range(40):
        spec, _ = fam.draw(model, random.Random(seed), "default")
        (year,) = [f["values"][0] for f in spec["filters"] if f["attribute"] == "Year"]
        years.add(year)
        assert fam.compute(spec, model, {}) == [["no answer"]]
        assert fam.cross_check(spec, table) == "no answer"
        # the rest of the lookup is one cell of the table: only the year makes it unanswerable
        shown = [dict(f, values=["2021"]) if f["attribute"] == "Year" else f for f in spec["filters"]]
        assert len(table.columns.values(shown)) == 1
        assert fam.compute({**spec, "filters": shown}, model, {}) is None
        assert fam.cross_check({**spec, "filters": shown}, table) != "no answer"
    assert years <= {"2017", "2018", "2019", "2024", "2025", "2026"} and len(years) >= 4


def test_formulas_refuse_what_they_cannot_state(model):
    cagr, share = BOTH.get("cagr"), BOTH.get("share_of_total")
    # a growth rate needs one cell on each side; a share of a total not holding the cell is none
    assert cagr.compute({"computation": "cagr", "year_attribute": "Year", "first": FIRE_FATAL + [_f("Year", "2020")],
                         "second": FIRE_FATAL}, model, {}) is None  # the later side is four cells
    assert share.compute({"computation": "share", "first": FIRE_FATAL + [_f("Year", "2020")],
                          "second": [_f("Event", "Traffic"), _f("Year", "2020", "2021")]}, model, {}) is None


@pytest.mark.parametrize("kind, expected", [
    ("descending", [["4"], ["2"]]), ("one_decimal", [["2.0"], ["4.0"]]), ("max_words", [["2"], ["4"]])])
def test_instruction_following_answers_in_the_form_it_asks(kind, expected, model):
    import random
    fam = BOTH.get("instruction_following")
    cells = [_f("Event", "Traffic"), _f("Severity", "Fatal"), _f("Year", "2022", "2023")]  # 2 and 4
    spec = {"computation": "instructed_lookup", "filters": cells, "instruction": {"kind": kind}}
    if kind == "max_words":
        spec["instruction"]["words"] = 2
    assert fam.compute(spec, model, {}) == expected
    text = fam.finish_question("What are the numbers?", spec)
    assert text.startswith("What are the numbers? ") and {"descending": "descending order",
                                                          "one_decimal": "one decimal",
                                                          "max_words": "at most 2 words"}[kind] in text
    # a drawn max_words instruction allows as many words as values asked
    for seed in range(20):
        drawn, _ = fam.draw(model, random.Random(seed), "default")
        if drawn["instruction"]["kind"] == "max_words":
            n = len(filter_rows(model, drawn["filters"]))
            assert drawn["instruction"]["words"] == n >= 2


def test_one_decimal_rounds_the_value_as_printed_and_skips_ties():
    from fractions import Fraction
    from generator_py.questions.families.instructions import one_decimal
    # 39.05 is stored a hair below, but the table prints 39.05: a tie, not asked
    assert [one_decimal(Fraction(v)) for v in (39.05, -2.35, -2.34, 3.46, 7.0)] == [None, None, "-2.3", "3.5", "7.0"]


def filter_rows(model, filters):
    from generator_py.questions.spec import filtered_rows
    return filtered_rows(model.rows, {"filters": filters})


def test_fact_check_states_the_cell_or_a_rule_made_wrong_value_half_and_half(hand, model):
    import random
    fam = BOTH.get("fact_check")
    table = CheckedTable(relational_columns(treb_fixtures.relational_rows([hand]))[hand.table_id], None, {})
    answers, strategies = [], set()
    for seed in range(200):
        spec, _ = fam.draw(model, random.Random(seed), "default")
        (answer,), = fam.compute(spec, model, {})
        right = format_number(table.columns.single(spec["filters"]))
        assert (answer == "true") == (spec["stated"] == right) == (spec["distractor"] is None)
        assert fam.cross_check(spec, table) == answer
        assert fam.finish_question("The number is", spec) == f"The number is {spec['stated']}. Answer true or false."
        answers.append(answer)
        strategies.add(spec["distractor"])
    assert 80 <= answers.count("true") <= 120  # one half each
    assert "sibling_condition" in strategies


def test_answers_near_a_rounding_tie_are_not_asked():
    assert answer_text(0.125) is None  # 12.5 hundredths: floats could print 0.12 or 0.13
    assert answer_text(1.23456) == [["1.23"]] and answer_text(-2.5) == [["-2.5"]]


def test_header_naming_blanks_a_header_shown_once(hand, model):
    fam = BOTH.get("header_name")
    import random
    seen = set()
    for s in range(40):
        spec, _ = fam.draw(model, random.Random(s), "paper")
        (text,), = fam.compute(spec, model, {})
        seen.add(text)
        assert fam.rendering_change(spec, {})["blank_cell"] == (spec["grid_row"], spec["grid_col"])
    # Fatal and Minor repeat under each Event: never asked; the years and events are
    assert seen == {"2020", "2021", "2022", "2023", "Fire", "Traffic"}


@pytest.fixture(scope="module")
def seed_questions(seed_frames, toy_tables):
    """Both suites drawn on tables of every seed domain (the TReB phrasings of seeds/nl_templates_treb.csv)."""
    import pandas as pd
    from support.toy_tables import SEEDS
    treb_rows = pd.read_csv(SEEDS / "nl_templates_treb.csv", dtype=str, keep_default_na=False)
    nl_rows = pd.concat([seed_frames["nl_templates"], treb_rows], ignore_index=True)
    out = []
    for dom, tn in toy_tables.domains():
        nl = load_domain_nl(nl_rows, seed_frames["nl_table_meanings"], seed_frames["domain_attributes"], dom, tn,
                            families=BOTH)
        for i in range(3):
            t = toy_tables.table(dom, i, seed=7)
            out.append((t, nl, generate_questions(t, nl, 5, families=BOTH)))
    return out


def test_every_computation_family_is_asked_in_every_domain(seed_questions):
    by_domain = {}
    for t, _, qs in seed_questions:
        by_domain.setdefault(t.domain, set()).update(q.family for q in qs if q.suite == "treb")
    computing = {"stdev", "median", "pct_change", "agg_ratio", "correlation", "title_name"}
    assert all(computing <= fams for fams in by_domain.values()), by_domain


def test_sql_text_states_the_computation(seed_questions):
    """Each computation question's SQL, run by DuckDB on its relational table, gives its answer."""
    con = duckdb.connect()
    n = 0
    for t, _, qs in seed_questions:
        con.register("T", t.frame)
        for q in qs:
            if q.kind != "computed":
                continue
            if q.answer_type == "refusal":  # the lookup it asks selects no cell
                assert con.execute(q.sql).fetchall() == [] and q.answer_rows == [["no answer"]], q.question_id
                continue
            if "instruction" in q.spec:  # the cells it lists, in the order the instruction asks
                got = [v for (v,) in con.execute(q.sql).fetchall()]
                kind = q.spec["instruction"]["kind"]
                printed = [f"{v:.1f}" if kind == "one_decimal" else format_number(v) for v in got]
                assert printed == [r[0] for r in q.answer_rows] or kind != "descending" and \
                    sorted(printed) == sorted(r[0] for r in q.answer_rows), (q.question_id, q.sql)
                n += 1
                continue
            (value,), = con.execute(q.sql).fetchall()
            if q.answer_type in ("boolean", "labels"):  # a verdict or a category, as text
                assert value == q.answer_rows[0][0], (q.question_id, q.sql)
                n += 1
                continue
            assert format_number(value) == q.answer_rows[0][0], (q.question_id, q.sql)
            n += 1
        con.unregister("T")
    assert n >= 50


def test_cross_check_agrees_and_catches_a_wrong_answer(seed_questions):
    import pandas as pd
    tables = [t for t, _, _ in seed_questions]
    qs = [q for _, _, qq in seed_questions for q in qq if q.kind == "computed"]
    frame = pd.DataFrame([{"question_id": q.question_id, "table_id": q.table_id, "family": q.family,
                           "spec_json": json.dumps(q.spec), "py_answer_json": json.dumps(q.answer_rows)} for q in qs])
    grid = pd.DataFrame(columns=["table_id", "grid_row", "grid_col", "text", "caption"])
    rows = treb_fixtures.relational_rows(tables)
    assert family_cross_check(frame, rows, grid)["agrees"].all()
    wrong = frame.copy()
    wrong.loc[0, "py_answer_json"] = json.dumps([[format_number(float(qs[0].answer_rows[0][0]) + 0.01)]])
    out = family_cross_check(wrong, rows, grid)
    assert out.loc[~out["agrees"], "question_id"].tolist() == [qs[0].question_id]


def test_questions_name_every_condition_and_both_sides(seed_questions):
    for _, _, qs in seed_questions:
        for q in qs:
            if q.suite != "treb":
                continue
            assert q.template_id is None and q.metadata["template_id"] is None
            for lit in q.sql_literals:
                assert lit in q.question, (q.question_id, lit, q.question)
            if q.family == "stdev":
                assert "sample" in q.question.lower()  # the question says which standard deviation
            if q.family in ("pct_change", "agg_ratio", "correlation"):
                assert q.spec["first"] != q.spec["second"]
            # the answer has the shape its type says
            first = q.answer_rows[0]
            assert (q.answer_type == "text") == (q.kind == "naming"), q.question_id
            if q.answer_type == "refusal":
                assert q.answer_rows == [["no answer"]]
            elif q.answer_type == "boolean":
                assert q.answer_rows in ([["true"]], [["false"]], [["yes"]], [["no"]]), q.question_id
            elif q.answer_type == "values":
                assert all(float(v) == float(v) for row in q.answer_rows for v in row), q.question_id
            elif q.answer_type == "labels":
                assert len(q.answer_rows) == 1 and first and all(isinstance(v, str) and v for v in first)


def test_the_hctqa_draws_do_not_change_with_treb_added(seed_questions):
    for t, nl, qs in seed_questions:
        alone = generate_questions(t, nl, 5, families=FAMILIES)
        assert [q for q in qs if q.suite == "hctqa"] == alone
        assert all(q.suite == "hctqa" for q in alone)


def test_nl_of_the_treb_families_belongs_to_a_build_with_them():
    _, meanings = question_fixtures.toy_nl_frames()
    frames = treb_fixtures.treb_nl_frames()
    # a build without the treb suite does not read their seed; handed its rows, it names the first
    with pytest.raises(NLTemplateError, match="template_id 16 is the NL of no question family of the build"):
        load_domain_nl(frames, meanings, question_fixtures.ATTRS, "toy", "ref", families=FAMILIES)
    nl = load_domain_nl(frames, meanings, question_fixtures.ATTRS, "toy", "ref", families=BOTH)
    assert {f.nl.template_id for f in TREB_FAMILIES} <= set(nl.templates)
    # with the suite, every family needs its phrasings, and they follow its NL requirements
    missing = frames[frames["template_id"] != 18]
    with pytest.raises(NLTemplateError, match=r"no template for template_id \[18\]"):
        load_domain_nl(missing, meanings, question_fixtures.ATTRS, "toy", "ref", families=BOTH)
    no_nested = frames.copy()
    no_nested.loc[no_nested["template_id"] == 18, "text"] = "What is the change of the number in_$Year ?"
    with pytest.raises(NLTemplateError, match=r"template 18 needs \$NESTED"):
        load_domain_nl(no_nested, meanings, question_fixtures.ATTRS, "toy", "ref", families=BOTH)


def test_question_suites_var():
    assert question_suites_var(None) == ("hctqa",)
    assert question_suites_var("['treb', 'hctqa']") == ("hctqa", "treb")  # suite order, hctqa first
    for bad in ("[]", "['tabis']", "3"):
        with pytest.raises(ValueError, match="var question_suites"):
            question_suites_var(bad)


def _grid():
    from generator_py.grid.cells import Cell, TableGrid
    cells = [Cell(1, 1, 1, 1, "corner", ""), Cell(1, 2, 1, 1, "column_header", "2020"),
             Cell(1, 3, 1, 1, "column_header", "2021"), Cell(2, 1, 1, 1, "row_header", "Fire"),
             Cell(2, 2, 1, 1, "data", "10"), Cell(2, 3, 1, 1, "data", "20")]
    return TableGrid(tuple(cells), header_rows=1, header_columns=1, caption="Number of accidents")


def test_question_grid_hides_the_asked_part_in_every_format():
    from generator_py.render.question_grid import question_grid
    from generator_py.render.registry import format_names, render
    grid = _grid()
    blanked = question_grid(grid, blank_cell=(1, 3))
    for name in format_names(text_only=True):
        before, after = render(grid, name), render(blanked, name)
        assert "2021" in before and "2021" not in after and "2020" in after and "Fire" in after, name
    assert "<caption>" in render(blanked, "html")
    untitled = question_grid(grid, hides_caption=True)
    assert "Number of accidents" not in render(untitled, "html") and "2021" in render(untitled, "html")
    # the grid itself is the table's otherwise: same cells, positions and spans
    assert [(c.grid_row, c.grid_col, c.role) for c in blanked.cells] == [(c.grid_row, c.grid_col, c.role)
                                                                         for c in grid.cells]


def test_question_grid_refuses_a_cell_that_is_no_header():
    from generator_py.render.question_grid import question_grid
    with pytest.raises(ValueError, match=r"question syn--x--header_name: .*\(2, 2\) is no header cell"):
        question_grid(_grid(), blank_cell=(2, 2), question_id="syn--x--header_name")
    with pytest.raises(ValueError, match=r"\(5, 5\) is no header cell"):
        question_grid(_grid(), blank_cell=(5, 5))


def test_question_renderings_cover_the_hiding_questions_only():
    import pandas as pd
    from generator_py.render.question_grid import RENDERING_COLUMNS, question_renderings_table
    qs = pd.DataFrame([("t--title_name", "t", True, None, None), ("t--header_name", "t", False, 1, 2),
                       ("t--q01", "t", False, None, None)],
                      columns=["question_id", "table_id", "hides_caption", "blank_grid_row", "blank_grid_col"])
    table = question_renderings_table([("t", _grid())], qs)
    assert table.column_names == list(RENDERING_COLUMNS)
    rows = {r["question_id"]: r for r in table.to_pylist()}
    assert sorted(rows) == ["t--header_name", "t--title_name"]
    assert "<caption>" not in rows["t--title_name"]["rendering_html"]
    assert '"2020"' not in rows["t--header_name"]["rendering_csv"]
    empty = question_renderings_table([("t", _grid())], qs.iloc[2:])
    assert empty.num_rows == 0 and str(empty.schema.field("rendering_html").type) == "string"


def test_a_bad_treb_phrasing_names_its_own_seed_file_and_line():
    from generator_py.questions.domain_nl import tag_seed_rows
    _, meanings = question_fixtures.toy_nl_frames()
    base, _ = question_fixtures.toy_nl_frames()
    treb = treb_fixtures.treb_nl_frames().iloc[len(base):].reset_index(drop=True)
    treb.loc[treb["template_id"] == 19, "text"] = "What is the ratio of the numbers $NESTED of_$Year ?"
    rows = pd.concat([tag_seed_rows(base, "seeds/nl_templates.csv"), tag_seed_rows(treb, "seeds/nl_templates_treb.csv")],
                     ignore_index=True)
    line = int(treb.index[treb["template_id"] == 19][0]) + 2
    with pytest.raises(NLTemplateError, match=rf"seeds/nl_templates_treb.csv: row .*template_id=19.*line {line}\).*needs \$EXPR"):
        load_domain_nl(rows, meanings, question_fixtures.ATTRS, "toy", "ref", families=BOTH)
