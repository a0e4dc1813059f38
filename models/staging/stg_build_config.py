"""The build's checked configuration and fingerprint (one row), built before any other model but the seed views.

The gate of a build: every var, every entry (the judge's too) and every file the build will read (each
replay file, the release) is checked here, naming the var, entry, file or line, so bad input stops the
build before a model that would replace what an earlier build made (every other model depends on this
one); the models reading vars check them again (partial builds).
"""
from evaluation_py.dbt_glue.evaluation_inputs import check_build_inputs, remove_var, scope_var
from generator_py.dbt_glue.build_config import build_fingerprint, check_vars, config_frame, file_digest, frame_digest
from generator_py.release.qaps_read import resolve_release_file
from generator_py.dbt_glue.relations import frame

def model(dbt, session):
    dbt.config(materialized="table")
    templates = frame(dbt.ref("stg_table_templates"))
    # dbt finds the config keys a Python model reads by reading this file, so each one is spelled out.
    raw = {
        "seed": dbt.config.get("seed"),
        "replicas": dbt.config.get("replicas"),
        "domains": dbt.config.get("domains"),
        "question_variety": dbt.config.get("question_variety"),
        "question_suites": dbt.config.get("question_suites"),
        "cross_check": dbt.config.get("cross_check"),
        "obfuscated_variants": dbt.config.get("obfuscated_variants"),
        "layout_counterfactuals": dbt.config.get("layout_counterfactuals"),
        "paraphrase_sets": dbt.config.get("paraphrase_sets"),
        "seed_variance_seeds": dbt.config.get("seed_variance_seeds"),
        "max_failed_request_share": dbt.config.get("max_failed_request_share"),
        "hctqa_release_dir": dbt.config.get("hctqa_release_dir"),
        "eval_cache_dir": dbt.config.get("eval_cache_dir"),
        "exports_dir": dbt.config.get("exports_dir"),
        "reports_dir": dbt.config.get("reports_dir"),
    }
    checked = check_vars(raw, known_domains=templates["domain"])
    scope_var(dbt.config.get("eval_scope"))
    remove_var(dbt.config.get("eval_remove_models"))
    release = checked["hctqa_release_dir"]
    check_build_inputs(dbt.config.get("eval_models"), dbt.config.get("judge_model"),
                       dbt.config.get("finetune_split_fractions"), release)
    # The seed data shapes the benchmark as much as the vars do.
    digests = {
        "domain_attributes": frame_digest(frame(dbt.ref("stg_domain_attributes"))),
        "domain_values": frame_digest(frame(dbt.ref("stg_domain_values"))),
        "domain_value_ranges": frame_digest(frame(dbt.ref("stg_domain_value_ranges"))),
        "domain_value_effects": frame_digest(frame(dbt.ref("stg_domain_value_effects"))),
        "table_templates": frame_digest(templates),
        "table_template_options": frame_digest(frame(dbt.ref("stg_table_template_options"))),
        "nl_templates": frame_digest(frame(dbt.ref("stg_nl_templates"))),
        "nl_table_meanings": frame_digest(frame(dbt.ref("stg_nl_table_meanings"))),
        "aggregation_terms": frame_digest(frame(dbt.ref("stg_aggregation_terms"))),
        "release": file_digest(resolve_release_file(release)) if release else None,
    }
    if "treb" in checked["question_suites"]:  # the TReB seeds shape only a build that asks their families
        digests["nl_templates_treb"] = frame_digest(frame(dbt.ref("stg_nl_templates_treb")))
        digests["value_groupings"] = frame_digest(frame(dbt.ref("stg_value_groupings")))
        digests["measure_units"] = frame_digest(frame(dbt.ref("stg_measure_units")))
    if "beyond" in checked["question_suites"]:  # and the two-table and OLAP phrasings theirs
        digests["nl_templates_beyond"] = frame_digest(frame(dbt.ref("stg_nl_templates_beyond")))
    if checked["paraphrase_sets"]:  # the added phrasings shape only a build that asks for paraphrase sets
        digests["nl_paraphrases"] = frame_digest(frame(dbt.ref("stg_nl_paraphrases")))
    return config_frame(checked, build_fingerprint(checked, digests), digests)
