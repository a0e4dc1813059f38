"""The obfuscated variant of built synthetic tables and questions, relation by relation: the same rows, cells and
questions as the originals with their words mapped (words.py), under ids of their own
(`<table_id>--obf`, `<table_id>--obf--<family>`). The layout, the numbers and the question's query stay."""
from __future__ import annotations

import json
import re
from typing import Callable, Iterable, Mapping, Optional

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp

from .words import WordMap, words_of

OBFUSCATED_SUFFIX = "--obf"
VALUE_COLUMN = "Value"


def obfuscated_table_id(table_id: str) -> str:
    return table_id + OBFUSCATED_SUFFIX


def obfuscated_question_id(question_id: str, table_id: str) -> str:
    """`{table_id}--q01` -> `{table_id}--obf--q01`: the contract's `{table_id}--{family}` form still holds."""
    if not question_id.startswith(table_id + "--"):
        raise ValueError(f"question {question_id!r}: its id does not start with its table id {table_id!r}")
    return obfuscated_table_id(table_id) + question_id[len(table_id):]


def _is_missing(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v)


def _map_list(values, fn: Callable) -> Optional[list]:
    if _is_missing(values):
        return None
    return [fn(v) for v in values]


def table_words(attributes: Iterable[str], labels: Iterable[Optional[str]], value_name: str,
                spoken: Mapping[str, str]) -> frozenset:
    """The content words a question on this table may have to obfuscate: its attribute names (and how they
    are said), its labels and its value name. Only these are replaced in its question text, so a template's
    own words stay unless the table shares them."""
    attributes = list(attributes)
    texts = attributes + [spoken.get(a, "") for a in attributes] + [x for x in labels if x] + [value_name]
    return frozenset(w for t in texts for w in words_of(t))


def obfuscate_relational_rows(rows: pa.Table, words: WordMap) -> pa.Table:
    """int_relational_rows of the variant: attribute names and labels mapped, numbers and positions kept."""
    out = rows
    for column in ("row_attributes", "row_labels", "row_path", "col_attributes", "col_labels", "col_path"):
        out = out.set_column(out.schema.get_field_index(column), column,
                             _mapped_text_lists(out[column], words.obfuscate))
    originals = rows["table_id"]
    out = out.set_column(out.schema.get_field_index("table_id"), "table_id", _obfuscated_table_ids(originals))
    return out.add_column(1, "original_table_id", originals)


def obfuscate_instances(instances: pd.DataFrame, words: WordMap) -> pd.DataFrame:
    """int_table_instances of the variant: the value name and attribute names mapped; codes (internal) and
    layout settings kept."""
    out = instances.copy()
    out.insert(1, "original_table_id", out["table_id"])
    out["table_id"] = [obfuscated_table_id(t) for t in out["table_id"]]
    out["value_name"] = [words.obfuscate(v) for v in out["value_name"]]
    for column in ("row_attributes", "col_attributes"):
        out[column] = [_map_list(v, words.obfuscate) for v in out[column]]
    return out


def obfuscate_grid(cells: pa.Table, words: WordMap) -> pa.Table:
    """Synthetic cells of int_table_grid for the variant: texts, caption and group labels mapped."""
    out = cells.set_column(cells.schema.get_field_index("table_id"), "table_id",
                           _obfuscated_table_ids(cells["table_id"]))
    for column in ("text", "caption"):
        out = out.set_column(out.schema.get_field_index(column), column, _mapped_texts(out[column], words.obfuscate))
    for column in ("row_group", "col_group"):
        out = out.set_column(out.schema.get_field_index(column), column,
                             _mapped_text_lists(out[column], words.obfuscate))
    return out


def _obfuscated_table_ids(table_ids: "pa.ChunkedArray | pa.Array") -> "pa.ChunkedArray | pa.Array":
    """obfuscated_table_id of every id of an Arrow column."""
    return pc.binary_join_element_wise(table_ids, OBFUSCATED_SUFFIX, "")


def _mapped_texts(texts: "pa.ChunkedArray | pa.Array", fn: Callable[[str], str]) -> pa.Array:
    """An Arrow text column with every text mapped by `fn`, each distinct text once (a table's labels repeat on
    every row); NULLs kept."""
    texts = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    encoded = pc.dictionary_encode(texts)
    mapped = pa.array([fn(t) for t in encoded.dictionary.to_pylist()], texts.type)
    return pc.take(mapped, encoded.indices)


def _mapped_text_lists(lists: "pa.ChunkedArray | pa.Array", fn: Callable[[str], str]) -> pa.Array:
    """An Arrow list-of-text column with every text mapped by `fn` (`_mapped_texts`); NULL lists and NULL
    texts kept."""
    lists = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    return type(lists).from_arrays(lists.offsets, _mapped_texts(lists.values, fn),
                                   mask=lists.is_null() if lists.null_count else None)


# in the question SQL (sqlglot's output): a string literal, a quoted identifier, or a bare word
_SQL_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\b[A-Za-z_][A-Za-z0-9_]*\b")


