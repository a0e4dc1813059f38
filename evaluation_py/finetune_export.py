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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pandas as pd

from generator_py.parquet_export import arrow_table, write_parquet

from .backends.oracle_backend import gt_to_answer
from .finetune_splits import SPLITS
from .prompts import PROMPT, build_messages

HF_DIR = "hf"
LLAMAFACTORY_DIR = "llamafactory"
DATASET_INFO = "dataset_info.json"
CARD = "README.md"
TABLE_FORMAT = "html"  # the rendering questions are asked on (the evaluation's default format)
EXAMPLE_COLUMNS = ("id", "table_id", "original_table_id", "split", "instruction", "input", "output")
# Columns of benchmark_questions carried into the questions config beside the example (when the mart has them).
QUESTION_COLUMNS = ("source", "dataset", "template_id", "suite", "family", "variant", "question", "answer_gt")
CHOICE_COLUMNS = ("subset", "content_variant", "question", "option_a", "option_b", "correct_option")
CHOICE_INSTRUCTION = (
    "You choose the option that answers a question about a table. Use only information from the table; "
    "do not use outside knowledge.\n"
    "Reply with only the letter of the right option: A or B. Give no explanation and no other text."
)


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
    unknown = sorted(set(frame[table_column]) - set(where.index))
    if unknown:
        raise ValueError(f"fine-tuning export: table {unknown[0]!r} is not in benchmark_tables")
    return frame.assign(original_table_id=frame[table_column].map(where["original_table_id"]).to_numpy(),
                        split=frame[table_column].map(where["split"]).to_numpy())


def question_examples(questions: pd.DataFrame, tables: pd.DataFrame, splits: pd.DataFrame) -> pd.DataFrame:
    """One example per question: the evaluation's prompt on the HTML table, and the expected reply."""
    html = dict(zip(tables["table_id"], tables[TABLE_FORMAT]))
    q = _split_columns(questions, splits)
    missing = q.loc[q["table_id"].map(html).isna(), "question_id"]
    if len(missing):
        raise ValueError(f"fine-tuning export: question {missing.iloc[0]!r} has a table without {TABLE_FORMAT}")
    inputs = [build_messages(html[t], TABLE_FORMAT, text)[1]["content"]
              for t, text in zip(q["table_id"], q["question"])]
    out = pd.DataFrame({"id": q["question_id"].astype(str).to_numpy(), "table_id": q["table_id"].to_numpy(),
                        "original_table_id": q["original_table_id"].to_numpy(), "split": q["split"].to_numpy(),
                        "instruction": PROMPT.system, "input": inputs,
                        "output": [gt_to_answer(gt) for gt in q["answer_gt"]]})
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
    csv = dict(zip(tables["table_id"], tables["csv"]))
    split_of = dict(zip(splits["table_id"], splits["split"]))
    it = _split_columns(items, splits)
    other = it["other_table_id"] if "other_table_id" in it.columns else pd.Series([None] * len(it), index=it.index)
    other = [None if pd.isna(o) else o for o in other]  # NaN or None, by dtype: one missing value here
    keep = [o is None or split_of.get(o) == s for o, s in zip(other, it["split"])]
    it, other = it[keep], [o for o, k in zip(other, keep) if k]
    own = it["table_csv"].where(it["table_csv"].notna(), it["table_id"].map(csv)) if "table_csv" in it.columns \
        else it["table_id"].map(csv)
    position = it["other_table_position"] if "other_table_position" in it.columns else pd.Series([None] * len(it),
                                                                                               index=it.index)
    inputs = []
    for own_csv, o, pos, qtext, a, b in zip(own, other, position, it["question"], it["option_a"], it["option_b"]):
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


def dataset_card(configs: dict[str, pd.DataFrame]) -> str:
    """The README that tells `datasets` which files are which config and split (YAML front matter)."""
    lines = ["---", "configs:"]
    for config in configs:
        lines += [f"- config_name: {config}", "  data_files:"]
        lines += [f"  - split: {s}\n    path: {config}/{parquet_name(s)}" for s in SPLITS]
    lines += ["---", "", "# HCT-QA fine-tuning sets", "",
              "Built by this project's `dbt build` (model benchmark_finetune_exports). Splits are by table: a "
              "table and its variants are in one split only, drawn from the seed and the original table's id.", "",
              "| config | split | examples | tables |", "|---|---|---|---|"]
    for config, frame in configs.items():
        for s in SPLITS:
            part = frame[frame["split"] == s]
            lines.append(f"| {config} | {s} | {len(part)} | {part['table_id'].nunique()} |")
    lines += ["", "Columns: `instruction`, `input`, `output` (the prompt and the expected reply), `id`, `table_id`, "
              "`original_table_id`, `split`, and the config's own (see the project's models/benchmark/"
              "_benchmark_finetune_exports.yml).", ""]
    return "\n".join(lines)


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


