"""Test data: hand-built relational tables and NL templates for the question-generation tests (served to
tests by the conftest fixtures toy_attrs, toy_nl_texts, toy_nl, toy_nl_frames, unbalanced_table, reference_tables)."""
from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd

from generator_py.questions import load_domain_nl
from generator_py.tables.relational import RelationalTable, ShownAggregate, TableAttribute

ATTRS = pd.DataFrame(
    [("toy", "Gender", "independent", 1, "Gender"), ("toy", "Year", "independent", 1, "Year"),
     ("toy", "Quarter", "independent", 1, "Quarter"), ("toy", "Event", "independent", 1, "Event"),
     ("toy", "Severity", "independent", 1, "Severity"), ("toy", "Place", "hierarchical", 1, "Country"),
     ("toy", "Place", "hierarchical", 2, "City")],
    columns=["domain", "code", "kind", "level", "attribute_name"])
# Event stands after Severity before one noun (of__$Severity__$Event__accidents): said after it when coordinated
ATTRS["qualifier_phrase"] = ATTRS["attribute_name"].map({"Event": "of type {value}"}).fillna("")

TEMPLATES = {
    1: ["What is the number of_((accidents)) of__$Severity__$Event__accidents in__$Country__$City involving_$Gender_casualties in__$Quarter==of==$Year ?",
        "Give the count of__$Severity__$Event__accidents recorded in__$Country__$City for_$Gender_casualties during__$Quarter==of==$Year ."],
    2: ["What is/are the number/numbers of__$Severity__$Event__accidents in__$City__$Country involving_$Gender_casualties in__$Quarter==of==$Year ?",
        "List the accident counts for__$Severity__$Event__accidents in__$City__$Country among_$Gender_victims in__$Quarter==of==$Year ."],
    3: ["How many__$Severity__$Event__accidents happened in__$City__$Country to_$Gender_people in__$Quarter==of==$Year ?",
        "Report the number/numbers of__$Severity__$Event__accidents in__$City__$Country with_$Gender_casualties in__$Quarter==of==$Year ."],
    4: ["What is/are the $EXPR number/numbers of__$Severity__$Event__accidents in__$City__$Country involving_$Gender_casualties in__$Quarter==of==$Year ?",
        "Give the $EXPRSUP count/counts of__$Severity__$Event__accidents in__$City__$Country for_$Gender_victims in__$Quarter==of==$Year ."],
    6: ["Which values give the numbers of__$Severity__$Event__accidents in__$City__$Country involving_$Gender_casualties in__$Quarter==of==$Year ?",
        "List every count of__$Severity__$Event__accidents in__$City__$Country for_$Gender_victims in__$Quarter==of==$Year ."],
    8: ["What is/are the $EXPR number/numbers $GROUPBY , of__$Severity__$Event__accidents in__$City__$Country involving_$Gender_casualties in__$Quarter==of==$Year ?",
        "Compute $GROUPBY the $EXPRSUP count/counts of__$Severity__$Event__accidents in__$City__$Country among_$Gender_victims in__$Quarter==of==$Year ."],
    12: ["What are the top/bottom_$TOPK numbers of__$Severity__$Event__accidents in__$City__$Country involving_$Gender_casualties in__$Quarter==of==$Year ?",
         "List the $TOPK_largest/smallest counts of__$Severity__$Event__accidents in__$City__$Country for_$Gender_victims in__$Quarter==of==$Year ."],
    13: ["What are the numbers of__$Severity__$Event__accidents in__$City__$Country involving_$Gender_casualties in__$Quarter==of==$Year ordered by $ORDERBYDESC_decreasing/increasing values?",
         "Sort the counts of__$Severity__$Event__accidents in__$City__$Country for_$Gender_victims in__$Quarter==of==$Year from $ORDERBYDESC_highest/lowest first."],
    14: ["What is/are the $OPPATTR for which the number of accidents involving_$Gender_casualties in__$Quarter==of==$Year of__$City__$Country is $OPANDVAL ?",
         "Which $OPPATTR have an accident count among_$Gender_victims in__$Quarter==of==$Year in__$City__$Country $OPANDVAL ?"],
    15: ["What is the number of accidents involving_$Gender_casualties in__$Quarter==of==$Year of_$OPPATTR $NESTED for which the number of accidents involving_$Gender_casualties in__$Quarter==of==$Year is $OPANDVAL ?",
         "Give the accident count for_$Gender_victims in__$Quarter==of==$Year of each $OPPATTR $NESTED whose count among_$Gender_victims in__$Quarter==of==$Year is $OPANDVAL ."],
}
TEMPLATES[5] = TEMPLATES[4]
TEMPLATES[7] = TEMPLATES[4]
TEMPLATES[9] = TEMPLATES[8]
TEMPLATES[10] = TEMPLATES[8]
TEMPLATES[11] = TEMPLATES[8]


