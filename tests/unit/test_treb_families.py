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
    """Both suites drawn on tables of every seed domain (the TReB phrasings of seeds/nl_templates_treb.csv),
    each table's measure with its domain's knowledge (groupings, units, range: treb_fixtures.seed_measures)."""
    import pandas as pd
    from support.toy_tables import SEEDS
    treb_rows = pd.read_csv(SEEDS / "nl_templates_treb.csv", dtype=str, keep_default_na=False)
    nl_rows = pd.concat([seed_frames["nl_templates"], treb_rows], ignore_index=True)
    measures = treb_fixtures.seed_measures()
    out = []
    for dom, tn in toy_tables.domains():
        nl = load_domain_nl(nl_rows, seed_frames["nl_table_meanings"], seed_frames["domain_attributes"], dom, tn,
                            families=BOTH)
        for i in range(4):
            t = toy_tables.table(dom, i, seed=7)
            measure = measures[(dom, tn)]
            out.append((t, nl, generate_questions(t, nl, 5, families=BOTH, measure=measure), measure))
    return out


def test_every_treb_family_is_asked_and_the_computations_in_every_domain(seed_questions):
    by_domain = {}
    for t, _, qs, _ in seed_questions:
        by_domain.setdefault(t.domain, set()).update(q.family for q in qs if q.suite == "treb")
    # every registered TReB family is asked somewhere (but those reading header cells, which toy tables lack);
    # those every table can have, in every domain
    expected = {f.family_id for f in (TREB_FAMILIES.get(n) for n in TREB_FAMILIES.ids()) if not f.reads_header_cells}
    assert set().union(*by_domain.values()) == expected, by_domain
    computing = {"stdev", "median", "pct_change", "agg_ratio", "correlation", "title_name", "robustness",
                 "plausibility", "table_summary", "weighted_average"}
    assert all(computing <= fams for fams in by_domain.values()), by_domain