ALPACA_CHUNK = 2000  # examples encoded per call: the C encoder's speed without the whole file in memory


def _write_alpaca(path: Path, frame: pd.DataFrame) -> None:
    """A JSON list of {instruction, input, output} (what LLaMA-Factory reads), written in chunks."""
    tmp = path.with_name(path.name + ".tmp")
    columns = [frame[c].tolist() for c in ("instruction", "input", "output")]
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write("[")
        for start in range(0, len(frame), ALPACA_CHUNK):
            rows = [{"instruction": i, "input": x, "output": o}
                    for i, x, o in zip(*(c[start:start + ALPACA_CHUNK] for c in columns))]
            f.write(("," if start else "") + json.dumps(rows, ensure_ascii=False)[1:-1])
        f.write("]\n")
    os.replace(tmp, path)


def _split_parts(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The frame's rows per split, each in id order (one sort, then slices: no boolean copies)."""
    rank = frame["split"].map({s: i for i, s in enumerate(SPLITS)})
    if rank.isna().any():
        raise ValueError(f"unknown split {frame.loc[rank.isna(), 'split'].iloc[0]!r}")
    ordered = frame.assign(_rank=rank.to_numpy()).sort_values(["_rank", "id"], kind="stable")
    bounds = ordered["_rank"].searchsorted(range(len(SPLITS) + 1), side="left")
    ordered = ordered.drop(columns="_rank").reset_index(drop=True)
    return {s: ordered.iloc[bounds[i]:bounds[i + 1]] for i, s in enumerate(SPLITS)}


def write_finetune_exports(out_dir, configs: dict[str, pd.DataFrame]) -> list[WrittenFile]:
    """Write every config's splits as Parquet (+ card) and alpaca JSON (+ dataset_info.json) under `out_dir`."""
    out = Path(out_dir)
    hf, lf = out / HF_DIR, out / LLAMAFACTORY_DIR
    written: list[WrittenFile] = []
    dataset_info = {}
    # Parquet (zstd in pyarrow, which releases the GIL) is written in a thread while the JSON is encoded.
    parquet_writer = ThreadPoolExecutor(max_workers=1)
    pending = []
    for config, frame in configs.items():
        try:
            parts = _split_parts(frame)
        except ValueError as e:
            raise ValueError(f"fine-tuning export {config!r}: {e}") from None
        (hf / config).mkdir(parents=True, exist_ok=True)
        lf.mkdir(parents=True, exist_ok=True)
        for split in SPLITS:
            part = parts[split]
            n_tables = int(part["table_id"].nunique())
            path = hf / config / parquet_name(split)
            pending.append(parquet_writer.submit(
                write_parquet, arrow_table(part, frozenset(), frozenset(), f"finetune {config}"), path))
            written.append(WrittenFile(path, config, split, "parquet", len(part), n_tables))
            name = alpaca_name(config, split)
            _write_alpaca(lf / name, part)
            written.append(WrittenFile(lf / name, config, split, "alpaca", len(part), n_tables))
            dataset_info[name[:-len(".json")]] = {
                "file_name": name, "formatting": "alpaca",
                "columns": {"prompt": "instruction", "query": "input", "response": "output"}}
    parquet_writer.shutdown(wait=True)
    for done in pending:
        done.result()  # a failed write raises here
    hf.mkdir(parents=True, exist_ok=True)
    lf.mkdir(parents=True, exist_ok=True)
    _write_text(hf / CARD, dataset_card(configs))
    written.append(WrittenFile(hf / CARD, None, None, "card", None, None))
    _write_text(lf / DATASET_INFO, json.dumps(dataset_info, indent=2, ensure_ascii=False) + "\n")
    written.append(WrittenFile(lf / DATASET_INFO, None, None, "dataset_info", None, None))
    return written


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
