"""Entry key `splits`: an entry is asked only on tables of the fine-tuning splits it names (benchmark_finetune_splits),
so a model fine-tuned on the export's train split is scored on tables it never saw; a bad value names the entry."""
from __future__ import annotations

import pandas as pd
import pytest

from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.dbt_glue.evaluation_inputs import eval_inputs_from_relations
from evaluation_py.exports.finetune_splits import table_splits
from evaluation_py.running.requests import build_requests

N = 40
TABLES = pd.DataFrame({"table_id": [f"t{i:02d}" for i in range(N)], "html": "<table></table>", "csv": "a\n",
                       "markdown": "| a |\n"})
QUESTIONS = pd.DataFrame({"question_id": [f"t{i % N:02d}--q{i:03d}" for i in range(3 * N)],
                          "table_id": [f"t{i % N:02d}" for i in range(3 * N)], "source": "synthetic",
                          "question": "How many?", "answer_gt": "{1}"})
SPLITS = table_splits(TABLES[["table_id"]], 42, (0.5, 0.2, 0.3))


def _asked(entries, splits=SPLITS):
    inputs = eval_inputs_from_relations(QUESTIONS, TABLES, repr(entries), "42", splits=splits)
    asked: dict[str, set] = {}
    for r in inputs.requests:
        asked.setdefault(r.model_name, set()).add(r.table_id)
    return asked


def test_an_entry_with_splits_is_asked_on_those_tables_only():
    split_of = dict(zip(SPLITS["table_id"], SPLITS["split"]))
    asked = _asked([{"name": "tuned", "backend": "oracle", "splits": ["test"]},
                    {"name": "two", "backend": "oracle", "splits": ["validation", "test"]},
                    {"name": "all", "backend": "oracle"}])
    test_tables = {t for t, s in split_of.items() if s == "test"}
    assert 0 < len(test_tables) < N and asked["tuned"] == test_tables
    assert asked["two"] == {t for t, s in split_of.items() if s != "train"}
    assert asked["all"] == set(TABLES["table_id"])
    # the sample is drawn from the split's questions, and a question asked in both is the same request
    sampled = _asked([{"name": "tuned", "backend": "oracle", "splits": "test", "sample": 5}])["tuned"]
    assert sampled <= test_tables and sampled


def test_the_splits_are_read_only_when_an_entry_asks_for_them():
    def unbuilt():
        raise RuntimeError("Catalog Error: Table with name benchmark_finetune_splits does not exist!")
    assert _asked([{"name": "all", "backend": "oracle"}], splits=unbuilt)["all"] == set(TABLES["table_id"])
    with pytest.raises(ValueError, match=r"entry 'tuned': key `splits` reads benchmark_finetune_splits, which could "
                                         r"not be read \(RuntimeError\); build it too \(`--select \+tag:finetune`"):
        _asked([{"name": "tuned", "backend": "oracle", "splits": ["test"]}], splits=unbuilt)
    with pytest.raises(ValueError, match=r"entry 'tuned': key `splits`: table 't00' has no row in benchmark_finetune_splits"):
        _asked([{"name": "tuned", "backend": "oracle", "splits": ["test"]}], splits=SPLITS[SPLITS["table_id"] != "t00"])
    (spec,) = parse_eval_models([{"name": "tuned", "backend": "oracle", "splits": ["test"]}])
    with pytest.raises(ValueError, match=r"entry 'tuned': key `splits` needs each table's fine-tuning split"):
        build_requests(spec, QUESTIONS, TABLES, 42)


@pytest.mark.parametrize("value", [[], ["dev"], ["test", "test"], 3, [["test"]]])
def test_a_bad_splits_value_names_the_entry_and_the_key(value):
    with pytest.raises(ValueError, match=r"eval_models entry 1 \(.*'tuned'.*\): key `splits` .* must be a non-empty "
                                         r"list of distinct fine-tuning splits among train, validation, test"):
        parse_eval_models([{"name": "tuned", "backend": "oracle", "splits": value}])
    (spec,) = parse_eval_models([{"name": "tuned", "backend": "oracle", "splits": "test"}])
    assert spec.splits == ("test",) and parse_eval_models([{"name": "m", "backend": "oracle"}])[0].splits is None


def test_the_judge_takes_no_splits():
    from evaluation_py.scoring.judge import parse_judge_model
    with pytest.raises(ValueError, match=r"var judge_model: key `splits` has no meaning for the judge"):
        parse_judge_model({"backend": "oracle", "splits": ["test"]})
    with pytest.raises(ValueError, match=r"var judge_model: key `shots` has no meaning for the judge"):
        parse_judge_model({"backend": "oracle", "shots": 1})


def test_one_invocation_builds_the_requests_once(monkeypatch, tmp_path):
    """eval_prompts, eval_requests and eval_predictions of one dbt invocation share the requests built from the
    marts (relations); another invocation, or frames, build them anew."""
    import duckdb
    from dbt_common import invocation

    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    con.register("q", QUESTIONS)
    con.register("t", TABLES)
    con.execute("create table benchmark_questions as select * from q; create table benchmark_tables as select * from t")
    entries = repr([{"name": "all", "backend": "oracle"}])
    monkeypatch.setattr(invocation, "get_invocation_id", lambda: "run-1")
    first = eval_inputs_from_relations(con.table("benchmark_questions"), con.table("benchmark_tables"), entries, "42")
    again = eval_inputs_from_relations(con.table("benchmark_questions"), con.table("benchmark_tables"), entries, "42")
    assert again is first and len(first.requests) == 3 * N
    other_seed = eval_inputs_from_relations(con.table("benchmark_questions"), con.table("benchmark_tables"), entries, "7")
    assert other_seed is not first
    monkeypatch.setattr(invocation, "get_invocation_id", lambda: "run-2")
    later = eval_inputs_from_relations(con.table("benchmark_questions"), con.table("benchmark_tables"), entries, "42")
    assert later is not first and [r.cache_key for r in later.requests] == [r.cache_key for r in first.requests]
    frames = eval_inputs_from_relations(QUESTIONS, TABLES, entries, "42")
    assert frames is not eval_inputs_from_relations(QUESTIONS, TABLES, entries, "42")
