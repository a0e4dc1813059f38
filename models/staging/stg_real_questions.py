"""Questions of the HCT-QA release's real-world tables, with gt and the release's 36 properties."""
from generator_py.release.real_import import QUESTION_COLUMNS, load_release_or_empty


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("stg_build_config")  # after the gate, which has read and checked the release once
    _, questions = load_release_or_empty(dbt.config.get("hctqa_release_dir"), renderings=False)
    return questions[list(QUESTION_COLUMNS)]