def obfuscate_sql(sql: str, fn: Callable[[str], str], names: Iterable[str]) -> str:
    """The question's SQL with the column names in `names` (the table's attributes) and every string literal
    mapped by `fn`; `T`, `Value`, keywords, numbers and the query's shape kept. A token pass, not a re-parse:
    sqlglot wrote these statements, and the round-trip data test runs every mapped one."""
    names = frozenset(names) - {VALUE_COLUMN}

    def one(m: re.Match) -> str:
        tok = m.group(0)
        if tok[0] == "'":
            return "'" + fn(tok[1:-1].replace("''", "'")).replace("'", "''") + "'"
        if tok[0] == '"':
            name = tok[1:-1].replace('""', '"')
            return '"' + fn(name).replace('"', '""') + '"' if name in names else tok
        return fn(tok) if tok in names else tok

    return _SQL_TOKEN.sub(one, sql)


def obfuscate_sql_ast(sql: str, fn: Callable[[str], str]) -> str:
    """The same through sqlglot's AST (every column but `Value`): the slow reference the unit tests compare to."""
    tree = sqlglot.parse_one(sql, read="duckdb")

    def visit(node):
        if isinstance(node, exp.Column) and node.name != VALUE_COLUMN:
            ident = node.this
            return exp.column(exp.Identifier(this=fn(ident.name), quoted=ident.args.get("quoted", False)))
        if isinstance(node, exp.Literal) and node.is_string:
            return exp.Literal.string(fn(node.this))
        return node

    return tree.transform(visit).sql(dialect="duckdb")


def obfuscate_filters(filters: Iterable[dict], fn: Callable[[str], str]) -> list[dict]:
    """Conditions ({attribute, values}) with attribute names and values mapped."""
    return [{**f, "attribute": fn(f["attribute"]), "values": [fn(v) for v in f["values"]]} for f in filters]


def obfuscate_spec(spec: dict, fn: Callable[[str], str]) -> dict:
    """The question spec (docs/contracts.md) with attribute names and filter values mapped."""
    def filters(fs):
        return obfuscate_filters(fs, fn)

    def named(items):
        return [{**i, "name": fn(i["name"])} if i.get("kind") == "attribute" else i for i in items]

    out = dict(spec)
    out["filters"] = filters(spec.get("filters") or [])
    out["group_by"] = [fn(g) for g in spec.get("group_by") or []]
    out["select"] = named(spec.get("select") or [])
    out["order_by"] = named(spec.get("order_by") or [])
    semi = spec.get("semi_join")
    if semi:
        out["semi_join"] = {**semi, "attributes": [fn(a) for a in semi["attributes"]],
                            "filters": filters(semi.get("filters") or [])}
    return out


def _answer_json(text: str, fn: Callable[[str], str]) -> str:
    rows = json.loads(text)
    return json.dumps([[fn(v) if isinstance(v, str) else v for v in row] for row in rows], default=str)


def obfuscate_questions(questions: pd.DataFrame, words_by_table: Mapping[str, frozenset],
                        words: WordMap, attributes_by_table: Mapping[str, Iterable[str]]) -> pd.DataFrame:
    """int_question_instances of the variant: question text (the table's words only), SQL, literals, spec,
    Python answer and projected attributes mapped; ids of the variant; every other column kept."""
    out = questions.copy()
    originals = out["table_id"].tolist()
    out.insert(1, "original_question_id", out["question_id"])
    out.insert(2, "original_table_id", originals)
    out["question_id"] = [obfuscated_question_id(q, t) for q, t in zip(out["question_id"], originals)]
    out["table_id"] = [obfuscated_table_id(t) for t in originals]
    missing = sorted(set(originals) - set(words_by_table))
    if missing:
        raise KeyError(f"obfuscation: no table words for table {missing[0]!r} ({len(missing)} tables)")
    out["question"] = [words.obfuscate(q, only=words_by_table[t]) for q, t in zip(out["question"], originals)]
    out["sql"] = [obfuscate_sql(s, words.obfuscate, attributes_by_table[t]) for s, t in zip(out["sql"], originals)]
    out["sql_literals"] = [_map_list(v, words.obfuscate) for v in out["sql_literals"]]
    out["spec_json"] = [json.dumps(obfuscate_spec(json.loads(s), words.obfuscate), sort_keys=True)
                        for s in out["spec_json"]]
    out["py_answer_json"] = [_answer_json(a, words.obfuscate) for a in out["py_answer_json"]]
    out["projected_attributes"] = [_map_list(v, words.obfuscate) for v in out["projected_attributes"]]
    if "tables" in out:  # the tables it reads: the twin reads the twins of its original's
        out["tables"] = [[obfuscated_table_id(t) for t in ts] for ts in out["tables"]]
        out["table_conditions_json"] = [
            json.dumps([obfuscate_filters(c, words.obfuscate) for c in json.loads(s)], sort_keys=True)
            for s in out["table_conditions_json"]]
    if "paraphrases_json" in out.columns:  # the paraphrase sets restate the originals only
        out["paraphrases_json"] = None
    return out


def as_lists(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """List columns as plain lists (DuckDB hands numpy arrays to Python models)."""
    for c in columns:
        frame[c] = [v.tolist() if isinstance(v, np.ndarray) else v for v in frame[c]]
    return frame
