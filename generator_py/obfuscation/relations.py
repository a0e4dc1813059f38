"""What the obfuscation dbt models call: frames or Arrow tables in, the same out (the models stay thin)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..answers.sql_cross_check import choose_questions, cross_check_frame
from ..tables.relational import relational_rows
from .variant import (as_lists, obfuscate_grid, obfuscate_instances, obfuscate_questions,
                      obfuscate_relational_rows, table_words)
from .words import KEPT_WORDS, WordMap, build_word_map, words_of

WORD_COLUMNS = ("word", "replacement")


def _texts(frame: pd.DataFrame, *columns: str) -> list:
    return [v for c in columns for v in frame[c].tolist() if isinstance(v, str)]


def word_map_frame(values: pd.DataFrame, attributes: pd.DataFrame, templates: pd.DataFrame,
                   nl_templates: pd.DataFrame, meanings: pd.DataFrame, aggregation_terms: pd.DataFrame,
                   seed: int) -> pd.DataFrame:
    """int_obfuscation_words: one row per word of the vocabulary (labels, attribute names and how they are
    said, value names); `replacement` NULL for a kept word (function words, aggregation terms)."""
    kept = KEPT_WORDS | {w for t in _texts(aggregation_terms, "term") + _texts(templates, "agg_name1")
                         for w in words_of(t, frozenset())}
    content = (_texts(values, "label") + _texts(attributes, "attribute_name", "spoken_name")
               + _texts(templates, "value_name"))
    # every word the seeds hold is real vocabulary: no replacement may be one of them
    reserved = [v for f in (values, attributes, templates, nl_templates, meanings, aggregation_terms)
                for c in f.columns for v in f[c].tolist() if isinstance(v, str)]
    words = build_word_map(content, reserved, seed, kept=frozenset(kept))
    out = words.frame()
    kept_rows = pd.DataFrame({"word": sorted(kept), "replacement": [None] * len(kept)})
    return pd.concat([out, kept_rows], ignore_index=True).sort_values("word", ignore_index=True)


def word_map(frame: pd.DataFrame) -> WordMap:
    """The WordMap of an int_obfuscation_words frame."""
    mapped = frame[frame["replacement"].notna()]
    kept = frozenset(frame.loc[frame["replacement"].isna(), "word"].astype(str))
    return WordMap(dict(zip(mapped["word"].astype(str), mapped["replacement"].astype(str))), kept)


_INSTANCE_LISTS = ("row_attributes", "row_attribute_codes", "row_attribute_levels", "col_attributes",
                   "col_attribute_codes", "col_attribute_levels")


def obfuscated_relational_rows(rows: pa.Table, words: pd.DataFrame) -> pa.Table:
    """The variant's int_relational_rows from the originals' (an Arrow table: its list columns never become
    Python lists)."""
    return obfuscate_relational_rows(rows, word_map(words))


def obfuscated_instances(instances: pd.DataFrame, words: pd.DataFrame) -> pd.DataFrame:
    return obfuscate_instances(as_lists(instances, _INSTANCE_LISTS), word_map(words))


def obfuscated_grid(cells: pa.Table, instances: pa.Table, words: pd.DataFrame) -> pa.Table:
    """The variant's rows of int_table_grid (its columns, in its order) from the originals' int_hct_cells and
    int_table_instances (Arrow tables), as int_table_grid's synthetic branch joins them: each cell of a table
    with an instance, in the cells' order, with its table's caption, borders and header depths."""
    at = pc.index_in(cells["table_id"], value_set=instances["table_id"].combine_chunks())
    if at.null_count:
        cells, at = cells.filter(pc.is_valid(at)), at.drop_null()
    n = cells.num_rows
    settings = {"caption": "value_name", "borders": "borders", "header_rows": "col_depth",
                "header_columns": "row_depth"}
    columns = {"table_id": cells["table_id"], "source": pa.repeat(pa.scalar("synthetic"), n)}
    columns.update({c: cells[c] for c in ("grid_row", "grid_col", "rowspan", "colspan", "role", "is_aggregate",
                                          "text", "value", "row_group", "col_group")})
    columns.update({c: pc.take(instances[source], at) for c, source in settings.items()})
    return obfuscate_grid(pa.table(columns), word_map(words))


def _table_words(instances: pd.DataFrame, rows: "pd.DataFrame | pa.Table", attributes: pd.DataFrame) -> dict:
    spoken: dict = {}
    for domain, name, said in zip(attributes["domain"], attributes["attribute_name"], attributes["spoken_name"]):
        if isinstance(said, str):
            spoken.setdefault(str(domain), {})[str(name)] = said
    labels = {tid: {x for rec in t.records for x in rec[:-1] if x is not None}
              for tid, t in relational_rows(rows).items()}
    return {tid: table_words(list(ra) + list(ca), labels.get(tid, ()), value_name, spoken.get(str(domain), {}))
            for tid, domain, value_name, ra, ca in zip(instances["table_id"], instances["domain"],
                                                      instances["value_name"], instances["row_attributes"],
                                                      instances["col_attributes"])}


def obfuscated_questions(questions: pd.DataFrame, instances: pd.DataFrame, rows: "pd.DataFrame | pa.Table",
                         attributes: pd.DataFrame, words: pd.DataFrame) -> pd.DataFrame:
    """The variant's int_question_instances (plus original_question_id, original_table_id)."""
    questions = as_lists(questions, ("sql_literals", "projected_attributes", "aggregations"))
    names = {t: list(ra) + list(ca) for t, ra, ca in zip(instances["table_id"], instances["row_attributes"],
                                                          instances["col_attributes"])}
    return obfuscate_questions(questions, _table_words(instances, rows, attributes), word_map(words), names)