def _printed(v, kind=None) -> str:
    if isinstance(v, float) and kind == "one_decimal":
        return f"{v:.1f}"
    return format_number(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def test_sql_text_states_the_computation(seed_questions):
    """Each computed question's SQL, run by DuckDB on its relational table, gives its answer's values (in its
    order where it asks one); a question the table cannot answer selects nothing."""
    con = duckdb.connect()
    n = 0
    for t, _, qs, _ in seed_questions:
        con.register("T", t.frame)
        for q in qs:
            if q.kind == "sql" or q.sql is None:
                continue
            got = con.execute(q.sql).fetchall()
            if q.answer_type == "refusal":  # the lookup it asks selects no cell
                assert got == [] and q.answer_rows == [["no answer"]], q.question_id
                continue
            kind = (q.spec.get("instruction") or {}).get("kind")
            printed = [_printed(v, kind) for row in got for v in row if v is not None]
            want = [v for row in q.answer_rows for v in row]
            if kind == "descending":
                assert printed == want, (q.question_id, q.sql)
            else:
                assert sorted(printed) == sorted(want), (q.question_id, q.sql, printed, want)
            n += 1
        con.unregister("T")
    assert n >= 200


def test_cross_check_agrees_and_catches_a_wrong_answer(seed_questions):
    import pandas as pd
    tables = [t for t, _, _, _ in seed_questions]
    # every family checked from the relational rows alone (title and header naming read the grid: e2e)
    qs = [q for _, _, qq, _ in seed_questions for q in qq if q.kind != "sql" and q.family not in ("title_name", "header_name")]
    assert {q.family for q in qs} >= {"robustness", "plausibility", "table_summary", "semantic_selection"}
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
    for _, _, qs, _ in seed_questions:
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
            assert q.answer_type == BOTH.get(q.family).answer_type
            # the answer has the shape its type says
            first = q.answer_rows[0]
            assert (q.answer_type == "text") == (q.kind in ("naming", "summary")), q.question_id
            if q.answer_type == "refusal":
                assert q.answer_rows == [["no answer"]]
            elif q.answer_type == "boolean":
                assert q.answer_rows in ([["true"]], [["false"]], [["yes"]], [["no"]]), q.question_id
            elif q.answer_type == "labels":
                assert len(q.answer_rows) == 1 and first and all(isinstance(v, str) and v for v in first)


def test_the_hctqa_draws_do_not_change_with_treb_added(seed_questions):
    for t, nl, qs, measure in seed_questions:
        alone = generate_questions(t, nl, 5, families=FAMILIES, measure=measure)
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


# ---------------------------------------------------------------- families reading the domain's knowledge

def _knowledge(**groupings):
    from generator_py.vocabulary.knowledge import DomainKnowledge, Grouping
    ancestors = {"Event": {"Fire": (), "Traffic": (), "Flood": ()}, "Severity": {"Fatal": (), "Minor": (), "Serious": ()},
                 "Year": {y: () for y in ("2019", "2020", "2021", "2022", "2023")}}
    grouped = {a: tuple(Grouping(a, phrase, tuple(m)) for phrase, m in gs.items()) for a, gs in groupings.items()}
    return DomainKnowledge(ancestors, grouped, "accidents", (0.0, 100.0), True)


@pytest.fixture(scope="module")
def known(hand):
    from generator_py.questions.types import Measure
    k = _knowledge(Year={"the early years": ["2020", "2021"], "the first three years": ["2020", "2021", "2022"]})
    return TableModel(hand, measure=Measure(knowledge=k))


def _checked(family, spec, model, hand, expected_text):
    """The family's answer and its numpy cross-check, both as the data test compares them."""
    from generator_py.answers.computed_cross_check import answer_text as joined
    rows = BOTH.get(family).compute(spec, model, {})
    table = CheckedTable(relational_columns(treb_fixtures.relational_rows([hand]))[hand.table_id], None, {})
    assert joined(rows) == expected_text == BOTH.get(family).cross_check(spec, table)
    return rows


def test_weighted_average_and_the_grouped_families_by_hand(hand, known):
    # Fatal 2020: Fire 10, Traffic 8; weights 3 and 1: (30 + 8) / 4
    _checked("weighted_average", {"computation": "weighted_average", "attribute": "Event",
                                  "filters": [_f("Event", "Fire", "Traffic"), _f("Severity", "Fatal"), _f("Year", "2020")],
                                  "weights": [["Fire", 3], ["Traffic", 1]]}, known, hand, "9.5")
    early = {"attribute": "Year", "phrase": "the early years", "parent": None, "members": ["2020", "2021"]}
    _checked("fuzzy_query", {"computation": "grouped_aggregate", "function": "sum", "grouping": early,
                             "filters": FIRE_FATAL + [_f("Year", "2020", "2021")]}, known, hand, "30")
    three = {"attribute": "Year", "phrase": "the first three years", "parent": None, "members": ["2020", "2021", "2022"]}
    # Fire / Minor: 5, 7, 6 in 2020-2022
    rows = _checked("semantic_selection", {"computation": "grouped_selection", "grouping": three,
                                           "filters": [_f("Event", "Fire"), _f("Severity", "Minor"),
                                                       _f("Year", "2020", "2021", "2022")],
                                           "value_condition": {"op": ">", "threshold": "5.5"}}, known, hand, "2021 | 2022")
    assert rows == [["2021"], ["2022"]]


def test_grouped_questions_say_the_phrase_and_resolve_the_shown_members(known):
    import random
    fuzzy, selection = BOTH.get("fuzzy_query"), BOTH.get("semantic_selection")
    asked = 0
    for seed in range(30):
        for fam in (fuzzy, selection):
            drawn = fam.draw(known, random.Random(seed), "paper")
            if drawn is None or not fam.compute(drawn[0], known, {}):
                continue
            spec = drawn[0]
            g = spec["grouping"]
            assert g["members"] in (["2020", "2021"], ["2020", "2021", "2022"])
            assert next(f["values"] for f in spec["filters"] if f["attribute"] == "Year") == g["members"]
            sql, facts, _ = fam.statement(spec, known)
            assert g["phrase"] in facts.literals and "2020" not in facts.literals and "IN ('2020', '2021'" in sql
            asked += 1
    assert asked >= 30


def test_plausibility_plants_a_value_far_outside_the_range_and_asks_a_control(hand, known):
    import random
    from generator_py.questions.families.plausibility import implausible
    fam = BOTH.get("plausibility")
    kinds = set()
    for seed in range(30):
        spec, _ = fam.draw_next(known, random.Random(seed), "paper", [])
        planted = spec["implausible"]
        kinds.add(planted["kind"])
        assert implausible(planted["value"], planted["kind"], 0.0, 100.0)
        assert planted["value"] >= 250 or planted["value"] < 0  # 1.5 range widths above 100, or negative
        path = spec["row_path"] + spec["col_path"]
        _checked("plausibility", spec, known, hand, " | ".join(path))
        assert fam.rendering_change(spec, {})["grid_change"] == {"kind": "set_value", "row_path": spec["row_path"],
                                                                 "col_path": spec["col_path"], "text": planted["text"]}
        control, _ = fam.draw_next(known, random.Random(seed), "paper", [spec])
        assert fam.compute(control, known, {}) == [["none"]] and fam.rendering_change(control, {})["grid_change"] is None
        assert fam.draw_next(known, random.Random(seed), "paper", [spec, control]) is None
    assert kinds == {"above_range", "negative"}


def test_table_summary_by_hand(hand, known):
    fam = BOTH.get("table_summary")
    spec, _ = fam.draw(known, None, "paper")
    _checked("table_summary", spec, known, hand,
             "The table shows the number of accidents by event, severity and year. Its highest value is 40 (Fire, "
             "Fatal, 2023) and its lowest is 1 (Traffic, Minor, 2020). Its values add up to 168. From 2020 to 2023 "
             "the total rose from 24 to 63.")


def test_absent_category_names_a_vocabulary_label_the_table_lacks(hand, known):
    import random
    fam = BOTH.get("absent_category")
    assert {(a, tuple(ls)) for a, ls in fam.absent_options(known)} == {
        ("Event", ("Flood",)), ("Severity", ("Serious",))}  # years are absent_year's
    for seed in range(10):
        spec, _ = fam.draw(known, random.Random(seed), "paper")
        _checked("absent_category", spec, known, hand, "no answer")
    assert not BOTH.get("absent_branch").applicable(known)  # no hierarchy: no branch to be absent


def test_absent_branch_names_a_leaf_under_an_ancestor_the_table_lacks(seed_questions):
    seen = 0
    for t, _, qs, measure in seed_questions:
        for q in qs:
            if q.family != "absent_branch":
                continue
            label = next(f["values"][0] for f in q.spec["filters"] if f["attribute"] == q.spec["absent_attribute"])
            top = measure.knowledge.ancestors[q.spec["absent_attribute"]][label][0]
            shown = set(t.frame[[a.name for a in t.attributes if a.level == 1]].to_numpy().ravel())
            assert top not in shown and label in q.question and q.answer_rows == [["no answer"]]
            seen += 1
    assert seen >= 5


def test_instruction_names_asks_the_largest_label_in_upper_case(hand, known):
    from evaluation_py.scoring.instructions import followed, write
    spec = {"computation": "largest_label", "attribute": "Event", "instruction": {"kind": "upper_case"},
            "filters": [_f("Event", "Fire", "Traffic"), _f("Severity", "Fatal"), _f("Year", "2022")]}  # 30, 2
    rows = _checked("instruction_names", spec, known, hand, "Fire")
    assert write([rows[0][0]], spec["instruction"]) == "FIRE" and followed("FIRE", spec["instruction"]) == 1.0
    assert followed("Fire", spec["instruction"]) == 0.0
    assert BOTH.get("instruction_names").finish_question("Which event?", spec).endswith("upper-case letters only.")


def test_robustness_asks_one_lookup_on_the_table_and_each_perturbed_view(hand, known):
    import random
    from generator_py.questions.families.robustness import PERTURBATIONS
    fam = BOTH.get("robustness")
    rng = random.Random(3)
    asked = []
    while (drawn := fam.draw_next(known, rng, "paper", asked)) is not None:
        asked.append(drawn[0])
    assert [fam.view_name(s) for s in asked] == ["original", *PERTURBATIONS]
    assert all(s["filters"] == asked[0]["filters"] for s in asked)
    assert {fam.compute(s, known, {})[0][0] for s in asked} == {fam.compute(asked[0], known, {})[0][0]}
    changes = [fam.rendering_change(s, {})["grid_change"] for s in asked]
    assert changes[0] is None and [c["kind"] for c in changes[1:]] == [
        "permute_rows", "permute_columns", "header_noise", "content_variant", "content_variant"]
    assert changes[4]["keep"] == sorted(v for f in asked[0]["filters"] for v in f["values"])


def test_robustness_views_repeat_the_question_text(seed_questions):
    groups = {}
    for _, _, qs, _ in seed_questions:
        for q in qs:
            if q.family == "robustness":
                groups.setdefault(q.table_id, []).append(q)
    assert len(groups) >= 20
    for qs in groups.values():
        assert len({q.question for q in qs}) == 1 and len({q.answer_rows[0][0] for q in qs}) == 1
        assert [q.grid_change is None for q in qs] == [True] + [False] * (len(qs) - 1)


def test_column_values_naming_lists_the_sibling_labels(hand, known):
    fam = BOTH.get("column_values_name")
    assert sorted(p for p, _ in fam.options(known)) == [("2020",), ("2021",), ("2022",), ("2023",)]
    spec = {"computation": "column_header", "col_path": ["2021"], "candidates": ["2020", "2021", "2022", "2023"]}
    _checked("column_values_name", spec, known, hand, "2021")
    assert fam.finish_question("Name it.", spec) == "Name it. It is one of: 2020, 2021, 2022 or 2023."
    assert fam.rendering_change(spec, {})["grid_change"] == {"kind": "column_view", "col_path": ["2021"]}


def test_knowledge_seeds_are_checked_naming_file_line_and_problem():
    import pandas as pd
    from generator_py.core.errors import SeedError
    from generator_py.vocabulary.domains import load_domains
    from generator_py.vocabulary.knowledge import load_groupings, load_units
    from support.toy_tables import SEEDS
    read = lambda n: pd.read_csv(SEEDS / f"{n}.csv", dtype=str, keep_default_na=False)  # noqa: E731
    vocab = load_domains(read("domain_attributes"), read("domain_values"), read("domain_value_ranges"))
    groupings = load_groupings(read("value_groupings"), vocab)
    assert groupings["weather"]["City"][0].members == ("Oslo", "Bergen", "Tromso")  # Norway's, from the vocabulary
    assert groupings["accidents"]["City"][2].members[:2] == ("Munich", "Nuremberg")  # a grandparent's descendants
    cols = ["domain", "attribute", "phrase", "members", "parent"]
    for row, problem in ((["weather", "Month", "the summer", "June;Jully", ""], r"line 2 .*\['Jully'\] are no labels"),
                         (["weather", "Month", "the summer", "June", ""], "two or more distinct members"),
                         (["weather", "Month", "the summer", "June;July", "Norway"], "either members"),
                         (["weather", "Country", "the north", "", "Europe"], "no label above Country"),
                         (["weather", "Colour", "warm", "Red;Blue", ""], "'Colour' is no attribute"),
                         (["weather", "Month", "the $summer", "June;July", ""], "plain words")):
        with pytest.raises(SeedError, match=rf"seeds/value_groupings.csv {problem}" if problem.startswith("line")
                           else problem):
            load_groupings(pd.DataFrame([row], columns=cols), vocab)
    with pytest.raises(SeedError, match=r"seeds/measure_units.csv line 3 .*given twice"):
        load_units(pd.DataFrame([["weather", "temperatures", "degrees"]] * 2, columns=["domain", "template_name", "unit"]),
                   {("weather", "temperatures")})
    with pytest.raises(SeedError, match="no such table template"):
        load_units(pd.DataFrame([["weather", "rain", "mm"]], columns=["domain", "template_name", "unit"]), set())
