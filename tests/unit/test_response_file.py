"""The one reader of responses files (scoring CLI and replay backend): every shape of the release's files,
and the ground truth of lines without one, from a built database or a release qaps file."""
from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import duckdb
import pytest

from evaluation_py.backends import get_backend
from evaluation_py.scoring import cli as score_cli
from evaluation_py.scoring.response_file import ResponseFileError, read_response_records
from evaluation_py.testing.requests import make_requests
from generator_py.release.properties import TABLE_PROPERTIES

LINES = [
    {"qap_id": "psa--1--1--M0", "response": "a || 2", "gt": "{a | 2}"},
    {"id": "psa--1--1--A1", "output": "b", "ground_truth": "{c}"},
    {"qap_id": "pak--2--7--A0", "response": None, "gt": "{x}"},
]


def _jsonl(path: Path, records, gz: bool = False) -> Path:
    text = "\n".join(json.dumps(r) for r in records) + "\n"
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _json_list(path: Path, records) -> Path:
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")  # one key a line, as json.dump writes
    return path


def _cli(capsys, *args: str) -> subprocess.CompletedProcess:
    rc = score_cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), rc, captured.out, captured.err)


# ---------------------------------------------------------------- the reader
@pytest.mark.parametrize("write", ["jsonl", "jsonl.gz", "json", "json.gz"])
def test_every_layout_and_key_gives_the_same_records(tmp_path, write):
    path = tmp_path / f"r.{write}"
    if write.startswith("jsonl"):
        _jsonl(path, LINES, gz=write.endswith(".gz"))
    elif write == "json":
        _json_list(path, LINES)
    else:
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            json.dump(LINES, fh)
    got = [(r.id, r.has_response, r.response, r.gt) for r in read_response_records(path)]
    assert got == [("psa--1--1--M0", True, "a || 2", "{a | 2}"), ("psa--1--1--A1", True, "b", "{c}"),
                   ("pak--2--7--A0", True, None, "{x}")]


def test_a_list_names_each_item_by_the_line_it_starts_on(tmp_path):
    path = _json_list(tmp_path / "r.json", [{"id": "a", "response": "x"}, {"id": "b", "response": "y"}])
    assert [r.line for r in read_response_records(path)] == [2, 6]  # indent=2: four lines per object
    path.write_text('\ufeff  [{"id": 1, "output": 3.5},\n{"id": "b"}]', encoding="utf-8")
    recs = list(read_response_records(path))
    assert [(r.where, r.id, r.response, r.has_response, r.gt) for r in recs] == [
        (f"{path}:1", "1", "3.5", True, None), (f"{path}:2", "b", None, False, None)]
    path.write_text("[]", encoding="utf-8")
    assert list(read_response_records(path)) == []


@pytest.mark.parametrize("content, message", [
    ('[{"id": "a", "response": "x"},\n 7]', r"r\.json:2: expected a JSON object, got int"),
    ('[{"id": "a", "response": "x"}\n {"id": "b"}]', r"r\.json:2: malformed JSON list"),
    ('[{"id": "a", "response": "x"},\n\n {"id": "b", "response": }]', r"r\.json:3: malformed JSON"),
    ('[{"id": "a", "response": "x"}]\n{"id": "b"}', r"r\.json:2: text after the JSON list"),
    ('[{"id": "a", "response": "x"}', r"r\.json:1: malformed JSON list"),
    ('{"id": "a", "response": "x", "output": "y"}', r"r\.json:1: both 'response' and 'output'"),
    ('{"id": "a", "response": ["x"]}', r"r\.json:1: 'response' must be text, a number or null, got list"),
    ('{"id": "a", "response": "x", "gt": 5}', r"r\.json:1: 'gt' must be text, got int"),
    ('{"id": true, "response": "x"}', r"r\.json:1: the id must be text or a number"),
])
def test_bad_records_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ResponseFileError, match=message):
        list(read_response_records(path))


def test_equal_response_and_output_are_one_answer(tmp_path):
    path = _jsonl(tmp_path / "r.jsonl", [{"id": "a", "response": "x", "output": "x"}])
    assert [r.response for r in read_response_records(path)] == ["x"]


# ---------------------------------------------------------------- the scoring CLI
def _release(folder: Path) -> Path:
    """A release qaps file of two tables and three questions."""
    csv = ",0,1\n0,Sector,2020\n1,Clerks,5\n"
    props = {name: name == "Standard Relational Table" for name in TABLE_PROPERTIES}

    def q(qid, gt):
        return {"question_id": qid, "question": "How many?", "gt": gt, "question_properties": {}}

    tables = [{"table_id": "psa--1--1", "table_info": {"table_properties": props, "table_formats": {"csv": csv}},
               "questions": [q("psa--1--1--M0", "{a | 2}"), q("psa--1--1--A1", "{c}")]},
              {"table_id": "pak--2--7", "table_info": {"table_properties": props, "table_formats": {"csv": csv}},
               "questions": [q("pak--2--7--A0", "{x}")]}]
    folder.mkdir()
    path = folder / "realWorld_HCT_qaps.json"
    path.write_text(json.dumps(tables), encoding="utf-8")
    return path


def _benchmark(path: Path) -> Path:
    con = duckdb.connect(str(path))
    con.execute("create table benchmark_questions (question_id varchar, answer_gt varchar)")
    con.execute("insert into benchmark_questions values ('psa--1--1--M0', '{a | 2}'), ('psa--1--1--A1', '{c}'), "
                "('pak--2--7--A0', '{x}')")
    con.close()
    return path


