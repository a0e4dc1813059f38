"""What a build contains: tables and questions per domain, template, property and property combination."""
import pandas as pd

from evaluation_py.analysis import benchmark_composition
from evaluation_py.finetune_export import composition_rows
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    out = benchmark_composition(dbt.ref("benchmark_tables").df(), dbt.ref("benchmark_questions").df())
    # the fine-tuning splits: tables and examples per config and split
    finetune = composition_rows(dbt.ref("benchmark_finetune_exports").df())
    out = pd.concat([out, finetune.astype({c: out[c].dtype for c in ("n_tables", "n_questions")})],
                    ignore_index=True)
    return stamp(out, dbt.ref("stg_build_config"))
