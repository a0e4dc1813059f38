"""Candidate layouts of the counterfactual sets: per base table (a seeded sample of var layout_counterfactuals
synthetic tables) and property, the base's layout with that property changed (generator_py.counterfactuals)."""
from generator_py.counterfactuals import candidate_toggles
from generator_py.dbt_glue.vars import counterfactuals_var, seed_var
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    instances = frame(dbt.ref("int_table_instances"))
    return candidate_toggles(instances, counterfactuals_var(dbt.config.get("layout_counterfactuals")),
                             seed_var(dbt.config.get("seed")))