def test_cli_scores_a_jsonl_and_a_json_list_alike(capsys, tmp_path):
    jsonl = _cli(capsys, _jsonl(tmp_path / "r.jsonl", LINES), "--scoring-mode", "paper")
    listed = _cli(capsys, _json_list(tmp_path / "r.json", LINES), "--scoring-mode", "paper")
    assert jsonl.returncode == listed.returncode == 0, jsonl.stderr + listed.stderr
    out = json.loads(jsonl.stdout)
    assert out == json.loads(listed.stdout)
    # a || 2 vs {a | 2}: 1; b vs {c}: 0; the null response is left out
    assert (out["n"], out["left_out"], out["f1"], out["cc"]) == (3, 1, 0.5, 0.5)


def test_cli_as_a_process_reads_a_json_list(tmp_path):
    import sys
    path = _json_list(tmp_path / "r.json", [{"id": "x--1", "output": "0.45", "gt": "{45}"}])
    proc = subprocess.run([sys.executable, "-m", "evaluation_py.scoring", str(path), "--scoring-mode", "paper-hitab"],
                          capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["f1"] == 1.0


@pytest.mark.parametrize("source", ["release", "release-folder", "benchmark"])
def test_cli_takes_missing_ground_truth_by_id(capsys, tmp_path, source):
    no_gt = [{"id": r.get("qap_id", r.get("id")), "response": r.get("response", r.get("output"))} for r in LINES]
    path = _json_list(tmp_path / "vision.json", no_gt)
    with_gt = json.loads(_cli(capsys, _jsonl(tmp_path / "r.jsonl", LINES)).stdout)
    if source == "benchmark":
        args = ["--benchmark", _benchmark(tmp_path / "hctqa.duckdb")]
    else:
        release = _release(tmp_path / "release")
        args = ["--release", release if source == "release" else release.parent]
    proc = _cli(capsys, path, *args)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == with_gt


def test_cli_line_gt_wins_over_the_source(capsys, tmp_path):
    path = _jsonl(tmp_path / "r.jsonl", [{"id": "pak--2--7--A0", "response": "y", "gt": "{y}"}])
    out = json.loads(_cli(capsys, path, "--release", _release(tmp_path / "release")).stdout)
    assert out["f1"] == 1.0


def test_cli_unknown_id_without_gt_is_named(capsys, tmp_path):
    path = _jsonl(tmp_path / "r.jsonl", [{"id": "psa--1--1--M0", "response": "a"}, {"id": "psa--9--9--M4", "response": "a"}])
    for args in (["--release", _release(tmp_path / "release")], ["--benchmark", _benchmark(tmp_path / "h.duckdb")]):
        proc = _cli(capsys, path, *args)
        assert proc.returncode == 2 and proc.stdout == ""
        assert f"{path}:2" in proc.stderr and "'psa--9--9--M4'" in proc.stderr and str(args[1]) in proc.stderr
    proc = _cli(capsys, path)
    assert proc.returncode == 2 and f"{path}:1" in proc.stderr and "--benchmark" in proc.stderr


def test_cli_bad_ground_truth_sources_are_named(capsys, tmp_path):
    path = _jsonl(tmp_path / "r.jsonl", [{"id": "a", "response": "a"}])
    missing = tmp_path / "nope.duckdb"
    proc = _cli(capsys, path, "--benchmark", missing)
    assert proc.returncode == 2 and str(missing) in proc.stderr
    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    proc = _cli(capsys, path, "--benchmark", empty)
    assert proc.returncode == 2 and str(empty) in proc.stderr and "benchmark_questions" in proc.stderr
    proc = _cli(capsys, path, "--release", tmp_path / "nothing")
    assert proc.returncode == 2 and "nothing" in proc.stderr
    with pytest.raises(SystemExit) as exc:
        score_cli.main([str(path), "--release", "x", "--benchmark", "y"])
    assert exc.value.code == 2


# ---------------------------------------------------------------- the replay backend, same reader
def test_replay_reads_a_json_list_with_id_and_output(tmp_path):
    path = _json_list(tmp_path / "vision.json", [{"id": "q0", "output": "a"}, {"id": "q1", "response": None},
                                                 {"qap_id": "q2", "output": 7}])
    got = {p.question_id: (p.response, p.error_kind)
           for p in _run(get_backend("replay", {"path": str(path)}), make_requests(4, backend="replay"))}
    assert got == {"q0": ("a", None), "q1": (None, "null_response"), "q2": ("7", None), "q3": (None, "missing")}


def test_replay_keeps_ground_truth_under_either_key(tmp_path):
    from evaluation_py.backends.replay_backend import read_responses
    path = _jsonl(tmp_path / "r.jsonl", [{"id": "q0", "response": "a", "ground_truth": "{a}"},
                                         {"qap_id": "q1", "output": "b", "gt": "{b}"}])
    assert read_responses(path).gt == {"q0": "{a}", "q1": "{b}"}


def test_replay_errors_of_a_json_list_name_the_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[{"id": "q0", "output": "a"},\n {"id": "q1"}]', encoding="utf-8")
    with pytest.raises(ValueError, match=r"replay backend: .*bad\.json:2: no 'response' \(or 'output'\)"):
        get_backend("replay", {"path": str(path)})


def _run(backend, requests):
    got = []
    backend.run(requests, got.append)
    return got
