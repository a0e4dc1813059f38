"""Fine-tuning sets of the benchmark: LLaMA-Factory's alpaca JSON and Parquet splits that Hugging Face
`datasets` loads, one config per kind of example, split by table (`finetune_splits`).

Configs:

- `questions`: every row of benchmark_questions (the HCT-QA templates and whatever other families
  the build has), asked as the evaluation asks them: `instruction` is the zero-shot prompt's system
  text (`prompts.PROMPT`), `input` its user message on the table's HTML, `output` the answer written
  as a model is asked to answer (the oracle's form of `answer_gt`, `a || 1`);
- `choice_items`: every row of benchmark_choice_items whose tables lie in one split: the table(s) as
  CSV, the question and options A and B; `output` the right letter.

Files, under `<exports_dir>/`:

- `hf/<config>/<split>-00000-of-00001.parquet` and `hf/README.md`, a dataset card whose `configs`
  name those files (`datasets.load_dataset("<exports>/hf", "questions")`);
- `llamafactory/hctqa_<config>_<split>.json` (a JSON list of instruction / input / output) and
  `llamafactory/dataset_info.json` (one entry per file, for LLaMA-Factory's `dataset_dir`).

Rows are ordered by id and files carry no timestamps: the same benchmark gives the same bytes. No dbt imports.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pandas as pd

import pyarrow as pa
import pyarrow.parquet as pq

from generator_py.exports.parquet import (PARQUET_COMPRESSION, PARQUET_COMPRESSION_LEVEL, PARQUET_ROW_GROUP_SIZE,
                                         arrow_table, replace_if_changed, replace_with_if_changed)

from ..backends.oracle_backend import gt_to_answer
from .finetune_splits import SPLITS
from ..prompting.prompts import PROMPT, build_messages
from ..running.requests import QUESTION_RENDERING_COLUMN, question_table_texts

HF_DIR = "hf"
LLAMAFACTORY_DIR = "llamafactory"
DATASET_INFO = "dataset_info.json"
CARD = "README.md"
TABLE_FORMAT = "html"  # the rendering questions are asked on (the evaluation's default format)
# The column of benchmark_questions with a question's own view in that format (NULL: its table's)
QUESTION_VIEW_COLUMN = QUESTION_RENDERING_COLUMN[TABLE_FORMAT]
EXAMPLE_COLUMNS = ("id", "table_id", "original_table_id", "split", "instruction", "input", "output")
# Columns of benchmark_questions carried into the questions config beside the example (when the mart has them).
QUESTION_COLUMNS = ("source", "dataset", "template_id", "suite", "family", "variant", "question", "answer_gt")
CHOICE_COLUMNS = ("subset", "content_variant", "question", "option_a", "option_b", "correct_option")
CHOICE_INSTRUCTION = (
    "You choose the option that answers a question about a table. Use only information from the table; "
    "do not use outside knowledge.\n"
    "Reply with only the letter of the right option: A or B. Give no explanation and no other text."
)


# The paper's three fine-tuning sets of questions: real tables only, synthetic only, both. A source's
# questions are one config of files (questions_<source>); a set of several sources is the union of their
# configs (a card config listing their files, a comma-separated dataset list in LLaMA-Factory), stored once.
SOURCE_CONFIGS = {"real": "questions_real", "synthetic": "questions_synthetic"}
FINETUNE_SETS = {"real": ("questions_real",), "synthetic": ("questions_synthetic",),
                 "real_synthetic": ("questions_real", "questions_synthetic")}
COMBINED_CONFIGS = {"questions": FINETUNE_SETS["real_synthetic"]}  # card configs made of other configs' files


def source_config(source: str, question_id: str) -> str:
    """The config a question of `source` is exported in; an error names a question of another source."""
    if source not in SOURCE_CONFIGS:
        raise ValueError(f"fine-tuning export: question {question_id!r} has source {source!r}; "
                         f"sources are {', '.join(SOURCE_CONFIGS)}")
    return SOURCE_CONFIGS[source]


def set_datasets(finetune_set: str, split: str = "train") -> str:
    """LLaMA-Factory's `dataset` value for a fine-tuning set: its configs' `split` entries of dataset_info.json."""
    if finetune_set not in FINETUNE_SETS:
        raise ValueError(f"unknown fine-tuning set {finetune_set!r}; sets are {', '.join(FINETUNE_SETS)}")
    return ",".join(alpaca_name(config, split)[:-len(".json")] for config in FINETUNE_SETS[finetune_set])


@dataclass(frozen=True)
class WrittenFile:
    path: Path
    config: Optional[str]  # None for the card and dataset_info.json
    split: Optional[str]
    file_format: str  # parquet, alpaca, card, dataset_info
    n_examples: Optional[int]
    n_tables: Optional[int]


def _split_columns(frame: pd.DataFrame, splits: pd.DataFrame, table_column: str = "table_id") -> pd.DataFrame:
    where = splits.set_index("table_id")
    unknown = sorted(set(frame[table_column].tolist()) - set(where.index))
    if unknown:
        raise ValueError(f"fine-tuning export: table {unknown[0]!r} is not in benchmark_tables")
    return frame.assign(original_table_id=frame[table_column].map(where["original_table_id"]).to_numpy(),
                        split=frame[table_column].map(where["split"]).to_numpy())


def question_examples(questions: pd.DataFrame, tables: pd.DataFrame, splits: pd.DataFrame) -> pd.DataFrame:
    """One example per question: the evaluation's prompt on the question's HTML view, and the expected reply.

    The view is the one an evaluation prompt shows (`requests.question_table_texts`): a question that hides
    part of its table (`rendering_html`, the naming families: the caption or header that is its answer)
    is shown without it, so no example shows its own answer."""
    q = _split_columns(questions, splits)
    texts = question_table_texts(q, tables, TABLE_FORMAT)
    # the columns as Python lists: iterating a frame's Arrow-backed text column is an order slower
    missing = [qid for qid, text in zip(q["question_id"].tolist(), texts) if not isinstance(text, str)]
    if missing:
        raise ValueError(f"fine-tuning export: question {missing[0]!r} has a table without {TABLE_FORMAT}")
    inputs = [build_messages(text, TABLE_FORMAT, question)[1]["content"]
              for text, question in zip(texts, q["question"].tolist())]
    out = pd.DataFrame({"id": q["question_id"].astype(str).to_numpy(), "table_id": q["table_id"].to_numpy(),
                        "original_table_id": q["original_table_id"].to_numpy(), "split": q["split"].to_numpy(),
                        "instruction": PROMPT.system, "input": inputs,
                        "output": [gt_to_answer(gt) for gt in q["answer_gt"].tolist()]})
    for c in QUESTION_COLUMNS:
        if c in q.columns:
            out[c] = q[c].to_numpy()
    return out.sort_values("id", kind="stable").reset_index(drop=True)


def _choice_input(tables_csv: list[str], question: str, option_a: str, option_b: str) -> str:
    if len(tables_csv) == 1:
        shown = f"Table (CSV):\n{tables_csv[0].rstrip()}"
    else:
        shown = "\n\n".join(f"Table {i} (CSV):\n{t.rstrip()}" for i, t in enumerate(tables_csv, 1))
    return f"{shown}\n\nQuestion: {question.strip()}\nA. {option_a}\nB. {option_b}"


def choice_examples(items: pd.DataFrame, tables: pd.DataFrame, splits: pd.DataFrame) -> pd.DataFrame:
    """One example per choice item whose tables lie in one split (an m_tis item's second table may be
    in another: that item is left out, so no table is seen in two splits)."""
    csv = dict(zip(tables["table_id"].tolist(), tables["csv"].tolist()))
    split_of = dict(zip(splits["table_id"].tolist(), splits["split"].tolist()))
    it = _split_columns(items, splits)
    other = it["other_table_id"] if "other_table_id" in it.columns else pd.Series([None] * len(it), index=it.index)
    # the columns as Python lists: iterating a frame's Arrow-backed text column is an order slower
    other = [None if pd.isna(o) else o for o in other.tolist()]  # NaN or None, by dtype: one missing value here
    keep = [o is None or split_of.get(o) == s for o, s in zip(other, it["split"].tolist())]
    it, other = it[keep], [o for o, k in zip(other, keep) if k]
    own = it["table_csv"].where(it["table_csv"].notna(), it["table_id"].map(csv)) if "table_csv" in it.columns \
        else it["table_id"].map(csv)
    position = it["other_table_position"] if "other_table_position" in it.columns else pd.Series([None] * len(it),
                                                                                               index=it.index)
    inputs = []
    for own_csv, o, pos, qtext, a, b in zip(own.tolist(), other, position.tolist(), it["question"].tolist(),
                                            it["option_a"].tolist(), it["option_b"].tolist()):
        shown = [own_csv] if o is None else ([csv[o], own_csv] if pos == "before" else [own_csv, csv[o]])
        inputs.append(_choice_input(shown, qtext, a, b))
    out = pd.DataFrame({"id": it["item_id"].astype(str).to_numpy(), "table_id": it["table_id"].to_numpy(),
                        "original_table_id": it["original_table_id"].to_numpy(), "split": it["split"].to_numpy(),
                        "instruction": CHOICE_INSTRUCTION, "input": inputs,
                        "output": it["correct_option"].astype(str).to_numpy()})
    for c in CHOICE_COLUMNS:
        if c in it.columns:
            out[c] = it[c].to_numpy()
    return out.sort_values("id", kind="stable").reset_index(drop=True)


def parquet_name(split: str) -> str:
    return f"{split}-00000-of-00001.parquet"


def alpaca_name(config: str, split: str) -> str:
    return f"hctqa_{config}_{split}.json"


def dataset_card(counts: dict[str, dict[str, tuple[int, int]]], combined: Optional[dict] = None) -> str:
    """The README that tells `datasets` which files are which config and split (YAML front matter);
    `counts`: config -> split -> (examples, tables); `combined`: a config made of other configs' files
    (the configs it unites, each in `counts`)."""
    lines = ["---", "configs:"]
    for config in counts:
        lines += [f"- config_name: {config}", "  data_files:"]
        lines += [f"  - split: {s}\n    path: {config}/{parquet_name(s)}" for s in SPLITS]
    for config, parts in (combined or {}).items():
        lines += [f"- config_name: {config}", "  data_files:"]
        for s in SPLITS:
            # the parts with examples in the split: an empty part's file has no columns of its own to unite
            shown = [p for p in parts if counts[p][s][0]] or list(parts[:1])
            lines += [f"  - split: {s}", "    path:"] + [f"    - {part}/{parquet_name(s)}" for part in shown]
    lines += ["---", "", "# HCT-QA fine-tuning sets", "",
              "Built by this project's `dbt build` (model benchmark_finetune_exports). Splits are by table: a "
              "table and its variants are in one split only, drawn from the seed and the original table's id.", "",
              "| config | split | examples | tables |", "|---|---|---|---|"]
    for config, per_split in counts.items():
        for s in SPLITS:
            n_examples, n_tables = per_split[s]
            lines.append(f"| {config} | {s} | {n_examples} | {n_tables} |")
    for config, parts in (combined or {}).items():
        lines += ["", f"Config `{config}` is {' and '.join(f'`{p}`' for p in parts)} together (their files with "
                  "examples)."]
    lines += ["", "Columns: `instruction`, `input`, `output` (the prompt and the expected reply), `id`, `table_id`, "
              "`original_table_id`, `split`, and the config's own (see the project's models/benchmark/"
              "_benchmark_finetune_exports.yml).", ""]
    return "\n".join(lines)


def _write_text(path: Path, text: str) -> None:
    replace_if_changed(text.encode("utf-8"), path)


ALPACA_CHUNK = 2000  # examples encoded per call: the C encoder's speed without the whole file in memory
# Examples built and written per batch: a multiple of the row-group size, so the files' bytes do not
# depend on the batching, and a bound on what one batch holds (each example carries its table's text).
EXAMPLE_BATCH = 4 * PARQUET_ROW_GROUP_SIZE


def _alpaca_rows(frame: pd.DataFrame) -> str:
    """Frame rows as the comma-separated members of a JSON list of {instruction, input, output}."""
    columns = [frame[c].tolist() for c in ("instruction", "input", "output")]
    parts = []
    for start in range(0, len(frame), ALPACA_CHUNK):
        rows = [{"instruction": i, "input": x, "output": o}
                for i, x, o in zip(*(c[start:start + ALPACA_CHUNK] for c in columns))]
        parts.append(json.dumps(rows, ensure_ascii=False)[1:-1])
    return ",".join(p for p in parts if p)


def split_order(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` (with `split` and `id`) in split order (SPLITS), then id order: the order of the files."""
    rank = frame["split"].map({s: i for i, s in enumerate(SPLITS)})
    if rank.isna().any():
        raise ValueError(f"unknown split {frame.loc[rank.isna(), 'split'].iloc[0]!r}")
    return (frame.assign(_rank=rank.to_numpy()).sort_values(["_rank", "id"], kind="stable")
            .drop(columns="_rank").reset_index(drop=True))


