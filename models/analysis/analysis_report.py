"""Plots and index.html under var reports_dir (default: next to the database); one row per file written."""
import json

from evaluation_py.analysis.report_build import build_report
from generator_py.dbt_glue.build_config import FINGERPRINT_COLUMN, built_relation, database_path, output_dir, stamp
from generator_py.dbt_glue.relations import frame

def model(dbt, session):
    dbt.config(materialized="table")
    build = frame(dbt.ref("stg_build_config")).iloc[0]  # the checked vars the benchmark was built with
    config = dbt.ref("stg_build_config")

    def analysis_choice_accuracy():  # a nested def: dbt reads a Python model's refs there, not in a lambda
        return dbt.ref("analysis_choice_accuracy")

    def analysis_choice_robustness_gap():
        return dbt.ref("analysis_choice_robustness_gap")

    def analysis_choice_probe_positions():
        return dbt.ref("analysis_choice_probe_positions")

    def analysis_choice_property_regression():
        return dbt.ref("analysis_choice_property_regression")

    # the analyses of a heavy part (tag choice): shown when this build's configuration built them
    heavy = {key: frame(relation) for key, relation in (
        ("choice_accuracy", built_relation(analysis_choice_accuracy, config)),
        ("choice_gap", built_relation(analysis_choice_robustness_gap, config)),
        ("choice_probe_positions", built_relation(analysis_choice_probe_positions, config)),
        ("choice_regression", built_relation(analysis_choice_property_regression, config)),
    ) if relation is not None}
    out = build_report(
        out_dir=output_dir(dbt.config.get("reports_dir"), database_path(session), "reports"),
        scores=frame(dbt.ref("eval_scores")),  # the models evaluated are listed from these, not from the var
        frames={
            "leaderboard": frame(dbt.ref("eval_leaderboard")),
            "text_vs_image": frame(dbt.ref("analysis_text_vs_image")),
            "text_vs_image_by_size": frame(dbt.ref("analysis_text_vs_image_by_table_size")),
            "by_template": frame(dbt.ref("analysis_scores_by_template")),
            "by_question_property": frame(dbt.ref("analysis_scores_by_question_property")),
            "by_aggregation_type": frame(dbt.ref("analysis_scores_by_aggregation_type")),
            "by_table_format": frame(dbt.ref("analysis_scores_by_table_format")),
            "by_source_dataset": frame(dbt.ref("analysis_scores_by_source_dataset")),
            "by_creation_type": frame(dbt.ref("analysis_scores_by_creation_type")),
            "by_tables_read": frame(dbt.ref("analysis_scores_by_tables_read")),
            "by_olap_operation": frame(dbt.ref("analysis_scores_by_olap_operation")),
            "question_diversity": frame(dbt.ref("analysis_question_diversity")),
            "verbosity": frame(dbt.ref("analysis_answer_verbosity")),
            "regression": frame(dbt.ref("analysis_property_regression")),
            "composition": frame(dbt.ref("analysis_benchmark_composition")),
            "obfuscation_gap": frame(dbt.ref("analysis_obfuscation_gap")),
            "layout_effect": frame(dbt.ref("analysis_layout_effect")),
            "paraphrase_consistency": frame(dbt.ref("analysis_paraphrase_consistency")),
            "seed_variance": frame(dbt.ref("analysis_seed_variance")),
            "finetune_gain": frame(dbt.ref("analysis_finetune_gain")),
            "by_model_size": frame(dbt.ref("analysis_scores_by_model_size")),
            "over_time": frame(dbt.ref("analysis_scores_over_time")),
            "by_shots": frame(dbt.ref("analysis_scores_by_shots")),
            "judge_agreement": frame(dbt.ref("analysis_judge_agreement")),
            "by_mode_family": frame(dbt.ref("analysis_scores_by_mode_family")),
            "by_treb_skill": frame(dbt.ref("analysis_scores_by_treb_skill")),
            "robustness_consistency": frame(dbt.ref("analysis_robustness_consistency")),
            "mode_gains": frame(dbt.ref("analysis_mode_gains")),
            "by_table_size": frame(dbt.ref("analysis_mode_by_table_size")),
            "execution_errors": frame(dbt.ref("analysis_execution_errors")),
            "episode_turns": frame(dbt.ref("analysis_episode_turns")),
            **heavy,
        },
        build_info={
            FINGERPRINT_COLUMN: build[FINGERPRINT_COLUMN],
            "seed": int(build["seed"]),
            "replicas": None if build.isna()["replicas"] else int(build["replicas"]),
            "domains": json.loads(build["domains_json"]),
            "hctqa_release_dir": build["hctqa_release_dir"],
        },
    )
    return stamp(out, dbt.ref("stg_build_config"))
