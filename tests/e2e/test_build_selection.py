"""What `dbt build` selects: the light default (selectors.yml) leaves the tagged heavy parts and every data
test reading them out; `--selector full` has them; the vars still turn parts off inside a selection."""
from __future__ import annotations

import pytest

from support.dbt_project import copy_project, run_dbt

HEAVY = {"benchmark_table_images", "benchmark_choice_items", "benchmark_choice_item_counts", "eval_choice_predictions",
         "analysis_choice_accuracy", "benchmark_finetune_splits", "benchmark_finetune_exports",
         "int_obfuscated_table_grid", "int_obfuscation_check"}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("selection") / "project")


def listed(project, *args) -> dict[str, set]:
    """name -> (resource type, its parents' names), for every model and data test the selection builds (`dbt ls`)."""
    import json
    proc = run_dbt(project, "ls", "--resource-type", "model", "--resource-type", "test", "--output", "json", "-q",
                   *args)
    out = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            node = json.loads(line)
            out[node["name"]] = (node["resource_type"], {n.split(".")[-1] for n in node["depends_on"]["nodes"]})
    return out


def test_the_light_default_leaves_the_heavy_parts_and_their_tests_out(project):
    light = listed(project)
    assert {"benchmark_tables", "benchmark_questions", "benchmark_exports", "eval_scores", "analysis_report",
            "int_answer_cross_check"} <= set(light)
    assert not HEAVY & set(light)
    # no data test of the light build reads a heavy model (they would fail on an empty database)
    assert not [name for name, (kind, parents) in light.items() if kind == "test" and parents & HEAVY]
    # light models that can show a heavy part refer to it (so a full build orders them) but do not need it
    assert light["benchmark_exports"][1] & HEAVY == {"benchmark_table_images"}


def test_full_builds_everything_and_the_vars_still_turn_parts_off(project):
    full = listed(project, "--selector", "full")
    assert HEAVY | {"assert_obfuscated_answers_round_trip"} \
        <= set(full)
    without_twins = listed(project, "--selector", "full", "--vars", "{obfuscated_variants: false}")
    assert "benchmark_table_images" in without_twins and "benchmark_finetune_exports" in without_twins
    assert not {n for n in without_twins if n.startswith(("int_obfuscat", "assert_obfuscated"))}


def test_one_heavy_part_comes_with_what_it_needs_upstream(project):
    images = listed(project, "--select", "+tag:images")
    assert {"benchmark_table_images", "int_table_grid", "int_obfuscated_table_grid", "stg_build_config"} <= set(images)
    assert "benchmark_choice_items" not in images and "benchmark_exports" not in images


def test_the_opt_in_parts_are_built_only_when_their_var_is_on(project):
    opt_in = ("int_counterfactual", "int_paraphrase", "assert_counterfactual", "assert_paraphrase")
    assert not {n for n in listed(project, "--selector", "full") if n.startswith(opt_in)}
    on = listed(project, "--vars", "{layout_counterfactuals: 3, paraphrase_sets: true}")  # the light default
    assert {"int_counterfactual_table_instances", "int_paraphrase_question_instances",
            "assert_counterfactual_answers_identical", "assert_counterfactual_pairs_differ_in_one_property",
            "assert_paraphrase_sets_consistent"} <= set(on)
    assert "int_counterfactual_table_instances" in on["benchmark_tables"][1]
    assert "int_paraphrase_question_instances" in on["benchmark_questions"][1]


def test_a_seeds_build_is_the_light_benchmark_up_to_the_leaderboard(project):
    seed = listed(project, "--selector", "seed_build")
    assert {"benchmark_questions", "eval_scores", "eval_leaderboard", "assert_questions_have_one_non_empty_answer"} \
        <= set(seed)
    assert not HEAVY & set(seed)
    assert not {"analysis_report", "benchmark_exports", "analysis_seed_variance"} & set(seed)