def example_batches(keys: pd.DataFrame, build, batch: int = EXAMPLE_BATCH):
    """The examples of `keys` (rows with `id` and `split`, one per example), built by `build(rows)` a batch at
    a time in split and id order, no batch across two splits: what `write_finetune_exports` writes."""
    ordered = split_order(keys)
    for split in SPLITS:
        part = ordered[ordered["split"] == split]
        for start in range(0, len(part), batch):
            yield build(part.iloc[start:start + batch])


class _SplitFile:
    """One config's split: its Parquet file (and, when asked, its alpaca JSON), written a batch at a time."""

    def __init__(self, hf: Path, lf: Path, config: str, split: str, alpaca_json: bool):
        self.config, self.split = config, split
        self.parquet = hf / config / parquet_name(split)
        self.alpaca = lf / alpaca_name(config, split) if alpaca_json else None
        self.writer = None
        self.json_file = None
        self.n_examples = 0
        self.tables: set = set()
        self.wrote_json = False

    def write(self, part: pd.DataFrame, name: str) -> None:
        table = arrow_table(part, frozenset(), frozenset(), name)
        if self.writer is None:
            self.writer = pq.ParquetWriter(self._tmp(self.parquet), table.schema, compression=PARQUET_COMPRESSION,
                                           compression_level=PARQUET_COMPRESSION_LEVEL, write_statistics=True)
        self.writer.write_table(table, row_group_size=PARQUET_ROW_GROUP_SIZE)
        if self.alpaca is not None:
            if self.json_file is None:
                self.json_file = open(self._tmp(self.alpaca), "w", encoding="utf-8", newline="\n")
                self.json_file.write("[")
            rows = _alpaca_rows(part)
            if rows:
                self.json_file.write(("," if self.wrote_json else "") + rows)
                self.wrote_json = True
        self.n_examples += len(part)
        self.tables.update(part["table_id"].tolist())

    def close(self, schema_of_empty) -> list[WrittenFile]:
        if self.writer is None:  # a split without examples: an empty file of the config's columns
            self.writer = pq.ParquetWriter(self._tmp(self.parquet), schema_of_empty, compression=PARQUET_COMPRESSION,
                                           compression_level=PARQUET_COMPRESSION_LEVEL, write_statistics=True)
        self.writer.close()
        replace_with_if_changed(self._tmp(self.parquet), self.parquet)
        out = [WrittenFile(self.parquet, self.config, self.split, "parquet", self.n_examples, len(self.tables))]
        if self.alpaca is not None:
            if self.json_file is None:
                self.json_file = open(self._tmp(self.alpaca), "w", encoding="utf-8", newline="\n")
                self.json_file.write("[")
            self.json_file.write("]\n")
            self.json_file.close()
            replace_with_if_changed(self._tmp(self.alpaca), self.alpaca)
            out.append(WrittenFile(self.alpaca, self.config, self.split, "alpaca", self.n_examples, len(self.tables)))
        return out

    @staticmethod
    def _tmp(path: Path) -> Path:
        return path.with_name(path.name + ".tmp")


