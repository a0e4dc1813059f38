"""Scoring of the two-option items: the entry key, the one-shot prompt in both orders, the letter read
from the text, the first token's A-vs-B mass, scripted answers (replay), log-probabilities over HTTP
(the loopback server), the oracle, and the summaries, gap, probe positions, regression and figures."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from evaluation_py.choice import analysis
from evaluation_py.choice.figures import choice_figures, choice_tables
from evaluation_py.choice.letters import letter_from_text, letter_probs, token_letter
from evaluation_py.choice.predictions import choice_predictions, with_earlier_builds
from evaluation_py.choice.prompt import CHOICE_PROMPT_VERSION, INSTRUCTIONS
from evaluation_py.choice.requests import build_choice_requests, request_id
from evaluation_py.choice.spec import SUBSETS, ChoiceSpec
from evaluation_py.configuration.model_specs import DEFAULT_EVAL_MODELS, parse_eval_models
from evaluation_py.running.store import PredictionStore
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer, last_user_message

pytestmark = pytest.mark.timeout(120)


def _item(item_id, subset, table_id, option_a, option_b, correct, strategy="neighbour_cell", other=None,
          position=None, variant="original", table_csv=None, target=(None, None), question=None):
    return dict(item_id=item_id, subset=subset, table_id=table_id, other_table_id=other, other_table_position=position,
                source_question_id=item_id.split("--")[1] if not subset.startswith("tsu") else None,
                question=question or f"What is asked in {item_id}?", option_a=option_a, option_b=option_b,
                correct_option=correct, distractor_strategy=strategy, content_variant=variant, table_csv=table_csv,
                target_row=target[0], target_col=target[1])


ITEMS = pd.DataFrame([
    _item("b_tis--q1", "b_tis", "t1", "{11}", "{24}", "A"),
    _item("b_tis--q2", "b_tis", "t2", "{7}", "{5}", "B", "wrong_function"),
    _item("b_tis--q3", "b_tis", "t3", "{a | 1} || {b | 2}", "{a | 1}", "A", "sibling_condition"),
    _item("m_tis--q1", "m_tis", "t1", "{24}", "{11}", "B", other="t2", position="before"),
    _item("m_tis--q2", "m_tis", "t2", "{7}", "{5}", "B", "wrong_function", other="t1", position="after"),
    _item("tsu_pcl--t1--original", "tsu_pcl", "t1", "11", "24", "A", "nearby_position", target=(2, 3)),
    _item("tsu_pcl--t2--original", "tsu_pcl", "t2", "5", "7", "B", "nearby_position", target=(2, 2)),
    _item("tsu_pcl--t1--letters", "tsu_pcl", "t1", "qx", "zz", "A", "nearby_position", variant="letters",
          table_csv="k,m\nqx,zz", target=(2, 1)),
])
TABLES = pd.DataFrame({"table_id": ["t1", "t2", "t3"],
                       "csv": ["Year,Cases\n2020,11\n2021,24", "City,2020\nb1,5\nb2,7", "k,v\na,1\nb,2"]})


def _specs(*entries):
    return parse_eval_models(list(entries))


# ------------------------------------------------------------------------------------------- entry key
def test_choice_items_key_defaults_and_errors():
    (off,) = _specs({"name": "o", "backend": "oracle"})
    assert off.choice_items is None
    (on,) = _specs({"name": "o", "backend": "oracle", "choice_items": True})
    assert on.choice_items == ChoiceSpec(logprobs=False)  # the oracle has no log-probabilities
    (llm,) = _specs({"name": "m", "backend": "openai", "base_url": "http://127.0.0.1:1/v1", "model": "x",
                     "choice_items": {"sample": 3, "subsets": ["m_tis", "b_tis"]}})
    assert llm.choice_items == ChoiceSpec(sample=3, subsets=("b_tis", "m_tis"), logprobs=True)
    assert [e for e in DEFAULT_EVAL_MODELS if e.get("choice_items")] == [
        {"name": "oracle", "backend": "oracle", "sample": 3000, "choice_items": {"sample": 100}}]
    bad = [({"sampel": 3}, r"unknown key 'sampel'; did you mean 'sample'"),
           ({"subsets": ["b_tis", "x_tis"]}, r"unknown subset 'x_tis'; known: b_tis"),
           ({"subsets": []}, r"choice_items.subsets"),
           ({"sample": 0}, r"choice_items.sample` 0 must be an integer at least 1"),
           ({"logprobs": True}, r"backend 'oracle' has no log-probabilities"),
           ({"top_logprobs": 50}, r"top_logprobs` 50 must be an integer between 2 and 20"),
           ("all", r"key `choice_items` must be true, false or a mapping")]
    for value, message in bad:
        with pytest.raises(ValueError, match=r"eval_models entry 1 .*" + message):
            _specs({"name": "o", "backend": "oracle", "choice_items": value})


# ------------------------------------------------------------------------------------------- prompts
def test_both_orders_one_shot_from_another_table_and_m_tis_tables_in_order():
    specs = _specs({"name": "o", "backend": "oracle", "choice_items": True})
    reqs, lookup = build_choice_requests(specs, ITEMS, TABLES, seed=7)
    assert len(reqs) == 2 * len(ITEMS) and len({c.request.cache_key for c in reqs}) == len(reqs)
    by = {(c.item_id, c.order): c for c in reqs}
    ab, ba = by[("b_tis--q3", "ab")], by[("b_tis--q3", "ba")]
    assert ab.request.kind == ba.request.kind == "choose"
    assert ab.request.prompt_version == CHOICE_PROMPT_VERSION and ab.request.table_format == "csv"
    assert (ab.right_letter, ba.right_letter) == ("A", "B")
    last_ab, last_ba = ab.request.messages[-1]["content"], ba.request.messages[-1]["content"]
    assert "A. a || 1 || b || 2\nB. a || 1\n" in last_ab  # gt options shown as answers
    assert "A. a || 1\nB. a || 1 || b || 2\n" in last_ba
    assert last_ab.startswith("Table (CSV):\nk,v\na,1\nb,2\n\nQuestion: What is asked in b_tis--q3?")
    assert ab.request.messages[0] == {"role": "system", "content": INSTRUCTIONS}
    # One worked example, from another table, answered with its right letter.
    for c in reqs:
        if c.item_id in ("tsu_pcl--t1--letters", "m_tis--q1", "m_tis--q2"):
            assert c.example_item_id is None  # no item of its subset and variant on other tables: zero-shot
            continue
        example = ITEMS.set_index("item_id").loc[c.example_item_id]
        own = ITEMS.set_index("item_id").loc[c.item_id]
        assert example["subset"] == own["subset"] and example["content_variant"] == own["content_variant"]
        assert example["table_id"] not in {own["table_id"], own["other_table_id"]}
        user, assistant = c.request.messages[1], c.request.messages[2]
        assert user["role"] == "user" and assistant == {"role": "assistant", "content": example["correct_option"]}
    # The letters variant has no other item of its subset and variant: zero-shot.
    lone = by[("tsu_pcl--t1--letters", "ab")]
    assert lone.example_item_id is None and len(lone.request.messages) == 2
    assert "Table (CSV):\nk,m\nqx,zz\n" in lone.request.messages[-1]["content"]  # the variant's own CSV
    # m_tis: both tables, in their order (q1's other table before, q2's after).
    m1 = by[("m_tis--q1", "ab")].request.messages[-1]["content"]
    m2 = by[("m_tis--q2", "ab")].request.messages[-1]["content"]
    assert m1.startswith("Table 1 (CSV):\nCity,2020\nb1,5\nb2,7\n\nTable 2 (CSV):\nYear,Cases\n")
    assert m2.startswith("Table 1 (CSV):\nCity,2020\nb1,5\nb2,7\n\nTable 2 (CSV):\nYear,Cases\n")
    assert lookup.answer_gt(request_id("m_tis--q1", "ba")) == "A"
    # Deterministic, and the example does not depend on the sample.
    again, _ = build_choice_requests(specs, ITEMS, TABLES, seed=7)
    assert [c.request.cache_key for c in again] == [c.request.cache_key for c in reqs]
    small = _specs({"name": "o", "backend": "oracle", "choice_items": {"sample": 1}})
    for c in build_choice_requests(small, ITEMS, TABLES, seed=7)[0]:
        assert c.example_item_id == by[(c.item_id, c.order)].example_item_id
        assert c.request.cache_key == by[(c.item_id, c.order)].request.cache_key
    # Without a system role the instructions open the first user turn.
    (folded,) = _specs({"name": "o", "backend": "oracle", "system_role": False, "choice_items": True})
    msgs = build_choice_requests([folded], ITEMS, TABLES, seed=7)[0][0].request.messages
    assert msgs[0]["role"] == "user" and msgs[0]["content"].startswith(INSTRUCTIONS + "\n\nTable")


def test_sample_per_subset_shares_source_questions():
    specs = _specs({"name": "o", "backend": "oracle", "choice_items": {"sample": 1, "subsets": ["b_tis", "m_tis"]}})
    reqs, _ = build_choice_requests(specs, ITEMS, TABLES, seed=3)
    chosen = sorted({c.item_id for c in reqs})
    assert len(chosen) == 2 and {i.split("--")[0] for i in chosen} == {"b_tis", "m_tis"}
    assert chosen[0].split("--")[1] == chosen[1].split("--")[1]  # the same question in both subsets


def test_items_without_a_right_option_are_refused():
    bad = ITEMS.assign(correct_option=["A", "C", *["A"] * (len(ITEMS) - 2)])
    with pytest.raises(ValueError, match=r"item 'b_tis--q2': correct_option 'C' must be A or B"):
        build_choice_requests(_specs({"name": "o", "backend": "oracle", "choice_items": True}), bad, TABLES, 1)


# ------------------------------------------------------------------------------------------- letters
@pytest.mark.parametrize("text, letter", [
    ("B", "B"), ("B.", "B"), (" A\n", "A"), ("(b)", "B"), ("a", "A"), ("Answer: B", "B"), ("**A**", "A"),
    ("The answer is B.", "B"), ("A. 24", "A"), ("Option B is right", "B"), ("A and B", None), ("no answer", None),
    ("a table shows it", None), ("", None), (None, None), ("Absolutely B", None)])
def test_letter_from_text(text, letter):
    assert letter_from_text(text) == letter


def test_first_token_mass_sums_the_alternatives_of_a_letter():
    assert [token_letter(t) for t in (" A", "A.", "a", "(B", "**B", "▁A", "Ab", "and", None)] == \
        ["A", "A", "A", "B", "B", "A", None, None, None]
    lp = json.dumps({"token": " A", "logprob": math.log(0.4), "top_logprobs": [
        {"token": " A", "logprob": math.log(0.4)}, {"token": "B", "logprob": math.log(0.35)},
        {"token": "A.", "logprob": math.log(0.1)}, {"token": "a", "logprob": math.log(0.05)},
        {"token": "The", "logprob": math.log(0.05)}]})
    probs = letter_probs(lp)
    assert probs.p_a == pytest.approx(0.55) and probs.p_b == pytest.approx(0.35)
    assert probs.choice == "A" and probs.status == "scored"
    # The chosen token counts even when the server leaves it out of its alternatives.
    only = letter_probs(json.dumps({"token": "B", "logprob": math.log(0.6), "top_logprobs": []}))
    assert only.choice == "B" and only.p_b == pytest.approx(0.6)
    none = letter_probs(json.dumps({"token": "The", "logprob": -0.1, "top_logprobs": [{"token": "I", "logprob": -3}]}))
    assert none.status == "no_letter_in_top_logprobs" and none.choice is None


# ------------------------------------------------------------------------------------------- answering
def test_replayed_answers_are_scored_in_both_orders(tmp_path):
    # A model that always says A: right in one order of each item, never in both; it abstains once.
    lines = [{"qap_id": request_id(i, o), "response": "A"} for i in ITEMS["item_id"] for o in ("ab", "ba")]
    lines[0]["response"] = "I cannot tell"
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    specs = _specs({"name": "always_a", "backend": "replay", "path": str(path), "choice_items": True})
    out = choice_predictions(specs, ITEMS, TABLES, 5, tmp_path / "p.sqlite", progress=False)
    assert len(out) == 2 * len(ITEMS) and out["answered"].all()
    assert set(out["logprobs_status"]) == {"backend_without_logprobs"} and out["p_a"].isna().all()
    first = out.set_index("request_id").loc[request_id(ITEMS["item_id"][0], "ab")]
    assert pd.isna(first["text_letter"]) and not first["text_correct"]
    assert (out["text_correct"] == (out["right_letter"] == "A") & out["text_letter"].notna()).all()
    acc = analysis.choice_accuracy(out)
    assert set(acc["scoring"]) == {"text"}
    assert (acc["accuracy_both"] == 0).all() and (acc["accuracy_mean"] <= 0.5).all()
    assert (acc["share_answer_a"] == 1.0).all()  # the position bias shows
    assert (acc["p_value_vs_chance"] == 1.0).all() and not acc["above_chance"].any()
    b = acc[(acc["subset"] == "b_tis") & (acc["distractor_strategy"] == "neighbour_cell")].iloc[0]
    assert (b["accuracy_ab"], b["accuracy_ba"], b["share_abstained"]) == (0.0, 0.0, 0.5)


def test_oracle_is_right_in_both_orders_and_header_match_abstains(tmp_path):
    specs = _specs({"name": "oracle", "backend": "oracle", "choice_items": True},
                   {"name": "hm", "backend": "header_match", "choice_items": {"subsets": ["b_tis"]}})
    out = choice_predictions(specs, ITEMS, TABLES, 5, tmp_path / "p.sqlite", progress=False)
    oracle, hm = out[out["model_name"] == "oracle"], out[out["model_name"] == "hm"]
    assert len(oracle) == 2 * len(ITEMS) and oracle["text_correct"].all()
    assert (oracle["response"] == oracle["right_letter"]).all()
    assert len(hm) == 6 and hm["text_letter"].isna().all() and not hm["text_correct"].any()
    # A rerun answers from the store: nothing is asked again and the rows are identical.
    again = choice_predictions(specs, ITEMS, TABLES, 5, tmp_path / "p.sqlite", progress=False)
    pd.testing.assert_frame_equal(out.drop(columns="latency_s"), again.drop(columns="latency_s"))


def test_results_of_earlier_builds_stay_until_asked_again_or_removed(tmp_path):
    store = tmp_path / "p.sqlite"
    oracle = _specs({"name": "oracle", "backend": "oracle", "choice_items": True})
    hm = _specs({"name": "hm", "backend": "header_match", "choice_items": {"subsets": ["b_tis"]}})

    def build(specs, fingerprint="fp1", **kw):
        return with_earlier_builds(choice_predictions(specs, ITEMS, TABLES, 5, store, progress=False), specs,
                                   fingerprint, store, **kw)

    first = build(oracle)
    assert set(first["model_name"]) == {"oracle"} and first["this_build"].all()
    # A later build asking another model keeps the oracle's rows, read back with the same values and types.
    second = build(hm)
    assert set(second["model_name"]) == {"oracle", "hm"} and second["cache_key"].is_unique
    kept = second[~second["this_build"]].drop(columns=["this_build", "latency_s"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, first.drop(columns=["this_build", "latency_s"]))
    assert set(second.loc[second["this_build"], "model_name"]) == {"hm"}
    # Asked again with fewer subsets, the oracle's rows are replaced, not added to.
    fewer = _specs({"name": "oracle", "backend": "oracle", "choice_items": {"subsets": ["b_tis"]}})
    third = build(fewer)
    assert len(third[third["model_name"] == "oracle"]) == 6 and set(third["model_name"]) == {"oracle", "hm"}
    # Another benchmark sees none of it; this_build scope shows this build only; a removed model leaves.
    assert set(build(hm, fingerprint="fp2")["model_name"]) == {"hm"}
    assert set(build(hm, accumulate=False)["model_name"]) == {"hm"}
    assert set(build([], remove=["hm"])["model_name"]) == {"oracle"}


def test_logprobs_from_the_loopback_server_are_requested_stored_and_scored(tmp_path):
    specs_probe = _specs({"name": "m", "backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "fake-model",
                          "choice_items": {"subsets": ["b_tis"]}})
    reqs, _ = build_choice_requests(specs_probe, ITEMS, TABLES, seed=5)
    by = {(c.item_id, c.order): c for c in reqs}
    key = lambda item, order: last_user_message(list(by[(item, order)].request.messages))  # noqa: E731
    responses, top = {}, {}
    # q1: text says A in both orders; the first token's mass says A (ab, right) and B (ba, right).
    responses[key("b_tis--q1", "ab")] = "A"
    top[key("b_tis--q1", "ab")] = [(" A", math.log(0.5)), ("B", math.log(0.3)), ("A.", math.log(0.1))]
    responses[key("b_tis--q1", "ba")] = "A"
    top[key("b_tis--q1", "ba")] = [("A", math.log(0.45)), (" B", math.log(0.3)), ("b", math.log(0.2))]
    # q2: no letter among the first token's alternatives; the text says B.
    responses[key("b_tis--q2", "ab")] = "The answer is B"
    top[key("b_tis--q2", "ab")] = [("The", -0.1), ("I", -3.0)]
    with FakeOpenAIServer(responses=responses, first_token_top=top) as srv:
        specs = _specs({"name": "m", "backend": "openai", "base_url": srv.base_url, "model": "fake-model",
                        "max_retries": 0, "choice_items": {"subsets": ["b_tis"], "top_logprobs": 5}})
        out = choice_predictions(specs, ITEMS, TABLES, 5, tmp_path / "p.sqlite", progress=False)
        assert srv.stats()["requests"] == 6
    row = out.set_index(["item_id", "option_order"])
    q1ab, q1ba = row.loc[("b_tis--q1", "ab")], row.loc[("b_tis--q1", "ba")]
    assert (q1ab["p_a"], q1ab["p_b"]) == (pytest.approx(0.6), pytest.approx(0.3))
    assert q1ab["logprob_letter"] == "A" and q1ab["logprob_correct"] and q1ab["p_right"] == pytest.approx(2 / 3)
    assert (q1ba["p_a"], q1ba["p_b"]) == (pytest.approx(0.45), pytest.approx(0.5))
    assert q1ba["logprob_letter"] == "B" and q1ba["logprob_correct"]
    assert q1ba["text_letter"] == "A" and not q1ba["text_correct"]  # the two scorings are kept apart
    q2 = row.loc[("b_tis--q2", "ab")]
    assert q2["logprobs_status"] == "no_letter_in_top_logprobs" and pd.isna(q2["logprob_correct"])
    assert q2["text_letter"] == "B" and q2["text_correct"]
    # The unscripted answers echo the prompt: text abstains, the fake's own alternatives hold no letter.
    echo = row.loc[("b_tis--q3", "ab")]
    assert pd.isna(echo["text_letter"]) and echo["logprobs_status"] == "no_letter_in_top_logprobs"
    # Asked with logprobs and k alternatives, and kept in the store as the backend returned them.
    sent = build_choice_requests(specs, ITEMS, TABLES, 5)[0][0].request.params
    assert (sent["logprobs"], sent["top_logprobs"], sent["max_tokens"]) == (True, 5, 8)
    with PredictionStore(tmp_path / "p.sqlite") as store:
        stored = store.get(out["cache_key"].tolist())
    assert stored["logprobs_json"].notna().all()
    first = json.loads(stored.set_index("cache_key").loc[q1ab["cache_key"], "logprobs_json"])
    assert [t["token"] for t in first["top_logprobs"]] == [" A", "B", "A."]
    assert set(out["prompt_version"]) == {CHOICE_PROMPT_VERSION}
    acc = analysis.choice_accuracy(out)
    lp = acc[(acc["scoring"] == "logprobs") & (acc["distractor_strategy"] == "neighbour_cell")].iloc[0]
    assert (lp["n_items"], lp["accuracy_both"], lp["share_answer_a"]) == (1, 1.0, 0.5)


def test_choice_params_ask_for_logprobs_and_a_short_answer():
    (spec,) = _specs({"name": "m", "backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "x",
                      "params": {"temperature": 0.2}, "choice_items": {"top_logprobs": 4, "max_tokens": 3}})
    (req, *_), _ = build_choice_requests([spec], ITEMS, TABLES, 1)
    assert req.request.params == {"temperature": 0.2, "max_tokens": 3, "logprobs": True, "top_logprobs": 4}
    (plain,) = _specs({"name": "m", "backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "x",
                       "choice_items": {"logprobs": False}})
    (req2, *_), _ = build_choice_requests([plain], ITEMS, TABLES, 1)
    assert "logprobs" not in req2.request.params and not req2.logprobs_requested


# ------------------------------------------------------------------------------------------- analyses
def _scripted_preds(model, backend, right, letter_a=None):
    """Prediction rows for ITEMS: `right(item_id, order)` decides the text answer."""
    rows = []
    for r in ITEMS.itertuples(index=False):
        for order in ("ab", "ba"):
            letter_right = r.correct_option if order == "ab" else ("B" if r.correct_option == "A" else "A")
            ok = right(r.item_id, order)
            letter = letter_right if ok else ("A" if letter_right == "B" else "B")
            rows.append({"model_name": model, "backend": backend, "item_id": r.item_id, "subset": r.subset,
                         "distractor_strategy": r.distractor_strategy, "content_variant": r.content_variant,
                         "table_id": r.table_id, "source_question_id": r.source_question_id,
                         "target_row": r.target_row, "target_col": r.target_col, "option_order": order,
                         "answered": True, "text_letter": letter, "text_correct": ok,
                         "logprobs_status": "backend_without_logprobs", "logprob_letter": None,
                         "logprob_correct": None})
    return pd.DataFrame(rows)


def test_binomial_test_against_guessing_gap_and_probe_positions():
    p = analysis.binomial_p_above(np.array([10, 3, 0]), np.array([10, 12, 0]), 0.25)
    assert p[0] == pytest.approx(0.25 ** 10) and p[1] == pytest.approx(1 - 0.39068, abs=1e-4) and np.isnan(p[2])
    # Right on b_tis always, on m_tis never, on probes in the ab order only.
    preds = _scripted_preds("m", "openai", lambda i, o: i.startswith("b_tis") or (i.startswith("tsu") and o == "ab"))
    gap = analysis.robustness_gap(preds)
    assert gap[["n_pairs", "accuracy_b_tis", "accuracy_m_tis", "gap_both", "gap_mean"]].values.tolist() == \
        [[2, 1.0, 0.0, 1.0, 1.0]]
    pos = analysis.probe_positions(preds)
    orig = pos[pos["content_variant"] == "original"]
    assert orig[["target_row", "target_col", "accuracy_mean", "accuracy_both"]].values.tolist() == \
        [[2, 2, 0.5, 0.0], [2, 3, 0.5, 0.0]]


def test_property_regression_fits_models_under_test_not_the_oracle():
    tables = pd.DataFrame({"table_id": ["t1", "t2", "t3"]})
    preds = pd.concat([_scripted_preds("m1", "openai", lambda i, o: "t1" not in i and i != "m_tis--q1"),
                       _scripted_preds("m2", "openai", lambda i, o: o == "ab"),
                       _scripted_preds("oracle", "oracle", lambda i, o: True)])
    reg = analysis.property_regressions(preds, tables)
    assert len(reg) and "oracle" not in set(reg["model_name"])
    assert set(reg["metric"]) == {"right_both_orders"} and set(reg["scoring"]) == {"text"}
    assert {"question_items", "probes"} == set(reg["item_group"])


def test_choice_figures_and_tables(tmp_path):
    preds = _scripted_preds("m", "openai", lambda i, o: o == "ab" or "t2" in i)
    frames = {"choice_accuracy": analysis.choice_accuracy(preds), "choice_gap": analysis.robustness_gap(preds),
              "choice_probe_positions": analysis.probe_positions(preds),
              "choice_regression": analysis.property_regressions(preds, pd.DataFrame({"table_id": ["t1"]}))}
    figs = choice_figures(frames, tmp_path)
    assert [p.rsplit("/", 1)[1] for p, _ in figs] == ["choice_accuracy_by_subset.png", "choice_probe_positions.png"]
    from evaluation_py.analysis.plots import png_size
    assert all(png_size(p)[0] > 300 for p, _ in figs)
    tables = choice_tables(frames)
    by_subset = tables["choice accuracy by subset"][0]
    assert set(by_subset["subset"]) == {"b_tis", "m_tis", "tsu_pcl"}
    assert choice_figures({}, tmp_path) == [] and choice_tables({}) == {}
    empty = {k: v.iloc[0:0] for k, v in frames.items()}
    assert len(choice_figures(empty, tmp_path / "empty")) == 2  # placeholders, not errors


def test_the_choice_mode_reads_letters_and_is_not_asked_through_modes():
    from evaluation_py.scoring.extraction import extract
    from evaluation_py.modes.inference_mode import get_mode

    assert get_mode("choice").kind == "choose"
    assert extract(["B.", "A and B", None], "choice") == ["B", "", None]
    with pytest.raises(ValueError, match="entry key `choice_items`, not through `modes`"):
        get_mode("choice").build_messages("a,b", "csv", "q", system_role=True)


def test_every_subset_is_known_to_the_spec():
    assert set(SUBSETS) == {"b_tis", "su_tis", "m_tis", *analysis.PROBE_SUBSETS}


def test_vllm_first_step_logprobs_read_as_letters():
    """vLLM's first generation step (token id -> Logprob with decoded_token), as its backend stores it."""
    from dataclasses import dataclass

    from evaluation_py.backends.vllm_backend import _first_token_logprobs

    @dataclass
    class Logprob:  # the fields of vllm.sequence.Logprob the backend reads
        logprob: float
        decoded_token: str

    @dataclass
    class Completion:  # the fields of vllm.outputs.CompletionOutput the backend reads
        token_ids: list
        logprobs: list

    step = {7: Logprob(math.log(0.2), "A"), 3: Logprob(math.log(0.5), " B"), 9: Logprob(math.log(0.1), "a")}
    stored = _first_token_logprobs(Completion(token_ids=[3, 1], logprobs=[step, {}]))
    first = json.loads(stored)
    assert first["token"] == " B" and [t["token"] for t in first["top_logprobs"]] == [" B", "A", "a"]
    probs = letter_probs(stored)
    assert (probs.p_a, probs.p_b, probs.choice) == (pytest.approx(0.3), pytest.approx(0.5), "B")