def toy_nl_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The toy domain's nl_templates and nl_table_meanings seed frames."""
    rows = [("toy", "*", tid, p + 1, text) for tid, texts in TEMPLATES.items() for p, text in enumerate(texts)]
    df = pd.DataFrame(rows, columns=["domain", "template_name", "template_id", "phrasing", "text"])
    meanings = pd.DataFrame([("toy", "*", "number of accidents", "Please, report the corresponding $REPORTATTR .")],
                            columns=["domain", "template_name", "value_meaning", "report_sentence"])
    return df, meanings


def toy_nl():
    df, meanings = toy_nl_frames()
    return load_domain_nl(df, meanings, ATTRS, "toy", "ref")


def _attrs(rows, cols, codes=None):
    codes = codes or {}
    out = []
    for axis, names in (("row", rows), ("col", cols)):
        for d, n in enumerate(names, start=1):
            code, level = codes.get(n, (n, 1))
            out.append(TableAttribute(name=n, code=code, level=level, axis=axis, depth=d))
    return tuple(out)


def _shown(frame, rows, cols, agg_fun, groups):
    out = []
    for rg, cg in groups:
        m = pd.Series(True, index=frame.index)
        for a, v in zip(rows, rg):
            m &= frame[a] == v
        for a, v in zip(cols, cg):
            m &= frame[a] == v
        vals = frame.loc[m, "Value"]
        value = {"sum": vals.sum(), "avg": vals.mean(), "min": vals.min(), "max": vals.max()}[agg_fun]
        out.append(ShownAggregate(tuple(rg), tuple(cg), float(round(value, 2))))
    return tuple(out)


def reference_table(sample: Path, name: str, rows, cols, shown=()) -> RelationalTable:
    """A relational table of the release's synthetic sample (folder `sample`)."""
    df = pd.read_csv(sample / f"{name}_DB.csv", dtype=str)
    df = df[df.iloc[:, 0] != df.columns[0]].reset_index(drop=True)
    df["Value"] = df["Value"].astype(float)
    df = df[list(rows) + list(cols) + ["Value"]]
    return RelationalTable(
        table_id=f"ref--{name}", domain="toy", template_name="ref", value_name="Number of accidents",
        attributes=_attrs(rows, cols), frame=df, value_is_integer=True, agg_fun="avg", agg_name="Average",
        shown_aggregates=_shown(df, rows, cols, "avg", shown))


def unbalanced_table() -> RelationalTable:
    """Rows: Country > City with Iceland having no cities (NULL), then Event; columns: Year."""
    places = [("Canada", "Toronto"), ("Canada", "Ottawa"), ("Iceland", None), ("Germany", "Berlin"),
              ("Germany", "Munich")]
    events = ["Fire", "Traffic"]
    years = ["2020", "2021", "2022"]
    recs = []
    v = 11
    for (c, city), e, y in itertools.product(places, events, years):
        recs.append((c, city, e, y, float(v)))
        v += 7
    df = pd.DataFrame(recs, columns=["Country", "City", "Event", "Year", "Value"])
    rows, cols = ["Country", "City", "Event"], ["Year"]
    codes = {"Country": ("Place", 1), "City": ("Place", 2)}
    shown = [(("Canada",), ()), (("Iceland",), ()), ((), ("2021",)), (("Germany", "Berlin"), ())]
    return RelationalTable(
        table_id="toy--unbalanced--v0001--r1", domain="toy", template_name="ref", value_name="Number of accidents",
        attributes=_attrs(rows, cols, codes), frame=df, value_is_integer=True, agg_fun="sum", agg_name="Total",
        shown_aggregates=_shown(df, rows, cols, "sum", shown))


def tables(sample: Path) -> list[RelationalTable]:
    """The three tables of the synthetic sample (the `synthetic_sample_dir` fixture) and a toy unbalanced one."""
    return [
        reference_table(sample, "Number_of_accidents_set2_3", ["Event"], ["Gender"], shown=[(("Traffic",), ())]),
        reference_table(sample, "Number_of_accidents_set321_2", ["Event", "Severity"], ["Gender", "Year"],
                        shown=[(("Fire",), ()), (("Traffic", "Fatal"), ("Male",)), ((), ())]),
        reference_table(sample, "Number_of_accidents_set150_5", ["Event", "Severity"], ["Year", "Quarter", "Gender"]),
        unbalanced_table(),
    ]
