"""A fork waits for an import in progress in another thread and for pyarrow's one-time pandas set-up, so a child
never inherits a lock they hold (its own import of that module, or its first conversion, would wait forever).
Each case runs in a fresh interpreter, where nothing has been imported or set up yet."""
from __future__ import annotations

import subprocess
import sys
import textwrap

# pandas is imported, as in a dbt process. Thread A makes pyarrow's first pandas conversion while the import of
# pyarrow's pandas module, part of the set-up, is slowed down (a finder that sleeps on it), so A holds pyarrow's
# set-up lock when the main thread forks; the child converts a frame.
SCRIPT = textwrap.dedent("""
    import importlib.abc, os, sys, threading, time
    import pandas as pd
    import pyarrow as pa
    SETUP

    class Slow(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "pyarrow.pandas_compat":
                started.set()
                time.sleep(1.0)
            return None

    started = threading.Event()
    sys.meta_path.insert(0, Slow())
    first = threading.Thread(target=lambda: pa.lib._pandas_api.have_pandas)
    first.start()
    assert started.wait(10)
    time.sleep(0.2)  # A is inside the set-up
    pid = os.fork()
    if pid == 0:
        ok = pa.Table.from_pandas(pd.DataFrame({"x": ["a", "b"]})).num_rows == 2
        os._exit(0 if ok else 1)
    first.join()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            sys.exit(os.waitstatus_to_exitcode(status))
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    sys.exit(3)  # the child hung
""")


# Thread A imports a module whose body takes a second; the main thread forks meanwhile; the child imports it.
IMPORT_SCRIPT = textwrap.dedent("""
    import os, sys, threading, time
    SETUP
    sys.path.insert(0, sys.argv[1])
    first = threading.Thread(target=lambda: __import__("slow_module"))
    first.start()
    time.sleep(0.3)  # A is inside the module's body
    pid = os.fork()
    if pid == 0:
        import slow_module
        os._exit(0 if slow_module.DONE else 1)
    first.join()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            sys.exit(os.waitstatus_to_exitcode(status))
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    sys.exit(3)  # the child hung
""")


def _run(setup: str, script: str = SCRIPT, *args: str) -> int:
    return subprocess.run([sys.executable, "-c", script.replace("SETUP", setup), *args], timeout=120).returncode


def test_a_fork_during_pyarrows_pandas_set_up_gives_a_child_that_converts():
    assert _run("import generator_py") == 0


def test_without_the_hook_that_child_hangs():
    # the hazard is real: the same script without generator_py's hook leaves the child waiting forever
    assert _run("") == 3


def test_a_fork_during_an_import_in_another_thread_gives_a_child_that_imports_it(tmp_path):
    (tmp_path / "slow_module.py").write_text("import time\ntime.sleep(1.0)\nDONE = True\n")
    assert _run("import generator_py", IMPORT_SCRIPT, str(tmp_path)) == 0


def test_without_the_hook_the_importing_child_hangs(tmp_path):
    (tmp_path / "slow_module.py").write_text("import time\ntime.sleep(1.0)\nDONE = True\n")
    assert _run("", IMPORT_SCRIPT, str(tmp_path)) == 3
