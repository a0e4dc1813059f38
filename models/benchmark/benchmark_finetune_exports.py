"""Writes the fine-tuning sets (Hugging Face Parquet splits, LLaMA-Factory's dataset_info.json naming them)
under <exports_dir>/, a batch of examples at a time."""
from pathlib import Path

from evaluation_py.exports.finetune_training import write_training_configs
from evaluation_py.exports.finetune_sets import (LLAMAFACTORY_DIR, COMBINED_CONFIGS, QUESTION_COLUMNS, QUESTION_VIEW_COLUMN, SOURCE_CONFIGS,
                                                choice_examples, example_batches, question_examples, source_config,
                                                write_finetune_exports, written_frame)
from generator_py.dbt_glue.build_config import database_path, output_dir, stamp
from generator_py.dbt_glue.vars import bool_var


def _project(relation, wanted):
    """The wanted columns the relation has (benchmark_questions gains columns as families are added)."""
    return relation.project(", ".join(f'"{c}"' for c in wanted if c in relation.columns)).df()


def model(dbt, session):
    dbt.config(materialized="table")
    out_dir = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
    alpaca_json = bool_var("finetune_alpaca_json", dbt.config.get("finetune_alpaca_json"), False)
    splits = dbt.ref("benchmark_finetune_splits").project("table_id, original_table_id, split").df()
    tables = dbt.ref("benchmark_tables").project("table_id, variant, html, csv").df()
    # a naming question's own view (its answer hidden) is what its example shows, as its prompt does
    questions = _project(dbt.ref("benchmark_questions"),
                         ("question_id", "table_id", *QUESTION_COLUMNS, QUESTION_VIEW_COLUMN))
    items = _project(dbt.ref("benchmark_choice_items"),
                     ("item_id", "table_id", "other_table_id", "other_table_position", "subset", "content_variant",
                      "question", "option_a", "option_b", "correct_option", "table_csv"))
    split_of = dict(zip(splits["table_id"], splits["split"]))

    def keyed(frame, id_column):  # the rows with the keys example_batches orders them by
        split = frame["table_id"].map(split_of)
        if split.isna().any():
            raise ValueError(f"fine-tuning export: table {frame.loc[split.isna(), 'table_id'].iloc[0]!r} "
                             "is not in benchmark_finetune_splits")
        return frame.assign(id=frame[id_column].astype(str), split=split)

    def examples_of(rows):
        return example_batches(keyed(rows, "question_id"),
                               lambda part: question_examples(part.drop(columns=["id", "split"]), tables, splits))

    variants = questions["variant"] if "variant" in questions.columns else None
    originals = questions if variants is None else questions[variants != "obfuscated"]
    # one config per source (the fine-tuning sets are these, alone or together); the obfuscated twins
    # in a config of their own: a user of the originals filters nothing out
    config_of = [source_config(s, q) for s, q in zip(originals["source"], originals["question_id"])]
    configs = {config: examples_of(originals[[c == config for c in config_of]]) for config in SOURCE_CONFIGS.values()}
    if variants is not None and (variants == "obfuscated").any():
        configs["questions_obfuscated"] = examples_of(questions[variants == "obfuscated"])
    configs["choice_items"] = example_batches(keyed(items, "item_id"),
                                              lambda part: choice_examples(part.drop(columns=["id", "split"]),
                                                                           tables, splits))
    written = write_finetune_exports(out_dir, configs, alpaca_json=alpaca_json, combined=COMBINED_CONFIGS)
    # a LLaMA-Factory training config per fine-tuning set with training examples (scripts/finetune.sh runs one)
    written += write_training_configs(Path(out_dir) / LLAMAFACTORY_DIR, written)
    return stamp(written_frame(written), dbt.ref("stg_build_config"))
