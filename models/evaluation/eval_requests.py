"""One row per (model under test, question, table format): the prediction requests of this build.

Replay files are checked against the benchmark here, once, before any answer is read.
"""
from evaluation_py.dbt_inputs import eval_inputs_from_relations, table_images_in
from evaluation_py.predict import requests_table
from generator_py.build_config import database_path, output_dir, stamp


def model(dbt, session):
    dbt.config(materialized="table")

    def table_images():  # read only when an entry asks for images: a build without them needs none built
        folder = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
        return table_images_in(dbt.ref("benchmark_table_images"), folder)

    inputs = eval_inputs_from_relations(dbt.ref("benchmark_questions"), dbt.ref("benchmark_tables"),
                                        dbt.config.get("eval_models"), dbt.config.get("seed"), check_replay=True,
                                        images=table_images)
    return stamp(requests_table(inputs.requests), dbt.ref("stg_build_config"))
