"""The paper's Table I statistics of this build's HCT-QA questions: see generator_py.questions.diversity."""
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import whole_groups
from generator_py.questions.diversity import diversity_of_tables, questions_by_table


def model(dbt, session):
    dbt.config(materialized="table")
    # the HCT-QA questions as generated or imported (the obfuscated twins and the treb suite aside), read in parts
    # of whole tables: each table's questions together, in question order, the tables in the order of their first
    # question (a frame of every question and its word sets is GBs at 10x scale)
    questions = (dbt.ref("benchmark_questions").filter("suite = 'hctqa' and variant = 'original'")
                 .project("table_id, source, template_id, question, question_id, "
                          "min(question_id) over (partition by table_id) as first_question_id")
                 .order("first_question_id, question_id"))
    return stamp(diversity_of_tables(questions_by_table(whole_groups(questions, "table_id"))),
                 dbt.ref("stg_build_config"))
