"""Paraphrase sets: every question in each phrasing of its template (seeds/nl_paraphrases.csv, generation), and their
consistency analysis on planted answers (evaluation_py.analysis.paraphrase_consistency)."""
import pandas as pd
import pytest

from evaluation_py.analysis.paraphrase_consistency import (CONSISTENCY_COLUMNS, answer_identity,
                                                           paraphrase_consistency, plot_paraphrase_consistency)
from generator_py.questions import NLTemplateError, generate_questions, load_domain_nl
from generator_py.questions.domain_nl import PARAPHRASE_SEED_FILE, tag_seed_rows
from generator_py.questions.families import ALL_FAMILIES, FAMILIES
from support.toy_tables import SEEDS

NL_COLUMNS = ["domain", "template_name", "template_id", "phrasing", "text"]


@pytest.fixture(scope="module")
def nl_seeds(seed_frames):
    suites = [tag_seed_rows(pd.read_csv(SEEDS / f"nl_templates_{suite}.csv", dtype=str, keep_default_na=False),
                            f"seeds/nl_templates_{suite}.csv") for suite in ("treb", "beyond")]
    both = pd.concat([tag_seed_rows(seed_frames["nl_templates"], "seeds/nl_templates.csv"), *suites],
                     ignore_index=True)
    extra = tag_seed_rows(pd.read_csv(SEEDS / "nl_paraphrases.csv", dtype=str, keep_default_na=False),
                          PARAPHRASE_SEED_FILE)
    return both, extra


def test_every_template_of_every_domain_has_three_phrasings_with_the_paraphrases(seed_frames, toy_tables, nl_seeds):
    """Three phrasings or more for every template nl_paraphrases restates (the Table III templates and the first
    TReB families); the later families' sets are their two phrasings."""
    both, extra = nl_seeds
    restated = {int(t) for t in extra["template_id"]}
    assert len(restated) >= 20
    for domain, template_name in toy_tables.domains():
        nl = load_domain_nl(both, seed_frames["nl_table_meanings"], seed_frames["domain_attributes"], domain,
                            template_name, families=ALL_FAMILIES, paraphrases_df=extra)
        for family in (ALL_FAMILIES.get(n) for n in ALL_FAMILIES.names()):
            tid = family.nl.template_id
            assert len(nl.all_phrasings(tid)) >= (3 if tid in restated else 2), (domain, family.family_id)
            assert len({p.phrasing for p in nl.all_phrasings(tid)}) == len(nl.all_phrasings(tid))
            assert set(nl.phrasings(tid)) < set(nl.all_phrasings(tid)) or len(nl.phrasings(tid)) >= 3 \
                or tid not in restated


def test_restating_leaves_every_question_as_drawn_and_renders_each_other_phrasing(seed_frames, toy_tables, nl_seeds):
    both, extra = nl_seeds
    n = 0
    for domain, template_name in toy_tables.domains():
        args = (both, seed_frames["nl_table_meanings"], seed_frames["domain_attributes"], domain, template_name)
        plain = load_domain_nl(*args, families=ALL_FAMILIES)
        restating = load_domain_nl(*args, families=ALL_FAMILIES, paraphrases_df=extra)
        for i in range(2):
            table = toy_tables.table(domain, i, seed=11)
            drawn = generate_questions(table, plain, 42, ALL_FAMILIES)
            restated = generate_questions(table, restating, 42, ALL_FAMILIES, paraphrases=True)
            assert [(q.question_id, q.question, q.phrasing, q.sql) for q in drawn] == [
                (q.question_id, q.question, q.phrasing, q.sql) for q in restated]
            for q in restated:
                phrasings = {p.phrasing for p in restating.all_phrasings(
                    ALL_FAMILIES.get(q.family).nl.template_id)} - {q.phrasing}
                assert {p for p, _ in q.paraphrases} == phrasings
                texts = [q.question] + [t for _, t in q.paraphrases]
                assert len(set(texts)) == len(texts), texts
                for literal in q.sql_literals:  # every restatement names what its SQL conditions on
                    assert all(literal in t for t in texts), (literal, texts)
                n += len(q.paraphrases)
            assert all(q.paraphrases == () for q in drawn)
    assert n > 500


def test_a_paraphrase_row_reusing_a_phrasing_or_naming_no_family_is_refused(seed_frames, nl_seeds):
    _, extra = nl_seeds
    args = (seed_frames["nl_templates"], seed_frames["nl_table_meanings"], seed_frames["domain_attributes"], "weather",
            "temperatures")
    row = extra[(extra["domain"] == "weather") & (extra["template_id"] == "2")].iloc[[0]]
    with pytest.raises(NLTemplateError, match="phrasing 1 of template_id 2 is given twice"):
        load_domain_nl(*args, families=FAMILIES, paraphrases_df=row.assign(phrasing="1"))
    with pytest.raises(NLTemplateError, match="template_id 99 is the NL of no registered question family"):
        load_domain_nl(*args, families=FAMILIES, paraphrases_df=row.assign(template_id="99"))
    treb_only = extra[(extra["domain"] == "weather") & (extra["template_id"] == "16")]
    nl = load_domain_nl(*args, families=FAMILIES, paraphrases_df=treb_only)
    assert nl.paraphrase_templates == {}  # a family outside the build's suites is left out


