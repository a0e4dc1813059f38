"""TReB's data-analysis (DA) and multi-step (ADA) families: the exact statistics against numpy and scipy, each
family's answers worked by hand (every step of a multi-step one), the outlier copy of a table, the answer
balance of the tests, the independent cross-check (steps included) catching a wrong answer or step, and the
questions' phrasings and SQL."""
from __future__ import annotations

import json
import random
from fractions import Fraction

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from generator_py.answers.computed_cross_check import CheckedTable, family_cross_check, relational_columns
from generator_py.questions.families import ALL_FAMILIES
from generator_py.questions.families import statistics as st
from generator_py.questions.table_model import TableModel
from generator_py.questions.types import Measure
from generator_py.tables.relational import RelationalTable, TableAttribute
from support import treb_fixtures


def _f(attr, *values):
    return {"attribute": attr, "values": list(values)}


@pytest.fixture(scope="module")
def hand():
    return treb_fixtures.hand_table()


@pytest.fixture(scope="module")
def model(hand):
    return TableModel(hand)


def _checked(table) -> CheckedTable:
    return CheckedTable(relational_columns(treb_fixtures.relational_rows([table]))[table.table_id], None, {})


def _cross_check(table, family, spec, answer_rows, steps=None):
    q = {"question_id": "q", "table_id": table.table_id, "family": family, "spec_json": json.dumps(spec),
         "py_answer_json": json.dumps(answer_rows), "steps_json": None if steps is None else json.dumps(steps)}
    grid = pd.DataFrame(columns=["table_id", "grid_row", "grid_col", "text", "caption"])
    return family_cross_check(pd.DataFrame([q]), treb_fixtures.relational_rows([table]), grid).iloc[0]


def city_table(values_by_year: dict[str, list[float]], integer=True) -> RelationalTable:
    """Rows City (C01..), columns Year: one value per city and year."""
    cities = [f"C{i:02d}" for i in range(1, len(next(iter(values_by_year.values()))) + 1)]
    recs = [(c, y, float(v)) for y, vs in values_by_year.items() for c, v in zip(cities, vs)]
    frame = pd.DataFrame(recs, columns=["City", "Year", "Value"])
    attrs = (TableAttribute("City", "City", 1, "row", 1), TableAttribute("Year", "Year", 1, "col", 1))
    return RelationalTable(table_id="toy--cities--v0001--r1", domain="toy", template_name="ref", value_name="Visitors",
                           attributes=attrs, frame=frame, value_is_integer=integer, agg_fun="sum", agg_name="Total",
                           shown_aggregates=())


# ------------------------------------------------------------------ statistics


def test_exact_statistics_agree_with_numpy_and_scipy():
    rng = np.random.default_rng(4)
    for n in (5, 8, 13, 20):
        xs = [Fraction(float(x)).limit_denominator(100) for x in np.round(rng.normal(50, 9, n), 2)]
        floats = np.array([float(x) for x in xs])
        q1, q3 = st.quartiles(xs)
        assert [float(q1), float(q3)] == pytest.approx(np.percentile(floats, [25, 75]), abs=1e-12)
        assert float(st.sample_variance(xs)) == pytest.approx(np.var(floats, ddof=1))
        other = [x + 3 for x in xs[: n - 1]]
        p = st.welch_p_greater(xs, other)
        assert p == pytest.approx(stats.ttest_ind(floats, [float(x) for x in other], equal_var=False,
                                                  alternative="greater").pvalue, rel=1e-9)
        assert st.shapiro_p(xs) == pytest.approx(stats.shapiro(floats).pvalue)
    # fewer than two values on a side, or no spread at all: no test
    assert st.welch_p_greater([Fraction(1)], [Fraction(2), Fraction(3)]) is None
    assert st.welch_p_greater([Fraction(1)] * 3, [Fraction(1)] * 3) is None


def test_p_values_print_and_decide_only_where_floats_cannot_disagree():
    assert [st.two_significant(p) for p in (0.0123, 0.5, 0.0996, 0.00012, 0.00009)] == \
        ["0.012", "0.50", "0.10", "0.00012", None]
    assert st.two_significant(0.0125) is None and st.significant_digits(0.01235, 3) is None  # rounding ties
    assert st.significant(0.049) is True and st.significant(0.2) is False
    assert st.significant(0.05 * (1 + 1e-9)) is None and st.significant(None) is None


# ------------------------------------------------------------------ outlier detection


@pytest.fixture(scope="module")
def cities():
    rng = np.random.default_rng(11)
    values = {y: [float(v) for v in rng.choice(np.arange(200, 400), 20, replace=False)] for y in ("2020", "2021")}
    return city_table(values)


