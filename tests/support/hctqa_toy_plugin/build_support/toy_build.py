"""A build backend of the standard library alone (PEP 517 / PEP 660), so that installing the toy plugin needs
no network and no setuptools or wheel of a given version: the wheel holds the plugin's metadata (name,
version, the entry points of pyproject.toml) and its package; the editable wheel (`pip install -e`) the
metadata and a .pth file that puts this folder on sys.path."""
from __future__ import annotations

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _dist_info(project: dict) -> tuple[str, dict[str, str]]:
    name, version = project["name"], project["version"]
    stem = f"{name.replace('-', '_')}-{version}"
    entry_points = "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
                           for group, eps in project.get("entry-points", {}).items())
    files = {
        "METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {project.get('description', '')}\n",
        "WHEEL": "Wheel-Version: 1.0\nGenerator: toy_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        "entry_points.txt": entry_points,
    }
    return f"{stem}.dist-info", files


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def _write_wheel(directory: str, contents: dict[str, str]) -> str:
    project = _project()
    info, meta = _dist_info(project)
    contents = {**contents, **{f"{info}/{k}": v for k, v in meta.items()}}
    wheel = f"{project['name'].replace('-', '_')}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(Path(directory) / wheel, "w") as zf:
        record = []
        for path, text in contents.items():
            data = text.encode("utf-8")
            zf.writestr(path, data)
            record.append(_record_line(path, data))
        record.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return wheel


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, {"hctqa_toy_plugin.pth": str(ROOT) + "\n"})


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = ROOT / "hctqa_toy_plugin"
    return _write_wheel(wheel_directory, {f"hctqa_toy_plugin/{p.name}": p.read_text(encoding="utf-8")
                                          for p in sorted(package.glob("*.py"))})