def test_statement_items_are_summarised_apart_and_kept_out_of_the_gap():
    # A statement twin of b_tis--q1 that the model always gets wrong: the answer-form gap is unchanged
    # and the accuracy table has a row of its own for the statement form.
    twin = dict(ITEMS.iloc[0]) | {"item_id": "b_tis--q1--statement", "option_a": "The count is 11.",
                                  "option_b": "The count is 24."}
    preds = _scripted_preds("m", "openai", lambda i, o: i.startswith("b_tis"))
    wrong = _scripted_preds("m", "openai", lambda i, o: False).iloc[:2].assign(
        item_id=twin["item_id"], option_form="statement")
    preds = pd.concat([preds.assign(option_form="answer"), wrong], ignore_index=True)
    gap = analysis.robustness_gap(preds)
    assert gap[["n_pairs", "accuracy_b_tis", "gap_both"]].values.tolist() == [[2, 1.0, 1.0]]
    acc = analysis.choice_accuracy(preds)
    b = acc[(acc["subset"] == "b_tis") & (acc["scoring"] == "text")].set_index(["distractor_strategy", "option_form"])
    assert b.loc[("neighbour_cell", "statement"), "accuracy_both"] == 0.0
    assert b.loc[("neighbour_cell", "answer"), "accuracy_both"] == 1.0
