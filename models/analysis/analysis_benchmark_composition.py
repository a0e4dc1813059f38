"""What a build contains: tables and questions per domain, template, property and property combination."""
import pandas as pd

from evaluation_py.analysis import benchmark_composition
from evaluation_py.analysis.composition import choice_item_composition
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    out = benchmark_composition(dbt.ref("benchmark_tables").df(), dbt.ref("benchmark_questions").df())
    # issue 13: the choice items per subset and per subset x distractor strategy (n_questions: items)
    choice = dbt.ref("benchmark_choice_items").project("table_id, subset, distractor_strategy").df()
    out = pd.concat([out, choice_item_composition(choice)], ignore_index=True)
    return stamp(out, dbt.ref("stg_build_config"))
