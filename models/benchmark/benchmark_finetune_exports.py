"""Writes the fine-tuning sets (Hugging Face Parquet splits, LLaMA-Factory's dataset_info.json naming them)
under <exports_dir>/, a batch of examples at a time."""
from pathlib import Path

import pyarrow as pa

from evaluation_py.exports.finetune_training import write_training_configs
from evaluation_py.exports.finetune_sets import (LLAMAFACTORY_DIR, COMBINED_CONFIGS, QUESTION_COLUMNS, QUESTION_VIEW_COLUMN, SOURCE_CONFIGS,
                                                choice_examples, example_batches, question_examples, source_config,
                                                write_finetune_exports, written_frame)
from generator_py.dbt_glue.build_config import database_path, output_dir, stamp
from generator_py.dbt_glue.relations import arrow_table, frame_of, rows_where_in, take_rows
from generator_py.dbt_glue.vars import bool_var


def _project(relation, wanted) -> pa.Table:
    """The wanted columns the relation has (benchmark_questions gains columns as families are added), as Arrow:
    a few buffers; each batch of examples makes frames of its own rows only."""
    return arrow_table(relation.project(", ".join(f'"{c}"' for c in wanted if c in relation.columns)))


def model(dbt, session):
    dbt.config(materialized="table")
    out_dir = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
    alpaca_json = bool_var("finetune_alpaca_json", dbt.config.get("finetune_alpaca_json"), False)
    splits = dbt.ref("benchmark_finetune_splits").project("table_id, original_table_id, split").df()
    tables = arrow_table(dbt.ref("benchmark_tables").project("table_id, variant, html, csv"))
    # a naming question's own view (its answer hidden) is what its example shows, as its prompt does
    questions = _project(dbt.ref("benchmark_questions"),
                         ("question_id", "table_id", *QUESTION_COLUMNS, QUESTION_VIEW_COLUMN))
    items = _project(dbt.ref("benchmark_choice_items"),
                     ("item_id", "table_id", "other_table_id", "other_table_position", "subset", "content_variant",
                      "question", "option_a", "option_b", "correct_option", "table_csv"))
    split_of = dict(zip(splits["table_id"], splits["split"]))

    def keys(data, id_column, *more):  # a row per example: its keys, and its row in `data`
        frame = frame_of(data.select([id_column, "table_id", *(c for c in more if c in data.column_names)]))
        split = frame["table_id"].map(split_of)
        if split.isna().any():
            raise ValueError(f"fine-tuning export: table {frame.loc[split.isna(), 'table_id'].iloc[0]!r} "
                             "is not in benchmark_finetune_splits")
        return frame.assign(id=frame[id_column].astype(str), split=split, row=range(len(frame)))

    def rows_and_tables(data, part, table_columns):  # the batch's rows, and the tables they show
        rows = frame_of(take_rows(data, part["row"].to_numpy()))
        shown = {t for c in table_columns if c in rows.columns for t in rows[c].tolist() if isinstance(t, str)}
        return rows, frame_of(rows_where_in(tables, "table_id", shown))

    def question_batch(part):
        rows, shown = rows_and_tables(questions, part, ("table_id",))
        return question_examples(rows, shown, splits)

    def choice_batch(part):
        rows, shown = rows_and_tables(items, part, ("table_id", "other_table_id"))
        return choice_examples(rows, shown, splits)

    question_keys = keys(questions, "question_id", "source", "variant")
    variants = question_keys["variant"] if "variant" in question_keys.columns else None
    originals = question_keys if variants is None else question_keys[variants != "obfuscated"]
    # one config per source (the fine-tuning sets are these, alone or together); the obfuscated twins
    # in a config of their own: a user of the originals filters nothing out
    config_of = [source_config(s, q) for s, q in zip(originals["source"], originals["question_id"])]
    configs = {config: example_batches(originals[[c == config for c in config_of]], question_batch)
               for config in SOURCE_CONFIGS.values()}
    if variants is not None and (variants == "obfuscated").any():
        configs["questions_obfuscated"] = example_batches(question_keys[variants == "obfuscated"], question_batch)
    configs["choice_items"] = example_batches(keys(items, "item_id"), choice_batch)
    written = write_finetune_exports(out_dir, configs, alpaca_json=alpaca_json, combined=COMBINED_CONFIGS)
    # a LLaMA-Factory training config per fine-tuning set with training examples (scripts/finetune.sh runs one)
    written += write_training_configs(Path(out_dir) / LLAMAFACTORY_DIR, written)
    return stamp(written_frame(written), dbt.ref("stg_build_config"))
