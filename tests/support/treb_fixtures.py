"""Test data for the TReB families (suite treb): a small table with hand-checkable values, the toy domain's
phrasings of NL templates 16-38 and 45-55, and int_relational_rows-shaped frames of relational tables."""
from __future__ import annotations


import pandas as pd

from generator_py.questions import load_domain_nl
from generator_py.questions.families import families_for_suites
from generator_py.tables.relational import RelationalTable, TableAttribute

from .question_fixtures import ATTRS, toy_nl_frames

_COND = "of__$Severity__$Event__accidents in__$City__$Country involving_$Gender_casualties in__$Quarter==of==$Year"
TREB_TEMPLATES = {
    16: [f"What is the sample standard deviation of the numbers {_COND} ?"],
    17: [f"What is the median of the numbers {_COND} ?"],
    18: [f"What is the percentage change from the number {_COND} to $NESTED the number {_COND} ?"],
    19: [f"What is the ratio of the $EXPR number {_COND} to $NESTED the $EXPR number {_COND} ?"],
    20: [f"What is the correlation between the numbers {_COND} and $NESTED those {_COND} ?"],
    21: ["What would be a fitting title for this table ?"],
    22: ["Which label belongs in the empty header cell ?"],
    23: [f"What is the number {_COND} ?"],
    24: [f"Taking the number {_COND} as the base of 100 , what is the index of $NESTED the number {_COND} ?"],
    25: [f"What is the compound annual growth rate from the number {_COND} to $NESTED the number {_COND} ?"],
    26: [f"What share of the total is the number {_COND} of $NESTED the sum of the numbers {_COND} ?"],
    27: [f"What are the numbers {_COND} ?"],
    28: [f"True or false : the number {_COND} is"],
    29: [f"In this table , what is the number {_COND} ?"],
    30: [f"What is the number {_COND} ?"],
    31: [f"Look up the number {_COND} in the table ."],
    32: [f"Which $OPPATTR has the highest number {_COND} ?"],
    33: ["Which value of this table is implausible ? Give its header labels , or none ."],
    34: ["Summarise this table in a few sentences ."],
    35: ["Which label belongs in the empty header cell of the column shown ?"],
    36: [f"What is the $EXPR number {_COND} ?"],
    37: [f"Which $OPPATTR has/have the number {_COND} $OPANDVAL ?"],
    38: [f"What is the weighted average of the numbers {_COND} ?"],
    # the data-analysis and multi-step families
    45: [f"Among the numbers {_COND} , is one value an outlier ?"],
    46: [f"How are the values of the number {_COND} and $NESTED those of the number {_COND} correlated ?"],
    47: [f"Is the mean of the numbers {_COND} higher than the mean of $NESTED the numbers {_COND} ?"],
    48: [f"Are the numbers {_COND} normally distributed ?"],
    49: [f"Consider the numbers {_COND} ."],
    50: [f"Find the row with the largest $EXPR of the numbers {_COND} . What is $NESTED the number {_COND} in that row ?"],
    51: [f"the number {_COND} is higher than $NESTED the number {_COND}"],
    52: [f"What is the highest of the numbers {_COND} minus the average of $NESTED the numbers {_COND} ?"],
    53: [f"What is the correlation between the $EXPR $GROUPBY of the numbers {_COND} and $NESTED that of the numbers {_COND} ?"],
    54: [f"Compute the $EXPR of the numbers {_COND} $GROUPBY . Is the mean of $NESTED the numbers {_COND} higher above "
         "the median of that $EXPR than below ?"],
    55: [f"Compute the average of the numbers {_COND} $GROUPBY . What is the $EXPR of the values above their group's "
         "average ?"],
}

# rows Event > Severity, columns Year; values chosen so that every statistic is checked by hand
VALUES = {("Fire", "Fatal"): (10, 20, 30, 40), ("Fire", "Minor"): (5, 7, 6, 12),
          ("Traffic", "Fatal"): (8, 8, 2, 4), ("Traffic", "Minor"): (1, 3, 5, 7)}
YEARS = ("2020", "2021", "2022", "2023")


