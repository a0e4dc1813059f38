"""`evaluation_py` may import `generator_py`, never the reverse: checked on every generator_py module's AST."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

GENERATOR = Path(__file__).resolve().parents[2] / "generator_py"


def imported_modules(source: str, module: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in `source`, the module named `module` (dotted)."""
    package = module.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against the importing module's package
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((node.lineno, name))
    return out


def forbidden_imports(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        for line, name in imported_modules(path.read_text(encoding="utf-8"), module):
            if name == "evaluation_py" or name.startswith("evaluation_py.") or name.split(".")[0] == "dbt":
                found.append(f"{path.relative_to(root.parent)}:{line}: imports {name}")
    return found


def test_generator_py_imports_neither_evaluation_py_nor_dbt():
    assert list(GENERATOR.rglob("*.py")), GENERATOR
    assert forbidden_imports(GENERATOR) == []


@pytest.mark.parametrize("source, module, expected", [
    ("import evaluation_py.scoring.scores", "generator_py.x", "evaluation_py.scoring.scores"),
    ("from evaluation_py import properties", "generator_py.x", "evaluation_py"),
    ("from ...evaluation_py import jsonl", "generator_py.sub.mod", "evaluation_py"),  # relative, past the package
    ("def f():\n    from evaluation_py.baselines.html_table import parse_html_table", "generator_py.a.b", "evaluation_py.baselines.html_table"),
])
def test_every_import_form_is_seen(tmp_path, source, module, expected):
    assert (1 if "def" not in source else 2, expected) in imported_modules(source, module)
    root = tmp_path / "generator_py"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "mod.py").write_text(source + "\n")
    (root / "fine.py").write_text("from .release.gt import format_gt\nimport pandas\n")
    assert forbidden_imports(root) == [f"generator_py/sub/mod.py:{1 if 'def' not in source else 2}: imports {expected}"]
