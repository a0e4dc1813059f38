"""Fine-tuning exports: splits by original table, Parquet splits read back with pyarrow, dataset_info.json
naming those Parquet files (alpaca JSON only when asked), the dataset card, batches, orphans, determinism."""
from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pyarrow.parquet as pq
import pytest

from evaluation_py.backends.oracle_backend import gt_to_answer
from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.exports.finetune_sets import (CHOICE_INSTRUCTION, COMBINED_CONFIGS, FINETUNE_SETS, SOURCE_CONFIGS,
                                                choice_examples, composition_rows, example_batches, question_examples,
                                                set_datasets, source_config, write_finetune_exports, written_frame)
from evaluation_py.exports.finetune_splits import SPLITS, parse_fractions, split_of, table_splits
from evaluation_py.prompting.prompts import PROMPT, build_messages
from evaluation_py.running.requests import build_requests


def test_split_shares_follow_the_fractions_and_depend_on_seed_and_original_only():
    ids = [f"t{i}" for i in range(6000)]
    counts = Counter(split_of(t, 42) for t in ids)
    assert abs(counts["train"] / 6000 - 0.8) < 0.02 and abs(counts["test"] / 6000 - 0.1) < 0.015
    assert [split_of(t, 42) for t in ids[:50]] == [split_of(t, 42) for t in ids[:50]]
    assert [split_of(t, 42) for t in ids[:200]] != [split_of(t, 7) for t in ids[:200]]
    assert Counter(split_of(t, 1, (0.5, 0.0, 0.5)) for t in ids)["validation"] == 0
    assert {split_of(t, 1, (1.0, 0.0, 0.0)) for t in ids} == {"train"}


def test_a_variant_is_in_its_originals_split_whatever_else_the_build_has():
    originals = [f"t{i}" for i in range(300)]
    tables = pd.DataFrame({"table_id": originals + [f"{t}--obf" for t in originals],
                           "original_table_id": [None] * 300 + originals})
    splits = table_splits(tables, 42).set_index("table_id")
    for t in originals:
        assert splits.at[f"{t}--obf", "split"] == splits.at[t, "split"]
        assert splits.at[f"{t}--obf", "original_table_id"] == t and splits.at[t, "original_table_id"] == t
    # a table keeps its split in a smaller build, and without the variant column
    alone = table_splits(pd.DataFrame({"table_id": originals[:40]}), 42).set_index("table_id")
    assert alone["split"].to_dict() == splits.loc[originals[:40], "split"].to_dict()
    with pytest.raises(ValueError, match=r"original_table_id: 'nope' is not a table of the benchmark"):
        table_splits(pd.DataFrame({"table_id": ["a"], "original_table_id": ["nope"]}), 1)


@pytest.mark.parametrize("raw, message", [
    ([0.8, 0.1], "three shares"), ([0.8, 0.1, 0.2], "sum to 1.1"), ([0.8, -0.1, 0.3], "a number >= 0"),
    ([0, 0.5, 0.5], "train share must be above 0"), ({"train": 0.9, "dev": 0.1}, "unknown split"),
])
def test_bad_fractions_name_the_var(raw, message):
    with pytest.raises(ValueError, match=rf"var finetune_split_fractions .*{message}"):
        parse_fractions(raw)
    assert parse_fractions(None) == (0.8, 0.1, 0.1) and parse_fractions({"train": 1}) == (1.0, 0.0, 0.0)