def test_an_outlier_is_moved_to_be_the_only_one_of_its_selection_or_none_is(cities):
    fam = ALL_FAMILIES.get("outlier")
    m = TableModel(cities, None, Measure(low=10, high=999))
    table = _checked(cities)
    kinds, criteria = set(), set()
    for seed in range(60):
        drawn = fam.draw(m, random.Random(seed), "paper")
        if drawn is None:
            continue
        spec, extra = drawn
        answer = fam.compute(spec, m, extra)
        if answer is None:
            continue
        criteria.add(spec["criterion"])
        assert fam.cross_check(spec, table) == answer[0]
        change = fam.rendering_change(spec, extra)
        moved = spec["moved"]
        if moved is None:
            kinds.add("control")
            assert answer == [["none"]] and change["grid_change"] is None
            continue
        kinds.add("moved")
        assert answer == [moved["row_path"] + moved["col_path"]]
        assert change["grid_change"] == {"kind": "set_value", "row_path": moved["row_path"],
                                         "col_path": moved["col_path"], "text": moved["text"]}
        assert 10 <= moved["value"] <= 999 and moved["value"] == int(moved["value"])
        assert moved["value"] not in set(cities.frame["Value"])
        # by numpy, on the copy: the moved value meets the criterion and no other value does
        frame = cities.frame.copy()
        sel = np.ones(len(frame), bool)
        for f in spec["filters"]:
            sel &= frame[f["attribute"]].isin(f["values"]).to_numpy()
        at = (frame["City"] == moved["row_path"][0]) & (frame["Year"] == moved["col_path"][0])
        frame.loc[at, "Value"] = moved["value"]
        x = frame.loc[sel, "Value"].to_numpy(float)
        if spec["criterion"] == "zscore":
            hit = np.abs(x - x.mean()) / x.std(ddof=1) > 3
        else:
            q1, q3 = np.percentile(x, [25, 75])
            hit = (x < q1 - 1.5 * (q3 - q1)) | (x > q3 + 1.5 * (q3 - q1))
        assert hit.sum() == 1 and x[hit][0] == moved["value"]
    assert kinds == {"control", "moved"} and criteria == {"zscore", "iqr"}


def test_an_outlier_question_is_refused_when_another_value_meets_the_criterion(cities):
    fam = ALL_FAMILIES.get("outlier")
    m = TableModel(cities)
    year = [_f("Year", "2020")]
    two = {"computation": "outlier", "criterion": "iqr", "filters": year,
           "moved": {"filters": [_f("City", "C01"), _f("Year", "2020")], "row_path": ["C01"], "col_path": ["2020"],
                     "value": 5000.0, "text": "5000"}}
    assert fam.compute(two, m, {}) == [["C01", "2020"]]
    # a table already holding an outlier: the question would have two answers (and a control none)
    with_one = city_table({"2020": list(cities.frame["Value"][:1]) + [9000.0] + list(cities.frame["Value"][2:20]),
                           "2021": list(cities.frame["Value"][20:])})
    assert fam.compute(two, TableModel(with_one), {}) is None
    assert fam.compute({**two, "moved": None}, TableModel(with_one), {}) is None


def test_the_outlier_questions_view_shows_the_moved_value_in_every_format():
    from generator_py.grid.cells import Cell, TableGrid
    from generator_py.render.question_grid import question_grid, question_renderings_table, value_paths
    from generator_py.render.registry import format_names, render

    grid = TableGrid((Cell(1, 1, 1, 1, "corner", ""), Cell(1, 2, 1, 1, "column_header", "2020"),
                      Cell(2, 1, 1, 1, "row_header", "C01"), Cell(2, 2, 1, 1, "data", "210"),
                      Cell(3, 1, 1, 1, "row_header", "C02"), Cell(3, 2, 1, 1, "data", "230")),
                     header_rows=1, header_columns=1)
    paths = {(2, 2): (("C01",), ("2020",)), (3, 2): (("C02",), ("2020",))}
    change = {"kind": "set_value", "row_path": ["C02"], "col_path": ["2020"], "text": "999"}
    moved = question_grid(grid, change=change, paths=paths)
    for name in format_names(text_only=True):
        assert "999" in render(moved, name) and "230" not in render(moved, name) and "210" in render(moved, name)
    with pytest.raises(ValueError, match=r"question x: 0 data cells have the header paths"):
        question_grid(grid, question_id="x", change={**change, "row_path": ["C03"]}, paths=paths)
    questions = pd.DataFrame([("t--outlier", "t", False, None, None, json.dumps(change))],
                             columns=["question_id", "table_id", "hides_caption", "blank_grid_row", "blank_grid_col",
                                      "grid_change"])
    cells = pd.DataFrame({"table_id": ["t", "t"], "grid_row": [2, 3], "grid_col": [2, 2],
                          "row_group": [["C01"], ["C02"]], "col_group": [["2020"], ["2020"]]})
    by_table = value_paths(*(cells[c].tolist() for c in ("table_id", "grid_row", "grid_col", "row_group", "col_group")))
    (row,) = question_renderings_table([("t", grid)], questions, by_table).to_pylist()
    assert '"999"' in row["rendering_csv"] and '"230"' not in row["rendering_csv"]
    with pytest.raises(ValueError, match="0 data cells have the header paths"):
        question_renderings_table([("t", grid)], questions, value_paths(["t"], [2], [2], [["C01"]], [["2020"]]))