def test_an_answer_is_the_same_when_strict_mode_reads_the_same_values():
    assert answer_identity("1,234 || 5") == answer_identity("5, 1234")
    assert answer_identity("1234") != answer_identity("1235")
    assert answer_identity("No answer") == answer_identity("no answer.")
    assert answer_identity(None) != answer_identity("0")


def _set_frames(answers: dict[str, list[str]], values: dict[str, list[float]]):
    """One table per set of three phrasings; `answers` / `values`: per model, one per question in set order."""
    questions, requests, predictions, scores = [], [], [], []
    for s in range(4):
        for k in range(3):
            qid = f"t{s}--q01" + (f"--p{k + 1}" if k else "")
            questions.append({"question_id": qid, "paraphrase_set_id": f"t{s}--q01", "table_id": f"t{s}"})
    for model, texts in answers.items():
        for q, text, v in zip(questions, texts, values[model]):
            key = f"{model}-{q['question_id']}"
            requests.append({"cache_key": key, "question_id": q["question_id"], "table_id": q["table_id"],
                             "model_name": model, "backend": "replay", "table_format": "html",
                             "inference_mode": "direct"})
            predictions.append({"cache_key": key, "response": text})
            scores.append({"model_name": model, "backend": "replay", "table_format": "html",
                           "inference_mode": "direct", "scoring_mode": "strict", "metric": "cc",
                           "question_id": q["question_id"], "value": v, "left_out": False})
    return pd.DataFrame(requests), pd.DataFrame(predictions), pd.DataFrame(questions), pd.DataFrame(scores)


def test_consistency_counts_sets_answered_alike_and_the_spread_of_the_metric(tmp_path):
    steady = ["12"] * 12
    # the second set is answered otherwise in one phrasing; the fourth only reformatted (the same values)
    wavering = ["12"] * 3 + ["12", "12", "13"] + ["12"] * 3 + ["1,200", "1200", "1200.0"]
    values = {"steady": [1.0] * 12, "wavering": [1.0] * 3 + [1.0, 1.0, 0.0] + [1.0] * 6}
    out = paraphrase_consistency(*_set_frames({"steady": steady, "wavering": wavering}, values), seed=2)
    assert list(out.columns) == CONSISTENCY_COLUMNS
    by = out.set_index("model_name")
    assert (by.at["steady", "share_identical"], by.at["steady", "mean_range"]) == (1.0, 0.0)
    assert by.at["wavering", "share_identical"] == 0.75
    assert by.at["wavering", "mean_range"] == 0.25 and by.at["wavering", "share_same_score"] == 0.75
    assert by.at["wavering", "share_identical_ci_low"] <= 0.75 <= by.at["wavering", "share_identical_ci_high"]
    assert (by["n_sets"] == 4).all() and (by["phrasings_per_set"] == 3.0).all()
    assert plot_paraphrase_consistency(out, tmp_path, metric="cc").endswith("paraphrase_consistency.png")


def test_a_set_not_answered_in_every_phrasing_is_left_out():
    requests, predictions, questions, scores = _set_frames({"m": ["1"] * 12}, {"m": [1.0] * 12})
    requests = requests[requests["question_id"] != "t0--q01--p2"]
    scores = scores[scores["question_id"] != "t0--q01--p2"]
    out = paraphrase_consistency(requests, predictions, questions, scores, seed=2)
    assert (out["n_sets"] == 3).all()
    assert paraphrase_consistency(requests, predictions, questions.assign(paraphrase_set_id=None), scores).empty


def test_an_entry_asking_paraphrases_gets_its_sampled_questions_in_every_phrasing():
    from evaluation_py.configuration.model_specs import parse_eval_models
    from evaluation_py.running.requests import select_questions

    rows = []
    for i in range(20):
        q = f"syn--d--t--v{i:04d}--r1--q01"
        rows.append((q, q[:-5], "synthetic", "original", q))
        rows += [(f"{q}--p{p}", q[:-5], "synthetic", "paraphrase", q) for p in (2, 3)]
    q = pd.DataFrame(rows, columns=["question_id", "table_id", "source", "variant", "original_question_id"])

    def ask(**entry):
        return select_questions(parse_eval_models([{"name": "o", "backend": "oracle", **entry}])[0], q, 42)
    plain = ask(sample=4)
    sets = ask(sample=4, variants=["original", "paraphrase"])
    assert len(sets) == 12 and set(sets["original_question_id"]) == set(plain["question_id"])
    assert set(ask(sample=4, variants=["paraphrase"])["variant"]) == {"paraphrase"}
