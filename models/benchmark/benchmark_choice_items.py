"""TabIS-style two-option items (b_tis, su_tis, m_tis) and structure probes (tsu_*) on the benchmark's tables."""
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import arrow_table
from generator_py.choice_items import build_choice_items
from generator_py.dbt_glue.vars import seed_var


def model(dbt, session):
    dbt.config(materialized="table")
    # Read as Arrow, not frames: the forked workers share these buffers untouched and each turns only its
    # chunk's rows into Python objects
    # Table III questions' items, of originals only: the obfuscated variant is left out by design. Their rows of
    # benchmark_questions, read from where that mart takes them, so the items need not wait for the variants
    answers = dbt.ref("int_question_answer_texts").set_alias("answers")
    questions = arrow_table(dbt.ref("int_question_instances").filter("template_id is not null")
                            .join(answers, "question_id", how="left")
                            .project("question_id, table_id, template_id, question, answer_gt, "
                                     "cast(answer_rows as varchar) as answer_rows, spec_json")
                            .order("question_id"))
    instances = arrow_table(dbt.ref("int_table_instances").project(
        "table_id, domain, template_name, variant_id, row_attributes, col_attributes"))
    relational_rows = arrow_table(dbt.ref("int_relational_rows").project("table_id, rel_row, row_labels, col_labels, value"))
    cells = arrow_table(dbt.ref("int_hct_cells").filter("role in ('data', 'aggregate')")
                        .project("table_id, grid_row, grid_col, role, value, row_group, col_group"))
    # the cell grid of every table, synthetic and real: probes read positions and texts off it
    grid = arrow_table(dbt.ref("int_table_grid").project("table_id, grid_row, grid_col, rowspan, colspan, text"))
    # the lookups' b_tis items also with their options as sentences (seed choice_statements)
    statements = dbt.ref("stg_choice_statements").df()
    attributes = dbt.ref("stg_domain_attributes").df()
    items = build_choice_items(questions, instances, relational_rows, cells, grid, seed_var(dbt.config.get("seed")),
                               statements=statements, attributes=attributes)
    return stamp(items, dbt.ref("stg_build_config"))