# ------------------------------------------------------------------ correlation, tests, distributions


FATAL = [_f("Event", "Fire"), _f("Severity", "Fatal")]


@pytest.mark.parametrize("first, second, expected", [
    (FATAL, [_f("Event", "Traffic"), _f("Severity", "Minor")], "strong positive"),  # 10..40 against 1, 3, 5, 7
    (FATAL, [_f("Event", "Traffic"), _f("Severity", "Fatal")], "strong negative"),  # r = -0.77
    # 8, 8, 2, 4 against 5, 7, 6, 12: r = -9 / sqrt(27 * 29) = -0.32
    ([_f("Event", "Traffic"), _f("Severity", "Fatal")], [_f("Event", "Fire"), _f("Severity", "Minor")],
     "moderate negative"),
])
def test_correlation_direction_and_strength_by_hand(first, second, expected, hand, model):
    fam = ALL_FAMILIES.get("correlation_strength")
    spec = {"computation": "correlation", "paired_by": "col", "first": first, "second": second}
    assert fam.compute(spec, model, {}) == [[expected]]
    assert _cross_check(hand, "correlation_strength", spec, [[expected]])["agrees"]
    con = duckdb.connect()
    con.register("T", hand.frame)
    assert con.execute(fam.statement(spec, model)[0]).fetchone()[0] == expected
    assert "at least 0.7" in fam.finish_question("How?", spec) and "at least 0.3" in fam.finish_question("How?", spec)


def test_welch_test_by_hand_in_both_forms(hand, model):
    fam = ALL_FAMILIES.get("welch_test")
    a, b = [10.0, 20.0, 30.0, 40.0, 5.0, 7.0, 6.0, 12.0], [8.0, 8.0, 2.0, 4.0, 1.0, 3.0, 5.0, 7.0]
    p = stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue  # Fire's cells against Traffic's
    spec = {"computation": "welch_t_test", "form": "long", "first": [_f("Event", "Fire")],
            "second": [_f("Event", "Traffic")]}
    expected = [["yes" if p < 0.05 else "no", f"{p:.2g}"]]
    assert fam.compute(spec, model, {}) == expected == [["yes", "0.019"]]
    assert fam.compute({**spec, "form": "short"}, model, {}) == [["yes"]]
    assert fam.compute({**spec, "first": spec["second"], "second": spec["first"]}, model, {})[0][0] == "no"
    assert _cross_check(hand, "welch_test", spec, expected)["agrees"]
    assert "significant digits" in fam.finish_question("Is it?", spec)
    assert "significant digits" not in fam.finish_question("Is it?", {**spec, "form": "short"})


def test_the_test_families_draw_both_answers_about_equally(cities):
    fam, shapiro = ALL_FAMILIES.get("welch_test"), ALL_FAMILIES.get("shapiro_normality")
    rng = np.random.default_rng(2)
    # ten cities over 12 years, in half the years spread evenly, in the others skewed (a few large values):
    # some samples differ, some do not; some look normal, some do not
    values = {str(2000 + y): [float(v) for v in (rng.choice(np.arange(100, 900), 10, replace=False) if y % 2 else
                                                 np.round(100 + 40 * np.exp(rng.normal(0, 1.3, 10))))]
              for y in range(12)}
    m = TableModel(city_table(values))
    for family in (fam, shapiro):
        answers = [family.compute(*family.draw(m, random.Random(s), "paper")[:1], m, {}) for s in range(80)]
        yes = sum(a is not None and a[0][0] == "yes" for a in answers)
        assert 0.3 <= yes / len(answers) <= 0.7, (family.family_id, yes)


