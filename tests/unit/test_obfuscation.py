"""The obfuscated variant's word map and frame transforms (generator_py/obfuscation)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from generator_py.obfuscation import (KEPT_WORDS, WordMap, build_word_map, nonword, obfuscate_spec,
                                      obfuscate_sql, obfuscated_question_id, obfuscated_table_id, words_of)
from generator_py.obfuscation.relations import word_map, word_map_frame
from generator_py.obfuscation.variant import (obfuscate_questions, obfuscate_relational_rows, obfuscate_sql_ast,
                                              table_words)
from generator_py.core.rng import rng_for

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
PRONOUNCEABLE = re.compile(r"^(?:(?:b|d|f|g|k|l|m|n|p|r|s|t|v|z|br|dr|kl|pr|st|tr)[aeiou]){3}[nrlsk]?$")
LABELS = ["Female", "Male", "Western Australia", "Victim_Age", "Number of accident casualties", "Non-fatal",
          "Road traffic", "2019", "18-24"]


def small_map(seed=42) -> WordMap:
    return build_word_map(LABELS, reserved=["What is the number of casualties ?", "road"], seed=seed)


def test_nonwords_are_pronounceable_consonant_vowel_syllables():
    rng = rng_for(1, "t")
    for _ in range(500):
        assert PRONOUNCEABLE.match(nonword(rng))


def test_every_content_word_gets_one_pronounceable_replacement():
    m = small_map()
    assert set(m.mapping) == {"female", "male", "western", "australia", "victim", "age", "number", "accident",
                              "casualties", "fatal", "road", "traffic"}  # `of`, `non`, numbers kept
    assert all(PRONOUNCEABLE.match(r) for r in m.mapping.values())


def test_the_same_word_always_gets_the_same_replacement_whatever_its_case():
    m = small_map()
    assert m.obfuscate("Female") == m.mapping["female"].capitalize()
    assert m.obfuscate("female") == m.mapping["female"]
    assert m.obfuscate("FEMALE") == m.mapping["female"].upper()
    assert {w.lower() for w in m.obfuscate("Female, female; FEMALE").replace(",", "").replace(";", "").split()} \
        == {m.mapping["female"]}


def test_numbers_punctuation_and_kept_words_stay():
    m = small_map()
    assert m.obfuscate("2019") == "2019" and m.obfuscate("18-24") == "18-24"
    assert m.obfuscate("Non-fatal") == "Non-" + m.mapping["fatal"]
    assert m.obfuscate("Number of accident casualties").split()[1] == "of"
    v = m.obfuscate("Victim_Age")
    assert re.fullmatch(r"[A-Z][a-z]+_[A-Z][a-z]+", v) and v != "Victim_Age"  # still an identifier


def test_replacements_collide_with_no_real_word_and_no_other_replacement():
    # a draw that keeps proposing real words and taken non-words must skip them
    proposals = iter(["road", "female", "kepalo", "kepalo", "of", "tizumar"] + [f"zz{i}" for i in range(50)])
    m = build_word_map(["Female", "Male"], reserved=["road"], seed=1, draw=lambda rng: next(proposals))
    assert m.mapping == {"female": "kepalo", "male": "tizumar"}


def test_a_word_map_with_a_shared_replacement_is_refused():
    with pytest.raises(ValueError, match="share a replacement"):
        WordMap({"female": "kepalo", "male": "kepalo"})


def test_the_word_map_is_deterministic_and_seeded_per_word():
    assert small_map(42).mapping == small_map(42).mapping
    assert small_map(42).mapping != small_map(7).mapping
    more = build_word_map(LABELS + ["Brisbane"], reserved=["road"], seed=42)
    assert {w: more.mapping[w] for w in small_map(42).mapping} == small_map(42).mapping


def test_an_unknown_content_word_is_an_error_naming_it():
    with pytest.raises(KeyError, match="'Kassel'"):
        small_map().obfuscate("Kassel")


def test_restore_inverts_obfuscate():
    m = small_map()
    for text in LABELS + ["Female or male, 2019"]:
        assert m.restore(m.obfuscate(text)) == text


def test_only_restricts_question_text_to_the_table_words():
    m = small_map()
    q = m.obfuscate("What is the number of road casualties for Female?", only=frozenset({"female", "casualties"}))
    assert q == f"What is the number of road {m.mapping['casualties']} for {m.mapping['female'].capitalize()}?"


def test_word_map_frame_from_the_seeds(seed_frames):
    f = dict(seed_frames, aggregation_terms=pd.read_csv(SEEDS / "aggregation_terms.csv", dtype=str))
    frame = word_map_frame(f["domain_values"], f["domain_attributes"], f["table_templates"], f["nl_templates"],
                           f["nl_table_meanings"], f["aggregation_terms"], 42)
    assert frame["word"].is_unique and frame["replacement"].dropna().is_unique
    kept = set(frame.loc[frame["replacement"].isna(), "word"])
    assert {"total", "average", "of", "value"} <= kept
    real = {w.lower() for df in f.values() for c in df.columns for v in df[c].astype(str) for w in re.findall(r"[A-Za-z]+", v)}
    assert not set(frame["replacement"].dropna()) & real
    wm = word_map(frame)
    for label in f["domain_values"]["label"]:
        out = wm.obfuscate(label)  # every label of the vocabulary is covered
        assert not set(words_of(out)) & (set(words_of(label)) - KEPT_WORDS)


def test_ids_of_the_variant_are_distinct_and_recognisable():
    t = "syn--accidents--casualties--v0007--r2"
    assert obfuscated_table_id(t) == t + "--obf"
    assert obfuscated_question_id(t + "--q01", t) == t + "--obf--q01"
    assert obfuscated_question_id(t + "--q12-1", t) == t + "--obf--q12-1"
    with pytest.raises(ValueError, match="does not start with its table id"):
        obfuscated_question_id("other--q01", t)


def test_sql_maps_columns_and_string_literals_only():
    m = small_map()
    sql = ("SELECT Victim_Age, SUM(Value) FROM T WHERE Victim_Age IN ('Female', 'Male') AND Value > 2019 "
           "GROUP BY Victim_Age ORDER BY Victim_Age ASC LIMIT 3")
    out = obfuscate_sql(sql, m.obfuscate, ["Victim_Age"])
    va, fe, ma = m.obfuscate("Victim_Age"), m.obfuscate("Female"), m.obfuscate("Male")
    assert out == (f"SELECT {va}, SUM(Value) FROM T WHERE {va} IN ('{fe}', '{ma}') AND Value > 2019 "
                   f"GROUP BY {va} ORDER BY {va} ASC LIMIT 3")
    assert out == obfuscate_sql_ast(sql, m.obfuscate)  # the token pass agrees with sqlglot's AST
    assert obfuscate_sql(sql, lambda s: s, ["Victim_Age"]) == sql


def test_sql_quoted_names_and_quotes_inside_literals():
    m = build_word_map(["Order", "O'Brien road"], reserved=[], seed=3)
    sql = """SELECT "Order" FROM T WHERE "Order" = 'O''Brien road' AND Value < 3"""
    out = obfuscate_sql(sql, m.obfuscate, ["Order"])
    o, b, r = m.obfuscate("Order"), m.mapping["brien"].capitalize(), m.mapping["road"]
    assert out == f"""SELECT "{o}" FROM T WHERE "{o}" = 'O''{b} {r}' AND Value < 3"""


def test_spec_maps_attributes_and_values_not_the_value_or_functions():
    m = small_map()
    spec = {"filters": [{"attribute": "Victim_Age", "values": ["Female", "2019"]}], "group_by": ["Victim_Age"],
            "limit": None, "order_by": [{"direction": "asc", "kind": "value", "name": "Value"}],
            "select": [{"kind": "attribute", "name": "Victim_Age"}, {"function": "sum", "kind": "aggregate"}],
            "semi_join": {"attributes": ["Victim_Age"], "filters": [], "value_condition": None},
            "value_condition": {"op": "<", "threshold": 5.0}}
    out = obfuscate_spec(spec, m.obfuscate)
    va = m.obfuscate("Victim_Age")
    assert out["filters"] == [{"attribute": va, "values": [m.obfuscate("Female"), "2019"]}]
    assert out["group_by"] == [va] and out["semi_join"]["attributes"] == [va]
    assert out["select"] == [{"kind": "attribute", "name": va}, {"function": "sum", "kind": "aggregate"}]
    assert out["order_by"] == spec["order_by"] and out["value_condition"] == spec["value_condition"]


def _question_frame(tid):
    spec = {"filters": [{"attribute": "Victim_Age", "values": ["Female"]}], "group_by": [], "limit": None,
            "order_by": [], "select": [{"kind": "value"}], "semi_join": None, "value_condition": None}
    return pd.DataFrame({
        "question_id": [tid + "--q01"], "table_id": [tid], "template_id": [1],
        "question": ["What is the number of road casualties for Female victims in 2019?"],
        "sql": ["SELECT Value FROM T WHERE Victim_Age = 'Female'"], "sql_literals": [["Female"]],
        "spec_json": [json.dumps(spec, sort_keys=True)], "py_answer_json": ["[[12.0]]"],
        "projected_attributes": [["Victim_Age"]], "n_row_conditions": [1]})


def test_questions_keep_their_query_and_map_only_the_table_words():
    m = small_map()
    tid = "syn--toy--t--v0001--r1"
    words = table_words(["Victim_Age"], ["Female", "Male"], "Number of accident casualties", {"Victim_Age": "victim"})
    out = obfuscate_questions(_question_frame(tid), {tid: words}, m, {tid: ["Victim_Age"]}).iloc[0]
    fe, va = m.obfuscate("Female"), m.obfuscate("Victim_Age")
    assert out["question_id"] == tid + "--obf--q01" and out["original_question_id"] == tid + "--q01"
    assert out["table_id"] == tid + "--obf" and out["original_table_id"] == tid
    # `road` and `victims` are no words of this table: they stay, as do the template's own words and 2019
    assert out["question"] == (f"What is the {m.mapping['number']} of road {m.mapping['casualties']} for {fe} "
                               "victims in 2019?")
    assert out["sql"] == f"SELECT Value FROM T WHERE {va} = '{fe}'"
    assert out["sql_literals"] == [fe] and out["projected_attributes"] == [va]
    assert json.loads(out["spec_json"])["filters"] == [{"attribute": va, "values": [fe]}]
    assert out["py_answer_json"] == "[[12.0]]" and out["n_row_conditions"] == 1


def test_a_question_of_a_table_without_words_is_an_error_naming_it():
    with pytest.raises(KeyError, match="syn--toy--t--v0001--r1"):
        obfuscate_questions(_question_frame("syn--toy--t--v0001--r1"), {}, small_map(), {})


def test_relational_rows_map_names_and_labels_and_keep_values():
    m = small_map()
    rows = pa.table({"table_id": ["t", "t"], "rel_row": [1, 2], "row_attributes": [["Victim_Age"], ["Victim_Age"]],
                     "row_labels": [["Female"], [None]], "row_path": [["Female"], None],
                     "col_attributes": [["Year"]] * 2, "col_labels": [["2019"], ["2019"]],
                     "col_path": [["2019"], ["2019"]], "value": [4.0, 5.0]})
    m2 = build_word_map(LABELS + ["Year"], reserved=[], seed=42)
    out = obfuscate_relational_rows(rows, m2).to_pylist()
    assert [r["table_id"] for r in out] == ["t--obf"] * 2 and [r["original_table_id"] for r in out] == ["t"] * 2
    assert out[0]["row_attributes"] == [m2.obfuscate("Victim_Age")] and out[0]["row_labels"] == [m2.obfuscate("Female")]
    assert out[0]["col_labels"] == ["2019"] and out[0]["value"] == 4.0
    # a NULL label stays NULL, a NULL list stays NULL; the columns keep their order, the original id second
    assert out[1]["row_labels"] == [None] and out[1]["row_path"] is None
    assert list(out[0]) == ["table_id", "original_table_id", *rows.column_names[1:]]
    assert m.mapping["female"] == m2.mapping["female"]  # seeded per word
