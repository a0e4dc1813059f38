"""The paper's Table I statistics of this build's HCT-QA questions: see generator_py.questions.diversity."""
from generator_py.dbt_glue.build_config import stamp
from generator_py.questions.diversity import diversity_table
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    # the HCT-QA questions as generated or imported (the obfuscated twins and the treb suite aside)
    questions = frame(dbt.ref("benchmark_questions").filter("suite = 'hctqa' and variant = 'original'").project(
        "table_id, source, template_id, question"))
    return stamp(in_child_process(diversity_table, questions), dbt.ref("stg_build_config"))