def write_finetune_exports(out_dir, configs: dict, alpaca_json: bool = False,
                           combined: Optional[dict] = None) -> list[WrittenFile]:
    """Write every config's splits as Parquet (+ the dataset card) and LLaMA-Factory's dataset_info.json
    under `out_dir`; with `alpaca_json` also each split as alpaca JSON (for readers without Parquet).

    `configs` maps a config's name to its examples: a frame, or an iterable of frames (`example_batches`)
    in split order, then id order, none across two splits; `combined` names card configs made of
    those configs' files (COMBINED_CONFIGS, where every config it unites is written). dataset_info.json names the Parquet files
    (LLaMA-Factory reads Parquet by the file's extension), or the JSON ones when `alpaca_json`.
    """
    out = Path(out_dir)
    hf, lf = out / HF_DIR, out / LLAMAFACTORY_DIR
    lf.mkdir(parents=True, exist_ok=True)
    written: list[WrittenFile] = []
    dataset_info = {}
    counts: dict[str, dict[str, tuple[int, int]]] = {}
    for config, examples in configs.items():
        (hf / config).mkdir(parents=True, exist_ok=True)
        if isinstance(examples, pd.DataFrame):
            examples = example_batches(examples, lambda rows: rows, batch=max(len(examples), 1))
        files = {s: _SplitFile(hf, lf, config, s, alpaca_json) for s in SPLITS}
        schema, seen = None, -1
        try:
            for part in examples:
                if len(part) == 0:
                    continue
                split = part["split"].iloc[0]
                if split not in files or (part["split"] != split).any():
                    raise ValueError(f"a batch of examples is not of one known split ({sorted(set(part['split']))})")
                if SPLITS.index(split) < seen:
                    raise ValueError(f"examples not in split order ({split!r} after a later split)")
                seen = SPLITS.index(split)
                files[split].write(part, f"finetune {config}")
                if schema is None:
                    schema = arrow_table(part.iloc[:0], frozenset(), frozenset(), config).schema
        except ValueError as e:
            raise ValueError(f"fine-tuning export {config!r}: {e}") from None
        if schema is None:
            schema = pa.schema([(c, pa.string()) for c in EXAMPLE_COLUMNS])
        counts[config] = {}
        for split, f in files.items():
            done = f.close(schema)
            written += done
            counts[config][split] = (f.n_examples, len(f.tables))
            target = done[-1].path if alpaca_json else done[0].path
            dataset_info[alpaca_name(config, split)[:-len(".json")]] = {
                "file_name": os.path.relpath(target, lf).replace(os.sep, "/"), "formatting": "alpaca",
                "columns": {"prompt": "instruction", "query": "input", "response": "output"}}
    hf.mkdir(parents=True, exist_ok=True)
    combined = {c: parts for c, parts in (combined or {}).items() if all(p in counts for p in parts)}
    _write_text(hf / CARD, dataset_card(counts, combined))
    written.append(WrittenFile(hf / CARD, None, None, "card", None, None))
    _write_text(lf / DATASET_INFO, json.dumps(dataset_info, indent=2, ensure_ascii=False) + "\n")
    written.append(WrittenFile(lf / DATASET_INFO, None, None, "dataset_info", None, None))
    _remove_orphans(hf, lf, {w.path for w in written})
    return written