@pytest.fixture
def bench():
    n = 60
    tables = pd.DataFrame({"table_id": [f"t{i:02d}" for i in range(n)],
                           "html": [f"<table><tr><td>v{i}</td></tr></table>" for i in range(n)],
                           "csv": [f"City,Pop\nDoha,{i}\n" for i in range(n)]})
    questions = pd.DataFrame({"question_id": [f"q{i:03d}" for i in range(3 * n)],
                              "table_id": [f"t{i % n:02d}" for i in range(3 * n)],
                              "source": "synthetic", "template_id": 1, "question": "What is the Pop of Doha?",
                              "answer_gt": ["{Doha | 7} || {Oslo | 2}", "{12}", "Yes"] * n})
    items = pd.DataFrame({"item_id": [f"b_tis--q{i:03d}" for i in range(n)] + [f"m_tis--q{i:03d}" for i in range(n)],
                          "subset": ["b_tis"] * n + ["m_tis"] * n,
                          "table_id": [f"t{i:02d}" for i in range(n)] * 2,
                          "other_table_id": [None] * n + [f"t{(i + 1) % n:02d}" for i in range(n)],
                          "other_table_position": [None] * n + ["before", "after"] * (n // 2),
                          "question": "Pop?", "option_a": "{7}", "option_b": "{8}", "correct_option": "A",
                          "content_variant": "original", "table_csv": [None] * (2 * n)})
    splits = table_splits(tables, 42, (0.6, 0.2, 0.2))
    return tables, questions, items, splits


def test_question_examples_are_the_evaluation_prompt_and_the_oracle_answer(bench):
    tables, questions, _, splits = bench
    ex = question_examples(questions, tables, splits)
    row = ex[ex["id"] == "q000"].iloc[0]
    assert row["instruction"] == PROMPT.system
    assert row["input"] == build_messages(tables.at[0, "html"], "html", "What is the Pop of Doha?")[1]["content"]
    assert row["output"] == gt_to_answer("{Doha | 7} || {Oslo | 2}") == "Doha || 7 || Oslo || 2"
    assert row["split"] == splits.set_index("table_id").at["t00", "split"]


def test_an_item_showing_a_table_of_another_split_is_left_out(bench):
    tables, _, items, splits = bench
    ex = choice_examples(items, tables, splits)
    split_of_table = dict(zip(splits["table_id"], splits["split"]))
    m = ex[ex["subset"] == "m_tis"]
    kept = {f"m_tis--q{i:03d}" for i in range(60) if split_of_table[f"t{i:02d}"] == split_of_table[f"t{(i + 1) % 60:02d}"]}
    assert set(m["id"]) == kept and 0 < len(kept) < 60
    assert (ex["subset"] == "b_tis").sum() == 60 and set(ex["output"]) == {"A"}
    first = m.iloc[0]
    i = int(first["id"][-3:])
    own, other = f"Doha,{i}", f"Doha,{(i + 1) % 60}"
    order = [own, other] if i % 2 else [other, own]  # even items show the other table before
    assert first["input"].index(order[0]) < first["input"].index(order[1])
    assert first["input"].startswith("Table 1 (CSV):") and first["input"].endswith("Question: Pop?\nA. {7}\nB. {8}")
    assert first["instruction"] == CHOICE_INSTRUCTION


def test_parquet_splits_read_back_and_dataset_info_names_them(bench, tmp_path):
    tables, questions, items, splits = bench
    configs = {"questions": question_examples(questions, tables, splits),
               "choice_items": choice_examples(items, tables, splits)}
    written = written_frame(write_finetune_exports(tmp_path / "exports", configs))
    hf, lf = tmp_path / "exports" / "hf", tmp_path / "exports" / "llamafactory"
    assert [p.name for p in lf.iterdir()] == ["dataset_info.json"]  # no alpaca JSON unless asked
    assert set(written["file_format"]) == {"parquet", "card", "dataset_info"}
    for config, frame in configs.items():
        tables_of = {}
        for split in SPLITS:
            part = pq.read_table(hf / config / f"{split}-00000-of-00001.parquet").to_pandas()
            assert (part["split"] == split).all()
            assert {"instruction", "input", "output"} <= set(part.columns)
            tables_of[split] = set(part["table_id"]) | set(part["original_table_id"])
        # no table in two splits; every example once
        assert not (tables_of["train"] & tables_of["validation"] or tables_of["train"] & tables_of["test"]
                    or tables_of["validation"] & tables_of["test"])
        parts = [pq.read_table(hf / config / f"{s}-00000-of-00001.parquet") for s in SPLITS]
        assert sorted(sum((p.column("id").to_pylist() for p in parts), [])) == sorted(frame["id"])
    assert sum(len(pq.read_table(hf / "questions" / f"{s}-00000-of-00001.parquet")) for s in SPLITS) == 180
    info = json.loads((lf / "dataset_info.json").read_text())
    assert set(info) == {f"hctqa_{c}_{s}" for c in configs for s in SPLITS}
    for name, entry in info.items():
        config, split = name[len("hctqa_"):].rsplit("_", 1)
        # the same Parquet file the Hugging Face layout has, relative to LLaMA-Factory's dataset_dir
        assert entry["file_name"] == f"../hf/{config}/{split}-00000-of-00001.parquet"
        assert (lf / entry["file_name"]).resolve() == (hf / config / f"{split}-00000-of-00001.parquet").resolve()
        assert entry["formatting"] == "alpaca"
        assert entry["columns"] == {"prompt": "instruction", "query": "input", "response": "output"}
    card = (hf / "README.md").read_text()
    front = card.split("---")[1]
    assert "- config_name: questions" in front and "- config_name: choice_items" in front
    for path in [line.split("path: ")[1] for line in front.splitlines() if "path: " in line]:
        assert (hf / path).exists()
    # counts per split as the composition mart shows them
    rows = composition_rows(written)
    train = configs["questions"][configs["questions"]["split"] == "train"]
    assert rows.set_index("key").loc["questions/train", "n_questions"] == len(train)
    assert rows.set_index("key").loc["questions/train", "n_tables"] == train["table_id"].nunique()
    assert set(rows["facet"]) == {"finetune_split"} and len(rows) == 6


def test_alpaca_json_when_asked_and_removed_when_no_longer(bench, tmp_path):
    tables, questions, items, splits = bench
    configs = {"questions": question_examples(questions, tables, splits)}
    out = tmp_path / "exports"
    lf = out / "llamafactory"
    write_finetune_exports(out, configs, alpaca_json=True)
    info = json.loads((lf / "dataset_info.json").read_text())
    for split in SPLITS:
        part = pq.read_table(out / "hf" / "questions" / f"{split}-00000-of-00001.parquet").to_pandas()
        alpaca = json.loads((lf / f"hctqa_questions_{split}.json").read_text())
        assert [set(e) for e in alpaca] == [{"instruction", "input", "output"}] * len(part)
        assert [e["output"] for e in alpaca] == part["output"].tolist()
        assert info[f"hctqa_questions_{split}"]["file_name"] == f"hctqa_questions_{split}.json"
    write_finetune_exports(out, configs)  # the JSON form turned off: its files are orphans
    assert sorted(p.name for p in lf.iterdir()) == ["dataset_info.json"]


def test_batches_write_the_bytes_of_one_frame(bench, tmp_path):
    tables, questions, items, splits = bench
    whole = question_examples(questions, tables, splits)
    keys = questions.assign(id=questions["question_id"].astype(str),
                            split=questions["table_id"].map(dict(zip(splits["table_id"], splits["split"]))))
    batched = example_batches(keys, lambda rows: question_examples(rows.drop(columns=["id", "split"]), tables, splits),
                              batch=7)
    a = write_finetune_exports(tmp_path / "a", {"questions": whole})
    b = write_finetune_exports(tmp_path / "b", {"questions": batched})
    assert [w.path.relative_to(tmp_path / "a") for w in a] == [w.path.relative_to(tmp_path / "b") for w in b]
    for wa, wb in zip(a, b):
        if wa.file_format == "parquet":  # row groups are cut at fixed sizes, not at batch ends
            assert pq.read_table(wa.path).equals(pq.read_table(wb.path)), wa.path.name
        else:
            assert wa.path.read_bytes() == wb.path.read_bytes(), wa.path.name


def test_examples_out_of_split_order_are_refused(bench, tmp_path):
    tables, questions, items, splits = bench
    frame = question_examples(questions, tables, splits)
    parts = [frame[frame["split"] == "test"], frame[frame["split"] == "train"]]
    with pytest.raises(ValueError, match=r"fine-tuning export 'questions': examples not in split order"):
        write_finetune_exports(tmp_path, {"questions": iter(parts)})


def test_the_same_benchmark_gives_the_same_bytes(bench, tmp_path):
    tables, questions, items, splits = bench
    def write(folder):
        configs = {"questions": question_examples(questions, tables, splits),
                   "choice_items": choice_examples(items, tables, splits)}
        return {w.path.relative_to(folder): w.path.read_bytes() for w in write_finetune_exports(folder, configs)}
    assert write(tmp_path / "a") == write(tmp_path / "b")


def test_no_example_shows_the_answer_its_question_hides(bench):
    # a title_name question (the caption is its answer) and a header_name one (a header cell is) show the
    # table without it, as their evaluation prompts do; the table's own HTML has both
    tables, _, _, splits = bench
    tables = tables.assign(html=["<table><caption>Population of Doha</caption><tr><th>Year</th></tr>"
                                 f"<tr><td>{i}</td></tr></table>" for i in range(len(tables))])
    hidden = {"title_name": ("Population of Doha", "<table><tr><th>Year</th></tr><tr><td>0</td></tr></table>"),
              "header_name": ("Year", "<table><caption>Population of Doha</caption><tr><th></th></tr>"
                                      "<tr><td>0</td></tr></table>")}
    questions = pd.DataFrame({
        "question_id": ["t00--title_name", "t00--header_name", "t00--q1"], "table_id": "t00", "source": "synthetic",
        "family": ["title_name", "header_name", None],
        "question": ["What is the table's title?", "Which label is blank?", "What is the Pop of Doha?"],
        "answer_gt": [f"{{{hidden['title_name'][0]}}}", f"{{{hidden['header_name'][0]}}}", "{0}"],
        "rendering_html": [hidden["title_name"][1], hidden["header_name"][1], None]})
    ex = question_examples(questions, tables, splits).set_index("id")
    for family, (answer, view) in hidden.items():
        text = ex.at[f"t00--{family}", "input"]
        assert answer not in text.replace(questions.set_index("family").at[family, "question"], "")
        assert view in text and tables.at[0, "html"] not in text
    assert tables.at[0, "html"] in ex.at["t00--q1", "input"]  # a question hiding nothing shows its table
    # the example's input is the user message of the question's evaluation prompt
    (spec,) = parse_eval_models([{"name": "m", "backend": "oracle"}])
    prompts = {r.question_id: r.messages[-1]["content"] for r in build_requests(spec, questions, tables, 42)}
    assert prompts == ex["input"].to_dict()


def test_the_three_fine_tuning_sets_are_the_source_configs_alone_or_together(bench, tmp_path):
    tables, questions, _, splits = bench
    questions = questions.assign(source=["real" if i % 3 == 0 else "synthetic" for i in range(len(questions))])
    frames = {config: question_examples(questions[questions["source"] == source], tables, splits)
              for source, config in SOURCE_CONFIGS.items()}
    write_finetune_exports(tmp_path / "exports", frames, combined=COMBINED_CONFIGS)
    hf = tmp_path / "exports" / "hf"
    front = (hf / "README.md").read_text().split("---")[1]
    # `questions` is both sources' files, listed per split; no file of its own
    block = front[front.index("- config_name: questions\n"):]
    for split in SPLITS:
        assert (f"  - split: {split}\n    path:\n    - questions_real/{split}-00000-of-00001.parquet\n"
                f"    - questions_synthetic/{split}-00000-of-00001.parquet") in block
    assert not (hf / "questions").exists()
    real_ids = set(pq.read_table(hf / "questions_real" / "train-00000-of-00001.parquet").column("id").to_pylist())
    assert real_ids and all(int(i[1:]) % 3 == 0 for i in real_ids)
    assert set_datasets("real_synthetic") == "hctqa_questions_real_train,hctqa_questions_synthetic_train"
    assert set_datasets("real", "test") == "hctqa_questions_real_test" and set(FINETUNE_SETS) == {
        "real", "synthetic", "real_synthetic"}
    with pytest.raises(ValueError, match=r"question 'q1' has source 'web'; sources are real, synthetic"):
        source_config("web", "q1")
    with pytest.raises(ValueError, match=r"unknown fine-tuning set 'both'"):
        set_datasets("both")
    # a combined config whose parts were not all written is left out of the card
    write_finetune_exports(tmp_path / "b", {"questions_real": frames["questions_real"]}, combined=COMBINED_CONFIGS)
    assert "config_name: questions\n" not in (tmp_path / "b" / "hf" / "README.md").read_text()
