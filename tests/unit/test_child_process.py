"""A computation in a forked child process (generator_py.core.child_process): its result, its errors; chunks
through a pool of workers, their results in order; the same in fresh interpreters."""
import math
import os
import resource
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from generator_py.core.child_process import (
    ChildComputationError, in_child_process, map_in_interpreters, streamed_pool_map,
)


def _pid_and_sum(frame: pd.DataFrame) -> tuple[int, float]:
    return os.getpid(), float(frame["x"].sum())


def test_the_result_comes_back_from_another_process():
    frame = pd.DataFrame({"x": [1.5, 2.5, 3.0]})  # inherited by the child, not pickled on the way in
    pid, total = in_child_process(_pid_and_sum, frame)
    assert pid != os.getpid() and total == 7.0


def _fails(kind: str):
    if kind == "value":
        raise ValueError("seed row 7 is bad")
    lock = threading.Lock()

    class Unpicklable(Exception):  # a local class: pickle cannot find it again
        pass

    raise Unpicklable(lock)


def test_an_error_in_the_child_is_raised_here_as_itself():
    with pytest.raises(ValueError, match="seed row 7 is bad"):
        in_child_process(_fails, "value")


def test_an_error_that_does_not_pickle_comes_back_with_its_traceback():
    with pytest.raises(ChildComputationError, match="Unpicklable"):
        in_child_process(_fails, "other")


def test_without_fork_it_runs_here(monkeypatch):
    monkeypatch.setenv("HCTQA_NO_FORK", "1")
    pid, total = in_child_process(_pid_and_sum, pd.DataFrame({"x": [1.0]}))
    assert pid == os.getpid() and total == 1.0


def test_a_child_that_dies_is_an_error_not_a_hang():
    with pytest.raises(ChildComputationError, match="without a result"):
        in_child_process(os._exit, 3)


def _square_in(pair):
    return os.getpid(), pair[0] * pair[1]


def test_a_map_runs_each_item_in_a_child_of_its_own_in_order():
    from generator_py.core.child_process import map_in_child_processes

    got = map_in_child_processes(_square_in, [(2, 3), (4, 5), (6, 7)])
    assert [v for _, v in got] == [6, 20, 42]
    assert len({pid for pid, _ in got}) == 3 and os.getpid() not in {pid for pid, _ in got}
    with pytest.raises(ValueError, match="seed row 7"):
        map_in_child_processes(_fails, ["value", "value"])


def _square_with_pid(x: int) -> tuple[int, int]:
    time.sleep(0.01 * (x % 3))  # finished out of order: the results must still come in order
    return x * x, os.getpid()


def test_a_streamed_pool_map_yields_in_order_taking_items_only_as_it_submits_them():
    pulled = []

    def items():
        for x in range(20):
            pulled.append(x)
            yield x

    results = streamed_pool_map(_square_with_pid, items(), workers=2, ahead=3)
    assert pulled == [0, 1, 2]  # the first `ahead` submitted at once, nothing more read
    first = next(results)
    assert first[0] == 0 and len(pulled) == 4
    rest = list(results)
    assert [r[0] for r in [first, *rest]] == [x * x for x in range(20)]
    assert os.getpid() not in {pid for _, pid in [first, *rest]}


def test_a_streamed_pool_map_raises_a_workers_error_where_it_is_read():
    results = streamed_pool_map(_fails_on_three, iter(range(6)), workers=2)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="three"):
        next(results)


def _fails_on_three(x: int) -> int:
    if x == 3:
        raise ValueError("three")
    return x


def test_interpreters_map_in_order_at_a_lower_priority():
    assert map_in_interpreters("math:factorial", list(range(25)), workers=2) == [math.factorial(n) for n in range(25)]
    # os.nice(0) answers the interpreter's niceness
    assert set(map_in_interpreters("os:nice", [0] * 4, workers=2, niceness=5)) == {min(os.nice(0) + 5, 19)}


def _resident_kib(status: str) -> int:
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])


def test_an_interpreter_holds_none_of_this_process_memory():
    ballast = bytearray(400 * 2**20)  # resident here: a fork would start with it
    ballast[::4096] = b"x" * len(ballast[::4096])
    (status,) = map_in_interpreters("pathlib:Path.read_text", [Path("/proc/self/status")], workers=1)
    assert _resident_kib(status) < 150 * 1024  # the interpreter and what it imported only
    assert _resident_kib(Path("/proc/self/status").read_text()) > 400 * 1024


def _children() -> set[int]:
    """This process's children, waited for or not (/proc/PID/stat: the fourth field is the parent's pid)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            out.add(int(stat.parent.name))
    return out


def test_an_error_in_an_interpreter_is_raised_here_and_stops_every_worker():
    before = _children()
    with pytest.raises(ValueError, match="factorial"):
        map_in_interpreters("math:factorial", [3, -1, 4, 5, 6], workers=2)
    assert _children() <= before


def test_an_interpreter_that_dies_is_an_error_not_a_hang():
    with pytest.raises(ChildComputationError, match="os:_exit ended without a result .exit status 3"):
        map_in_interpreters("os:_exit", [3], workers=1)