def test_shapiro_and_percentile_rank_by_hand(hand, model):
    shapiro, rank = ALL_FAMILIES.get("shapiro_normality"), ALL_FAMILIES.get("percentile_rank")
    fire = [_f("Event", "Fire")]
    p = stats.shapiro([10.0, 20.0, 30.0, 40.0, 5.0, 7.0, 6.0, 12.0]).pvalue
    assert shapiro.compute({"computation": "shapiro_wilk", "filters": fire}, model, {}) == \
        [["no" if p < 0.05 else "yes"]]
    # Fire: 10, 20, 30, 40, 5, 7, 6, 12: 7 has 3 of 8 at or below it (37.5 %: the second quartile), 20 has 6
    spec = {"computation": "percentile_rank", "form": "percentile", "filters": fire, "value": 7.0, "shown": "7"}
    assert rank.compute(spec, model, {}) == [["37.5"]]
    assert rank.compute({**spec, "form": "quartile"}, model, {}) == [["2"]]
    fire20 = {**spec, "value": 20.0, "shown": "20"}
    assert rank.compute(fire20, model, {}) == [["75"]] and rank.compute({**fire20, "form": "quartile"}, model, {}) == [["3"]]
    assert rank.compute({**spec, "value": 21.0}, model, {}) is None  # not a value of the selection
    assert rank.compute({**spec, "filters": FATAL, "value": 20.0}, model, {}) is None  # four values: too few
    con = duckdb.connect()
    con.register("T", hand.frame)
    for s, expected in ((spec, 37.5), ({**fire20, "form": "quartile"}, 3)):
        assert con.execute(rank.statement(s, model)[0]).fetchone()[0] == expected
        assert _cross_check(hand, "percentile_rank", s, rank.compute(s, model, {}))["agrees"]
    assert "less than or equal to 7?" in rank.finish_question("Consider them.", spec)


# ------------------------------------------------------------------ multi-step


MULTI_STEP = [
    # totals 2020 + 2021 per row: Fire Fatal 30, Fire Minor 12, Traffic Fatal 16, Traffic Minor 4; its 2023 value
    ("ms_retrieval", {"computation": "ms_retrieval", "function": "sum", "filters": [_f("Year", "2020", "2021")],
                      "second": [_f("Year", "2023")]},
     [[[["Fire", "Fatal"], "30"], [["Fire", "Minor"], "12"], [["Traffic", "Fatal"], "16"], [["Traffic", "Minor"], "4"]],
      ["Fire", "Fatal"], "40"], "40"),
    # 40 > 1 and 8 > 3 (true), 12 > 20 (false)
    ("ms_fact_check", {"computation": "ms_fact_check", "facts": [
        {"first": FATAL + [_f("Year", "2023")], "second": [_f("Event", "Traffic"), _f("Severity", "Minor"), _f("Year", "2020")]},
        {"first": [_f("Event", "Traffic"), _f("Severity", "Fatal"), _f("Year", "2021")],
         "second": [_f("Event", "Traffic"), _f("Severity", "Minor"), _f("Year", "2021")]},
        {"first": [_f("Event", "Fire"), _f("Severity", "Minor"), _f("Year", "2023")], "second": FATAL + [_f("Year", "2021")]}]},
     ["40", "1", "true", "8", "3", "true", "12", "20", "false", "false"], "false"),
    # max of Fire Fatal 40, mean of Traffic Minor 4
    ("ms_operations", {"computation": "ms_operations", "first": FATAL,
                       "second": [_f("Event", "Traffic"), _f("Severity", "Minor")]}, ["40", "4", "36"], "36"),
    # per year totals: Fire 15, 27, 36, 52; Traffic 9, 11, 7, 11
    ("ms_correlation", {"computation": "ms_correlation", "function": "sum", "key": "Year",
                        "first": [_f("Event", "Fire")], "second": [_f("Event", "Traffic")]},
     [[["2020", "15"], ["2021", "27"], ["2022", "36"], ["2023", "52"]],
      [["2020", "9"], ["2021", "11"], ["2022", "7"], ["2023", "11"]],
      f"{np.corrcoef([15, 27, 36, 52], [9, 11, 7, 11])[0, 1]:.2f}"], None),
    # Event means: Fire 16.25 (above: 20, 30, 40), Traffic 4.75 (above: 8, 8, 5, 7): 90 + 28
    ("ms_conditional", {"computation": "ms_conditional", "function": "sum", "group": "Event", "filters": []},
     [[["Fire", "16.25"], ["Traffic", "4.75"]],
      [[["Fire", "Fatal", "2021"], "20"], [["Fire", "Fatal", "2022"], "30"], [["Fire", "Fatal", "2023"], "40"],
       [["Traffic", "Fatal", "2020"], "8"], [["Traffic", "Fatal", "2021"], "8"], [["Traffic", "Minor", "2022"], "5"],
       [["Traffic", "Minor", "2023"], "7"]], "118"], "118"),
]