def _remove_orphans(hf: Path, lf: Path, kept: set) -> None:
    """Files of an earlier export this one did not write (a config gone, the JSON form turned off)."""
    for path in [*hf.glob("*/*.parquet"), *lf.glob("hctqa_*.json")]:
        if path not in kept:
            path.unlink()
    for folder in hf.iterdir():
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def written_frame(written: list[WrittenFile]) -> pd.DataFrame:
    """The files as rows of benchmark_finetune_exports."""
    return pd.DataFrame({
        "path": [str(w.path) for w in written],
        "config": [w.config for w in written],
        "split": [w.split for w in written],
        "file_format": [w.file_format for w in written],
        "n_examples": pd.array([w.n_examples for w in written], dtype="Int64"),
        "n_tables": pd.array([w.n_tables for w in written], dtype="Int64"),
        "bytes": pd.array([w.path.stat().st_size for w in written], dtype="int64"),
    })


def composition_rows(exports: pd.DataFrame) -> pd.DataFrame:
    """Rows for analysis_benchmark_composition: facet `finetune_split`, key `<config>/<split>`, the
    split's tables and examples (counted in n_questions), from benchmark_finetune_exports' Parquet rows."""
    parquet = exports[exports["file_format"] == "parquet"]
    return pd.DataFrame({"facet": "finetune_split",
                         "key": (parquet["config"] + "/" + parquet["split"]).to_numpy(),
                         "n_tables": parquet["n_tables"].astype("int64").to_numpy(),
                         "n_questions": parquet["n_examples"].astype("int64").to_numpy()})
