"""Writes the fine-tuning sets (LLaMA-Factory alpaca JSON, Hugging Face Parquet splits) under <exports_dir>/."""
from evaluation_py.finetune_export import (QUESTION_COLUMNS, choice_examples, question_examples,
                                           write_finetune_exports, written_frame)
from generator_py.build_config import database_path, output_dir, stamp


def _project(relation, wanted):
    """The wanted columns the relation has (benchmark_questions gains columns as families are added)."""
    return relation.project(", ".join(f'"{c}"' for c in wanted if c in relation.columns)).df()


def model(dbt, session):
    dbt.config(materialized="table")
    out_dir = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
    splits = dbt.ref("benchmark_finetune_splits").project("table_id, original_table_id, split").df()
    tables = dbt.ref("benchmark_tables").project("table_id, html, csv").df()
    questions = _project(dbt.ref("benchmark_questions"), ("question_id", "table_id", *QUESTION_COLUMNS))
    items = dbt.ref("benchmark_choice_items")
    items = _project(items, ("item_id", "table_id", "other_table_id", "other_table_position", "subset",
                             "content_variant", "question", "option_a", "option_b", "correct_option", "table_csv"))
    configs = {"questions": question_examples(questions, tables, splits),
               "choice_items": choice_examples(items, tables, splits)}
    return stamp(written_frame(write_finetune_exports(out_dir, configs)), dbt.ref("stg_build_config"))
