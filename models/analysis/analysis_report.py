"""Plots and index.html under var reports_dir (default: next to the database); one row per file written."""
import json

from evaluation_py.analysis.report_build import build_report
from generator_py.dbt_glue.build_config import FINGERPRINT_COLUMN, built_relation, database_path, output_dir, stamp

def model(dbt, session):
    dbt.config(materialized="table")
    build = dbt.ref("stg_build_config").df().iloc[0]  # the checked vars the benchmark was built with
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
    heavy = {key: relation.df() for key, relation in (
        ("choice_accuracy", built_relation(analysis_choice_accuracy, config)),
        ("choice_gap", built_relation(analysis_choice_robustness_gap, config)),
        ("choice_probe_positions", built_relation(analysis_choice_probe_positions, config)),
        ("choice_regression", built_relation(analysis_choice_property_regression, config)),
    ) if relation is not None}
    out = build_report(
        out_dir=output_dir(dbt.config.get("reports_dir"), database_path(session), "reports"),
        scores=dbt.ref("eval_scores").df(),  # the models evaluated are listed from these, not from the var
        frames={
            "leaderboard": dbt.ref("eval_leaderboard").df(),
            "text_vs_image": dbt.ref("analysis_text_vs_image").df(),
            "text_vs_image_by_size": dbt.ref("analysis_text_vs_image_by_table_size").df(),
            "by_template": dbt.ref("analysis_scores_by_template").df(),
            "by_question_property": dbt.ref("analysis_scores_by_question_property").df(),
            "by_aggregation_type": dbt.ref("analysis_scores_by_aggregation_type").df(),
            "by_table_format": dbt.ref("analysis_scores_by_table_format").df(),
            "by_source_dataset": dbt.ref("analysis_scores_by_source_dataset").df(),
            "by_creation_type": dbt.ref("analysis_scores_by_creation_type").df(),
            "by_tables_read": dbt.ref("analysis_scores_by_tables_read").df(),
            "by_olap_operation": dbt.ref("analysis_scores_by_olap_operation").df(),
            "question_diversity": dbt.ref("analysis_question_diversity").df(),
            "verbosity": dbt.ref("analysis_answer_verbosity").df(),
            "regression": dbt.ref("analysis_property_regression").df(),
            "composition": dbt.ref("analysis_benchmark_composition").df(),
            "obfuscation_gap": dbt.ref("analysis_obfuscation_gap").df(),
            "layout_effect": dbt.ref("analysis_layout_effect").df(),
            "paraphrase_consistency": dbt.ref("analysis_paraphrase_consistency").df(),
            "seed_variance": dbt.ref("analysis_seed_variance").df(),
            "finetune_gain": dbt.ref("analysis_finetune_gain").df(),
            "by_model_size": dbt.ref("analysis_scores_by_model_size").df(),
            "over_time": dbt.ref("analysis_scores_over_time").df(),
            "by_shots": dbt.ref("analysis_scores_by_shots").df(),
            "judge_agreement": dbt.ref("analysis_judge_agreement").df(),
            "by_mode_family": dbt.ref("analysis_scores_by_mode_family").df(),
            "by_treb_skill": dbt.ref("analysis_scores_by_treb_skill").df(),
            "robustness_consistency": dbt.ref("analysis_robustness_consistency").df(),
            "mode_gains": dbt.ref("analysis_mode_gains").df(),
            "by_table_size": dbt.ref("analysis_mode_by_table_size").df(),
            "execution_errors": dbt.ref("analysis_execution_errors").df(),
            "episode_turns": dbt.ref("analysis_episode_turns").df(),
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
