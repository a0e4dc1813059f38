"""Programs that behave: what they get (renderings, df), what they give back (answer, printed
output), sessions whose state persists, and programs that cannot see each other. Also the limits,
the refusal without bubblewrap, and the CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluation_py.sandbox import INSTALL_HINT, Limits, SandboxError, SandboxPool, SandboxUnavailable
from evaluation_py.sandbox.program import grid_from_rows, inputs_from_csv
from generator_py.render.registry import render

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.timeout(300), pytest.mark.sandbox]  # a sandbox that hangs fails its test instead of the run
CSV = 'Region,2019,2020\n"North, East",007,1 234\nSouth,,NA\n'


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(2, Limits(timeout_s=5, cpu_s=5)) as pool:
        yield pool


def test_answer_variable_is_the_answer(pool):
    result = pool.run("print('working')\nanswer = 6 * 7\n")
    assert result.ok and result.answer == "42" and result.stdout == "working\n"
    assert result.sandbox == "bubblewrap" and result.error_kind is None


def test_printed_output_is_the_answer_without_the_variable(pool):
    result = pool.run("print('  North  ')\n")
    assert result.ok and result.answer == "North"


def test_df_holds_every_cell_as_the_csv_shows_it(pool):
    table = inputs_from_csv(CSV)
    result = pool.run("answer = repr(df.values.tolist()) + '|' + str(df.shape) + '|' + "
                      "str(all(type(v) is str for v in df.values.ravel()))", table)
    rows, shape, all_text = result.answer.split("|")
    assert eval(rows) == [["Region", "2019", "2020"], ["North, East", "007", "1 234"], ["South", "", "NA"]]
    assert shape == "(3, 3)" and all_text == "True"


def test_renderings_are_the_tables_text(pool):
    table = inputs_from_csv(CSV)
    grid = [["Region", "2019", "2020"], ["North, East", "007", "1 234"], ["South", "", "NA"]]
    assert table["html"] == render(grid_from_rows(grid), "html") and table["markdown"] == render(grid_from_rows(grid), "markdown")
    assert table["html"].startswith("<table cellpadding=\"4\"><thead><tr><th>Region</th>")
    assert table["markdown"].splitlines()[0] == "| Region | 2019 | 2020 |"
    result = pool.run("answer = '\\n===\\n'.join([html, markdown, csv])", table)
    assert result.answer == "\n===\n".join([table["html"], table["markdown"], CSV])


def test_syntax_and_runtime_errors(pool):
    assert pool.run("answer = (1 +").error_kind == "syntax"
    result = pool.run("answer = 1 / 0")
    assert result.error_kind == "runtime" and result.message.startswith("ZeroDivisionError")
    assert result.answer is None and "ZeroDivisionError" in result.stdout


def test_printing_too_much_is_an_output_limit(pool):
    limits = Limits(timeout_s=5, output_bytes=1000)
    result = pool.run("while True:\n    print('x' * 100)\n", limits=limits)
    assert result.error_kind == "output_limit" and len(result.stdout) <= 1000
    assert pool.run("answer = 'y' * 5000", limits=limits).error_kind == "output_limit"


def test_a_big_file_in_tmp_hits_the_file_size_limit(pool):
    result = pool.run("open('/tmp/big', 'wb').write(b'0' * (3 * 1024 * 1024))",
                      limits=Limits(timeout_s=5, file_size_mb=1))
    assert result.error_kind == "output_limit", result


def test_programs_do_not_see_each_others_files_or_processes(pool):
    first = pool.run("import os, subprocess\nopen('/tmp/left_behind', 'w').write('secret')\n"
                     "subprocess.Popen(['/bin/sleep', '30'])\nanswer = sorted(p for p in os.listdir('/proc') if p.isdigit())")
    assert first.ok and first.answer == "['1', '2']"  # itself and its sleep, in a PID namespace of its own
    for _ in range(3):  # whichever worker runs it
        second = pool.run("import os\nanswer = [os.path.exists('/tmp/left_behind'), "
                          "sorted(p for p in os.listdir('/proc') if p.isdigit()), os.listdir('/tmp')]")
        assert second.ok and second.answer == "[False, ['1'], []]"


def test_shared_memory_of_one_program_is_gone_for_the_next(pool):
    write = pool.run("from multiprocessing import shared_memory\n"
                     "m = shared_memory.SharedMemory(name='hctqa_leak', create=True, size=16)\nm.buf[:4] = b'leak'\n"
                     "answer = 'made'")
    assert write.ok and write.answer == "made"
    read = pool.run("from multiprocessing import shared_memory\nshared_memory.SharedMemory(name='hctqa_leak')")
    assert read.error_kind == "runtime" and "FileNotFoundError" in read.message


def test_session_state_persists_across_blocks(pool):
    with pool.session(inputs_from_csv(CSV)) as session:
        first = session.run("total = len(df)\nprint('rows', total)")
        second = session.run("total += 10\nanswer = total")
        third = session.run("print(total * 2)")
        assert (first.answer, second.answer, third.answer) == ("rows 3", "13", "26")
        assert second.stdout == "" and third.stdout == "26\n"


def test_each_block_of_a_session_has_its_own_output_cap_and_sessions_share_nothing(pool):
    limits = Limits(timeout_s=5, output_bytes=100)
    with pool.session(limits=limits) as session:
        assert session.run("print('a' * 60)\nsecret = 'first session'").ok
        assert session.run("print('b' * 60)").ok  # 120 bytes over two blocks: each under the cap
        assert session.run("print('c' * 200)").error_kind == "output_limit"
    with pool.session() as other:
        result = other.run("answer = [globals().get('secret'), __import__('os').listdir('/tmp')]")
        assert result.answer == "[None, []]"


def test_a_session_ends_when_a_block_times_out(pool):
    with pool.session(limits=Limits(timeout_s=1, cpu_s=5)) as session:
        assert session.run("x = 1").ok
        assert session.run("while True:\n    pass").error_kind == "timeout"
        after = session.run("answer = x")
        assert after.error_kind == "runtime" and "session has ended" in after.message


def test_same_program_same_answer(pool):
    code = "answer = str({'alpha', 'beta', 'gamma', 'delta'})"
    assert len({pool.run(code).answer for _ in range(4)}) == 1


def test_a_worker_that_died_is_reported_then_replaced():
    with SandboxPool(1) as pool:
        dead = pool._workers[0]
        dead.proc.kill()
        dead.proc.wait()
        with pytest.raises(SandboxError, match="bubblewrap worker"):
            pool.run("answer = 1")
        assert pool._workers[0] is not dead and pool._workers[0].alive()
        assert pool.run("answer = 2").answer == "2"


def test_limits_are_checked():
    with pytest.raises(ValueError, match="'timeout_s' must be a positive number"):
        Limits(timeout_s=0)
    with pytest.raises(ValueError, match=r"eval_models\[0\]\.sandbox_limits: unknown key\(s\) \['memory'\]"):
        Limits.from_dict({"memory": 5}, where="eval_models[0].sandbox_limits")


def test_without_bubblewrap_it_refuses_and_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap") as info:
        SandboxPool(1)
    assert str(info.value) == INSTALL_HINT and "sandbox: rlimits" in INSTALL_HINT
    with SandboxPool(1, sandbox="rlimits") as weaker:  # the opt-in still runs
        result = weaker.run("answer = 2 + 2")
    assert result.ok and result.answer == "4" and result.sandbox == "rlimits"


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evaluation_py.sandbox", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


def test_cli_prints_one_json_object_and_exits_zero(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("answer = df.iloc[1, 1]\nprint(len(df))\n")
    table = tmp_path / "t.csv"
    table.write_text(CSV)
    proc = _cli("run", str(program), "--table-csv", str(table), "--timeout", "5", "--memory-mb", "256")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert {k: result[k] for k in ("status", "error_kind", "answer", "stdout")} == \
        {"status": "ok", "error_kind": None, "answer": "007", "stdout": "3\n"}
    assert result["wall_s"] > 0 and result["sandbox"] == "bubblewrap"
    program.write_text("raise ValueError('model bug')\n")
    failed = _cli("run", str(program))
    assert failed.returncode == 0 and json.loads(failed.stdout)["error_kind"] == "runtime"


def test_cli_usage_errors_exit_two(tmp_path):
    missing = _cli("run", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "nope.py" in missing.stderr
    assert _cli("run").returncode == 2
    program = tmp_path / "p.py"
    program.write_text("answer = 1\n")
    assert _cli("run", str(program), "--timeout", "-1").returncode == 2
    no_bwrap = _cli("run", str(program), env={"PATH": str(tmp_path)})
    assert no_bwrap.returncode == 2 and "apt-get install bubblewrap" in no_bwrap.stderr


def test_each_program_gets_its_own_memory_limit_in_one_worker():
    grow = "block = bytearray(b'\\x01') * (200 * 1024 * 1024)\nanswer = len(block)\n"
    with SandboxPool(1) as pool:
        for memory_mb, fits in ((512, True), (128, False), (1024, True), (128, False)):
            result = pool.run(grow, limits=Limits(timeout_s=20, cpu_s=20, memory_mb=memory_mb))
            assert (result.status == "ok") is fits, (memory_mb, result)
            if not fits:
                assert result.error_kind == "memory", result
