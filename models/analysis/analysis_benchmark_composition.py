"""What a build contains: tables and questions per domain, template, property and property combination."""
import pandas as pd

from evaluation_py.analysis import benchmark_composition
from evaluation_py.analysis.composition import choice_item_composition
from evaluation_py.exports.finetune_sets import composition_rows
from generator_py.dbt_glue.build_config import built_relation, stamp
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import table_text_columns, without_columns
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    # the HCT-QA composition: its questions alone (a build with var question_suites [hctqa, treb] adds others), in
    # the columns it counts by (the questions' other columns are GBs at 10x scale)
    out = in_child_process(benchmark_composition,
                           frame(without_columns(dbt.ref("benchmark_tables"), table_text_columns())),
                           frame(dbt.ref("benchmark_questions").filter("suite = 'hctqa'")
                                 .project("question_id, table_id, template_id, variant")))
    config = dbt.ref("stg_build_config")

    def benchmark_finetune_exports():  # a nested def: dbt reads a Python model's refs there, not in a lambda
        return dbt.ref("benchmark_finetune_exports")

    def benchmark_choice_items():
        return dbt.ref("benchmark_choice_items")

    # the heavy parts (tags finetune, choice) where this build's configuration built them
    exports = built_relation(benchmark_finetune_exports, config)
    if exports is not None:  # the fine-tuning splits: tables and examples per config and split
        finetune = composition_rows(frame(exports))
        out = pd.concat([out, finetune.astype({c: out[c].dtype for c in ("n_tables", "n_questions")})],
                        ignore_index=True)
    items = built_relation(benchmark_choice_items, config)
    if items is not None:  # the choice items per subset and per subset x distractor strategy (n_questions: items)
        choice = frame(items.project("table_id, subset, distractor_strategy"))
        out = pd.concat([out, choice_item_composition(choice)], ignore_index=True)
    return stamp(out, dbt.ref("stg_build_config"))