@pytest.mark.parametrize("family, spec, steps, answer", MULTI_STEP, ids=[m[0] for m in MULTI_STEP])
def test_multi_step_answers_and_every_step_by_hand(family, spec, steps, answer, hand, model):
    fam = ALL_FAMILIES.get(family)
    solution = fam.solve(spec, model, {})
    assert [s.result for s in solution.steps] == steps and len(steps) >= 3
    assert solution.answer == [[steps[-1]]] and (answer is None or steps[-1] == answer)
    assert all(s.operation for s in solution.steps)
    stored = [s.as_json() for s in solution.steps]
    check = _cross_check(hand, family, spec, solution.answer, stored)
    assert check["agrees"] and json.loads(check["check_steps"]) == steps
    # a wrong intermediate result is caught even when the answer is right
    wrong = json.loads(json.dumps(stored))
    wrong[1]["result"] = "not this"
    assert not _cross_check(hand, family, spec, solution.answer, wrong)["agrees"]
    if fam.kind == "computed":  # its SQL, run by DuckDB, gives the answer too
        con = duckdb.connect()
        con.register("T", hand.frame)
        (value,), = con.execute(fam.statement(spec, model)[0]).fetchall()
        assert (value if isinstance(value, str) else f"{value:.2f}".rstrip("0").rstrip(".")) == steps[-1]


def test_the_test_between_derived_groups_by_hand(hand, model):
    fam = ALL_FAMILIES.get("ms_hypothesis")
    spec = {"computation": "ms_hypothesis", "function": "sum", "key": "Year", "first": [_f("Severity", "Fatal")],
            "second": [_f("Severity", "Minor")]}
    # Fatal per year: 18, 28, 32, 44 (median 30): above 2022, 2023; Minor there 6, 5, 12, 7 against 5, 1, 7, 3
    p = stats.ttest_ind([6.0, 5.0, 12.0, 7.0], [5.0, 1.0, 7.0, 3.0], equal_var=False, alternative="greater").pvalue
    solution = fam.solve(spec, model, {})
    assert [s.result for s in solution.steps] == [
        [["2020", "18"], ["2021", "28"], ["2022", "32"], ["2023", "44"]], "30", ["2022", "2023"], ["2020", "2021"],
        "7.5", "4", f"{p:.3g}", "yes" if p < 0.05 else "no"]
    check = _cross_check(hand, "ms_hypothesis", spec, solution.answer, [s.as_json() for s in solution.steps])
    assert check["agrees"], check


def test_a_compound_statement_is_true_only_when_every_statement_is_and_true_half_the_time(hand, model):
    fam = ALL_FAMILIES.get("ms_fact_check")
    table = _checked(hand)
    answers = []
    for seed in range(120):
        drawn = fam.draw(model, random.Random(seed), "paper")
        if drawn is None:
            continue
        solution = fam.solve(drawn[0], model, {})
        verdicts = [s.result for s in solution.steps if s.operation.endswith("the first is higher")]
        assert solution.answer == [["true" if all(v == "true" for v in verdicts) else "false"]]
        assert len(verdicts) in (2, 3) and fam.cross_check(drawn[0], table) == solution.answer[0][0]
        answers.append(solution.answer[0][0])
    assert 0.35 <= answers.count("true") / len(answers) <= 0.65


def test_multi_step_questions_name_every_part(hand, model):
    nl = treb_fixtures.treb_nl()
    families = [f for f in ALL_FAMILIES if f.treb_skill in ("DA", "ADA")]
    assert len(families) >= 10
    from generator_py.questions import generate_questions

    questions = generate_questions(hand, nl, 3, families=families)
    asked = {q.family for q in questions}
    for q in questions:
        for literal in q.sql_literals:
            assert literal in q.question, (q.family, literal, q.question)
        assert (q.steps is not None) == ALL_FAMILIES.get(q.family).multi_step
    compound = next(q for q in questions if q.family == "ms_fact_check")
    assert compound.question.startswith("True or false: the number") and compound.question.count(", and ") >= 1
    assert {"ms_retrieval", "ms_operations", "ms_correlation", "ms_conditional", "correlation_strength"} <= asked
