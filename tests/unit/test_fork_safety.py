"""A fork waits for an import in progress in another thread and for pyarrow's one-time pandas set-up, so a child
never inherits a lock they hold (its own import of that module, or its first conversion, would wait forever).
Each case runs in a fresh interpreter, where nothing has been imported or set up yet."""
from __future__ import annotations

import subprocess
import sys
import textwrap

# The end of each script: thread A finishes, the child's exit code is the script's, 3 when the child hung.
WAIT_FOR_CHILD = textwrap.dedent("""
    first.join()
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            sys.exit(os.waitstatus_to_exitcode(status))
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    sys.exit(3)
""")

# pandas and pyarrow's pandas modules are imported, as in a dbt process, so the set-up imports nothing. Thread A
# makes pyarrow's first pandas conversion while one step of the set-up (reading `pandas.api.extensions`) is
# slowed down, so A holds pyarrow's set-up lock, and no import lock, when the main thread forks; the child
# converts a frame.
SCRIPT = textwrap.dedent("""
    import os, sys, threading, time
    import pandas as pd
    import pyarrow as pa
    import pyarrow.pandas_compat, pyarrow.vendored.version
    SETUP

    class SlowApi:
        def __getattr__(self, name):
            if name == "extensions":
                pd.api = real_api
                started.set()
                time.sleep(HOLD)
            return getattr(real_api, name)

    started = threading.Event()
    real_api, pd.api = pd.api, SlowApi()
    first = threading.Thread(target=lambda: pa.lib._pandas_api.have_pandas)
    first.start()
    assert started.wait(10)
    time.sleep(0.1)  # A is inside the set-up, for HOLD seconds: the fork comes well before A is done
    pid = os.fork()
    if pid == 0:
        ok = pa.Table.from_pandas(pd.DataFrame({"x": ["a", "b"]})).num_rows == 2
        os._exit(0 if ok else 1)
""") + WAIT_FOR_CHILD


# Thread A imports a module whose body takes HOLD seconds; the main thread forks meanwhile; the child imports it.
IMPORT_SCRIPT = textwrap.dedent("""
    import os, sys, threading, time
    SETUP
    sys.path.insert(0, sys.argv[1])
    first = threading.Thread(target=lambda: __import__("slow_module"))
    first.start()
    time.sleep(0.1)  # A is inside the module's body, for HOLD seconds: the fork comes well before A is done
    pid = os.fork()
    if pid == 0:
        import slow_module
        os._exit(0 if slow_module.DONE else 1)
""") + WAIT_FOR_CHILD


HOLD = 3.0  # seconds thread A stays inside: long beside the scheduling delays of a busy machine


def _run(setup: str, script: str = SCRIPT, *args: str) -> int:
    code = script.replace("SETUP", f"HOLD = {HOLD}\n{setup}")
    return subprocess.run([sys.executable, "-c", code, *args], timeout=120).returncode


def test_a_fork_during_pyarrows_pandas_set_up_gives_a_child_that_converts():
    assert _run("import generator_py") == 0


def test_without_the_hook_that_child_hangs():
    # the hazard is real: the same script without generator_py's hook leaves the child waiting forever
    assert _run("") == 3


def _slow_module(folder) -> str:
    (folder / "slow_module.py").write_text(f"import time\ntime.sleep({HOLD})\nDONE = True\n")
    return str(folder)


def test_a_fork_during_an_import_in_another_thread_gives_a_child_that_imports_it(tmp_path):
    assert _run("import generator_py", IMPORT_SCRIPT, _slow_module(tmp_path)) == 0


def test_without_the_hook_the_importing_child_hangs(tmp_path):
    assert _run("", IMPORT_SCRIPT, _slow_module(tmp_path)) == 3
