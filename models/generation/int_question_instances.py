"""Question instances: every registered question family drawn on every table, its SQL text and NL question."""
from generator_py.dbt_inputs import seed_var, variety_var
from generator_py.question_build import generate_all, relational_tables, template_measures


def model(dbt, session):
    dbt.config(materialized="table")
    # ordered: question generation draws from this list, so its order is part of the seed's outcome
    aggregates = (dbt.ref("int_hct_cells").filter("role = 'aggregate'")
                  .project("table_id, row_group, col_group, value").distinct()
                  .order("table_id, row_group, col_group").df())
    measures = template_measures(dbt.ref("stg_domain_attributes").df(), dbt.ref("stg_domain_values").df(),
                                 dbt.ref("stg_domain_value_ranges").df(), dbt.ref("stg_table_templates").df())
    tables = relational_tables(dbt.ref("int_table_instances").df(), dbt.ref("int_relational_rows").df(), aggregates)
    return generate_all(tables, dbt.ref("stg_nl_templates").df(), dbt.ref("stg_nl_table_meanings").df(),
                        dbt.ref("stg_domain_attributes").df(), seed_var(dbt.config.get("seed")),
                        variety=variety_var(dbt.config.get("question_variety")), measures=measures)
