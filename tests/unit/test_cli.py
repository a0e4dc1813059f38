"""The `hctqa` console script: registries listed, subcommands delegated, bad arguments one line and exit 2."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaluation_py.cli import main
from evaluation_py.registries import REGISTRIES


def hctqa(*args: str, cwd=None) -> subprocess.CompletedProcess:
    script = Path(sys.executable).parent / "hctqa"
    assert script.exists(), "the console script is installed with the package ([project.scripts])"
    return subprocess.run([str(script), *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_list_prints_every_registry_entry_with_description_and_origin():
    proc = hctqa("list", "metrics")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert {line.split()[0] for line in lines} == set(REGISTRIES["metrics"].names())
    f1 = next(line for line in lines if line.split()[0] == "f1")
    assert "[evaluation_py." in f1 and len(f1.split("  ")) >= 3
    for kind in ("families", "formats", "modes", "backends", "filters"):
        entries = REGISTRIES[kind].listing()
        assert entries and all(e.name and e.origin for e in entries), kind
    assert {"html", "csv", "markdown", "image"} <= set(REGISTRIES["formats"].names())
    assert {"direct", "pot", "icot", "tcot"} <= set(REGISTRIES["modes"].names())
    assert {"openai", "replay", "oracle", "header_match"} <= set(REGISTRIES["backends"].names())


@pytest.mark.parametrize("args", [[], ["list"], ["list", "nothing"], ["eval"], ["eval", "x.yml", "--limit", "many"],
                                  ["score", "--no-such-flag"], ["sandbox"], ["frobnicate"]])
def test_bad_arguments_exit_2_with_one_line(args, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("hctqa")


def test_eval_names_the_file_and_entry_of_a_bad_entry(tmp_path, capsys):
    project = Path(__file__).resolve().parents[2]
    bad = tmp_path / "entries.yml"
    bad.write_text("- name: m\n  backend: nosuch\n")
    assert main(["eval", str(bad), "--project-dir", str(project)]) == 2
    err = capsys.readouterr().err.strip()
    assert str(bad) in err and "unknown backend 'nosuch'" in err and len(err.splitlines()) == 1
    assert main(["eval", str(tmp_path / "missing.yml"), "--project-dir", str(project)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_eval_limit_and_formats_set_every_entry(tmp_path):
    from evaluation_py.cli import read_entries

    path = tmp_path / "e.yml"
    path.write_text("eval_models:\n  - {name: a, backend: oracle}\n  - {name: b, backend: header_match, sample: 9}\n")
    entries = read_entries(path, 5, ["csv", "markdown"])
    assert [(e["name"], e["sample"], e["formats"]) for e in entries] == [("a", 5, ["csv", "markdown"]),
                                                                        ("b", 5, ["csv", "markdown"])]


def test_score_and_sandbox_are_the_module_commands(tmp_path):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"id": "1", "response": "5", "gt": "{5}"}) + "\n")
    via_script = hctqa("score", str(predictions))
    via_module = subprocess.run([sys.executable, "-m", "evaluation_py.scoring", str(predictions)], capture_output=True,
                                text=True, timeout=120)
    assert via_script.returncode == via_module.returncode == 0, via_script.stderr
    assert via_script.stdout == via_module.stdout and via_script.stdout
    program = tmp_path / "prog.py"
    program.write_text("answer = 6 * 7\n")
    run = hctqa("sandbox", "run", str(program), "--sandbox", "rlimits")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["answer"] == "42"


def test_report_without_a_build_says_so(tmp_path):
    proc = hctqa("report", "--project-dir", str(tmp_path))
    assert proc.returncode == 1 and "no report at" in proc.stderr


def test_report_prints_its_path_and_the_last_runs_headline(tmp_path):
    runs = tmp_path / "reports" / "runs"
    runs.mkdir(parents=True)
    (tmp_path / "reports" / "index.html").write_text("<html></html>")
    result = {"table_format": "html", "inference_mode": "direct", "scoring_mode": "strict", "metric": "cc",
              "mean": 0.5, "ci_low": 0.4, "ci_high": 0.6, "n_questions": 10, "n_tables": 3}
    record = {"run_id": "r2", "started_at": "s", "ended_at": "e", "fingerprint": "fp",
              "models": {"m": {"requests_sent": 10, "requests_cached": 0, "requests_failed": 1, "results": [result]}}}
    (runs / "r1.json").write_text(json.dumps({**record, "run_id": "r1"}))
    import os
    import time
    os.utime(runs / "r1.json", (time.time() - 60, time.time() - 60))
    (runs / "r2.json").write_text(json.dumps(record))
    proc = hctqa("report", "--project-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == str(tmp_path / "reports" / "index.html")
    assert "last run r2" in lines[1] and "fp" in lines[1]
    assert "m: sent 10, cached 0, failed 1; html/direct cc 0.500 [0.400, 0.600]" in lines[2]


# hctqa eval's dbt, stood in for by a child that reports each signal it gets, then ends on the second
SIGNALLED_CHILD = """
import signal, sys, time
got = []
def note(signum, frame):
    got.append(signal.Signals(signum).name)
    print(got[-1], flush=True)
for s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(s, note)
print("READY", flush=True)
end = time.monotonic() + 20
while len(got) < 2 and time.monotonic() < end:
    time.sleep(0.05)
time.sleep(0.5)  # a signal sent twice would arrive meanwhile
"""
PARENT = "import sys; from evaluation_py.cli import _run_forwarding_signals; sys.exit(_run_forwarding_signals(sys.argv[1:], '.'))"


def test_eval_passes_each_signal_to_dbt_once(tmp_path):
    import os
    import signal
    import time

    child = tmp_path / "child.py"
    child.write_text(SIGNALLED_CHILD)
    proc = subprocess.Popen([sys.executable, "-c", PARENT, sys.executable, str(child)], stdout=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().strip() == "READY"
        os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: the whole foreground group
        assert proc.stdout.readline().strip() == "SIGINT"
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGTERM)  # to hctqa alone
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert out.split() == ["SIGTERM"]  # and no second SIGINT