def _answers_by_question(answers: pd.DataFrame) -> dict:
    out: dict = {}
    # the columns as Python lists first: iterating a frame's Arrow-backed column is an order slower
    for qid, _, values in sorted(zip(answers["question_id"].tolist(), answers["answer_row"].tolist(),
                                     answers["answer_values"].tolist()), key=lambda r: (r[0], r[1])):
        out.setdefault(qid, []).append([None if v is None else str(v) for v in values])
    return out


def obfuscation_check(questions: pd.DataFrame, answers: pd.DataFrame, rows: "pd.DataFrame | pa.Table",
                      original_answers: pd.DataFrame, words: pd.DataFrame, check_all: bool,
                      seed: int) -> pd.DataFrame:
    """Per obfuscated question: `sql_gives_answer` (its SQL text, run in SQLite on the obfuscated relational
    table, gives the answer computed from its spec; every question with cross_check: true, else the
    cross-check's seeded sample) and `restores_original` (that answer, its words mapped back, is the
    original question's answer; every question)."""
    wm = word_map(words)
    mine = _answers_by_question(answers)
    theirs = _answers_by_question(original_answers)
    # rows ordered by an attribute follow the non-words' alphabetical order: compared as multisets
    ordered = {qid: bool(spec["order_by"]) and all(o["kind"] != "attribute" for o in spec["order_by"])
               for qid, spec in zip(questions["question_id"], map(json.loads, questions["spec_json"]))}
    chosen = choose_questions(questions[["question_id", "table_id", "template_id", "sql"]]
                              .assign(template_id=lambda f: f["template_id"].fillna(0)), check_all, seed)
    checked = cross_check_frame(chosen, answers, rows)
    sql_check = dict(zip(checked["question_id"].tolist(), checked["agrees"].tolist()))
    out = []
    for qid, oid in sorted(zip(questions["question_id"], questions["original_question_id"])):
        got = mine.get(qid, [])
        restored = [[wm.restore(v) for v in row] for row in got]
        original = theirs.get(oid, [])
        same = restored == original if ordered[qid] else sorted(restored, key=repr) == sorted(original, key=repr)
        ok = sql_check.get(qid)
        out.append((qid, oid, None if ok is None or (isinstance(ok, float) and np.isnan(ok)) else bool(ok),
                    bool(got) and same, json.dumps(got), json.dumps(original)))
    return pd.DataFrame(out, columns=["question_id", "original_question_id", "sql_gives_answer",
                                      "restores_original", "obfuscated_answer", "original_answer"])
