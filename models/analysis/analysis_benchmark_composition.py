"""What a build contains: tables and questions per domain, template, property and property combination."""
from evaluation_py.analysis import benchmark_composition
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    # the HCT-QA composition: its questions alone (a build with var question_suites [hctqa, treb] adds others)
    out = benchmark_composition(dbt.ref("benchmark_tables").df(),
                                dbt.ref("benchmark_questions").filter("suite = 'hctqa'").df())
    return stamp(out, dbt.ref("stg_build_config"))
