"""The suite's own honesty: no test holds an assertion that cannot fail.

Every Python file under tests/ is parsed and scanned for `or True` (`x == y or True` is always true)
and for an `assert` of a constant or of a non-empty literal (`assert True`, `assert 1`, `assert "x"`,
`assert (x, "message")`, `assert x or "message"`).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]


def _always_true(node: ast.expr) -> bool:
    """An expression whose truth does not depend on anything the test computes."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    if isinstance(node, ast.JoinedStr):  # an f-string with literal text is never empty
        return any(isinstance(v, ast.Constant) and v.value for v in node.values)
    return False


def _cannot_fail(test: ast.expr) -> bool:
    """An assert's test that holds whatever the code under test does: `assert "x"`, `assert y or "message"`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(map(_cannot_fail, test.values))
    return _always_true(test)


def vacuous_assertions(source: str, filename: str = "<test>") -> list[str]:
    """'file:line: what' for each line with an `or True` or an `assert` that cannot fail in `source`."""
    problems = {}
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Assert) and _cannot_fail(node.test):
            problems.setdefault(node.lineno, f"asserts what cannot fail: {ast.unparse(node.test)[:80]}")
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) \
                and any(isinstance(v, ast.Constant) and v.value is True for v in node.values):
            problems.setdefault(node.lineno, f"`or True`: {ast.unparse(node)[:80]}")
    return [f"{filename}:{line}: {what}" for line, what in sorted(problems.items())]


@pytest.mark.parametrize("source", [
    "def test():\n    assert f(1) == 2 or True\n",
    "def test():\n    assert True\n",
    "def test():\n    assert 1\n",
    "def test():\n    assert 'x'\n",
    "def test():\n    assert (f(1) == 2, 'one is two')\n",
    "def test():\n    ok = f(1) or True\n    assert ok\n",
    "def test():\n    assert f'{x}!'\n",
    "def test():\n    assert f(1) == 2 or 'one is two'\n",
])
def test_the_scan_finds_assertions_that_cannot_fail(source):
    assert len(vacuous_assertions(source)) == 1


@pytest.mark.parametrize("source", [
    "def test():\n    assert f(1) == 2\n",
    "def test():\n    assert f(1) or g(1)\n",
    "def test():\n    assert f(1) == 2 or False\n",
    "def test():\n    assert False, 'unreachable'\n",
    "def test():\n    assert f'{x}'\n",
    "def test():\n    assert f(x or 0) == 1\n",
    "def test():\n    name = x or 'default'\n    assert name == 'x'\n",
])
def test_the_scan_passes_assertions_that_can_fail(source):
    assert vacuous_assertions(source) == []


def test_no_test_holds_an_assertion_that_cannot_fail():
    files = sorted(TESTS.rglob("*.py"))
    assert len(files) > 50  # the whole suite was read
    problems = [p for f in files for p in vacuous_assertions(f.read_text(encoding="utf-8"), str(f.relative_to(TESTS)))]
    assert problems == []