def treb_nl_frames() -> pd.DataFrame:
    """The toy domain's nl_templates frame with the TReB phrasings added."""
    base, _ = toy_nl_frames()
    extra = pd.DataFrame([("toy", "*", tid, p + 1, text) for tid, texts in TREB_TEMPLATES.items()
                          for p, text in enumerate(texts)], columns=list(base.columns))
    return pd.concat([base, extra], ignore_index=True)


def treb_nl():
    _, meanings = toy_nl_frames()
    return load_domain_nl(treb_nl_frames(), meanings, ATTRS, "toy", "ref", families=families_for_suites(["hctqa", "treb"]))


def hand_table() -> RelationalTable:
    recs = [(e, s, y, float(v)) for (e, s), vals in VALUES.items() for y, v in zip(YEARS, vals)]
    frame = pd.DataFrame(recs, columns=["Event", "Severity", "Year", "Value"])
    attrs = (TableAttribute("Event", "Event", 1, "row", 1), TableAttribute("Severity", "Severity", 1, "row", 2),
             TableAttribute("Year", "Year", 1, "col", 1))
    return RelationalTable(table_id="toy--hand--v0001--r1", domain="toy", template_name="ref",
                           value_name="Number of accidents", attributes=attrs, frame=frame, value_is_integer=True,
                           agg_fun="sum", agg_name="Total", shown_aggregates=())


def relational_rows(tables) -> pd.DataFrame:
    """int_relational_rows' columns the cross-check reads, for relational tables."""
    out = []
    for t in tables:
        rnames = [a.name for a in t.row_attributes]
        cnames = [a.name for a in t.col_attributes]
        for i, r in enumerate(t.frame.itertuples(index=False), start=1):
            d = r._asdict()
            label = lambda v: None if v is None or (isinstance(v, float) and v != v) else str(v)  # noqa: E731
            out.append((t.table_id, i, rnames, [label(d[n]) for n in rnames], cnames, [label(d[n]) for n in cnames],
                        float(d["Value"])))
    return pd.DataFrame(out, columns=["table_id", "rel_row", "row_attributes", "row_labels", "col_attributes",
                                      "col_labels", "value"])


def header_cells(t: RelationalTable) -> tuple:
    """Header cells of a simple layout of `t` (columns: one header row per column attribute; rows: one
    header column per row attribute, each label shown once at the first row of its group)."""
    rnames = [a.name for a in t.row_attributes]
    cnames = [a.name for a in t.col_attributes]
    col_paths = list(dict.fromkeys(tuple(r) for r in t.frame[cnames].itertuples(index=False)))
    row_paths = list(dict.fromkeys(tuple(r) for r in t.frame[rnames].itertuples(index=False)))
    cells = []
    for j, cp in enumerate(col_paths):
        for d, label in enumerate(cp):
            if j == 0 or col_paths[j - 1][:d + 1] != cp[:d + 1]:
                cells.append((d + 1, len(rnames) + j + 1, "column_header", str(label)))
    for i, rp in enumerate(row_paths):
        for d, label in enumerate(rp):
            if i == 0 or row_paths[i - 1][:d + 1] != rp[:d + 1]:
                cells.append((len(cnames) + i + 1, d + 1, "row_header", str(label)))
    return tuple(sorted(cells))


__all__ = ["TREB_TEMPLATES", "VALUES", "YEARS", "hand_table", "header_cells", "relational_rows",
           "treb_nl", "treb_nl_frames"]


def seed_measures(seeds=None) -> dict:
    """(domain, template_name) -> Measure of the seed CSVs, with each domain's knowledge (groupings, units)."""
    from generator_py.questions.instances import template_measures
    from .toy_tables import SEEDS

    folder = SEEDS if seeds is None else seeds
    read = {n: pd.read_csv(folder / f"{n}.csv", dtype=str, keep_default_na=False)
            for n in ("domain_attributes", "domain_values", "domain_value_ranges", "table_templates",
                      "value_groupings", "measure_units")}
    return template_measures(read["domain_attributes"], read["domain_values"], read["domain_value_ranges"],
                             read["table_templates"], read["value_groupings"], read["measure_units"])
