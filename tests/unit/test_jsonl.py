"""The one JSONL reader's rules: blank lines, BOM, gzip, errors naming file and line."""
from __future__ import annotations

import gzip

import pytest

from evaluation_py.scoring.jsonl import JsonlError, read_jsonl


def test_blank_lines_skipped_but_counted(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text('{"id": 1}\n\n   \n{"id": 2}\n', encoding="utf-8")
    assert list(read_jsonl(p)) == [(1, {"id": 1}), (4, {"id": 2})]


def test_bom_and_gzip_accepted(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + '{"id": "é"}\n'.encode())
    assert list(read_jsonl(p)) == [(1, {"id": "é"})]
    g = tmp_path / "a.jsonl.gz"
    with gzip.open(g, "wt", encoding="utf-8") as fh:
        fh.write('\ufeff{"id": 1}\n\n{"id": 2}')  # no final newline
    assert list(read_jsonl(g)) == [(1, {"id": 1}), (3, {"id": 2})]


@pytest.mark.parametrize("content, message", [
    (b'{"id": 1}\n{"id": }\n', r"a\.jsonl:2: malformed JSON \(Expecting value at column 8\)"),
    (b'{"id": 1}\n\n[1, 2]\n', r"a\.jsonl:3: expected a JSON object, got list"),
    (b'"text"\n', r"a\.jsonl:1: expected a JSON object, got str"),
    (b'{"id": 1}\n{"id": "\xff"}\n', r"a\.jsonl: not UTF-8 text"),
])
def test_bad_content_names_file_and_line(tmp_path, content, message):
    p = tmp_path / "a.jsonl"
    p.write_bytes(content)
    with pytest.raises(JsonlError, match=message):
        list(read_jsonl(p))


def test_bad_files(tmp_path):
    with pytest.raises(JsonlError, match=r"nope\.jsonl: no such file"):
        list(read_jsonl(tmp_path / "nope.jsonl"))
    with pytest.raises(JsonlError, match="is a directory"):
        list(read_jsonl(tmp_path))
    g = tmp_path / "broken.jsonl.gz"
    g.write_bytes(b"not gzip at all")
    with pytest.raises(JsonlError, match=r"broken\.jsonl\.gz: not a readable gzip file"):
        list(read_jsonl(g))
    assert issubclass(JsonlError, ValueError)


def test_both_readers_follow_the_rules(tmp_path):
    """The scoring CLI and the replay backend read the same file the same way (BOM, blank lines, gzip)."""
    from evaluation_py.backends.replay_backend import read_responses as replay_read
    from evaluation_py.scoring.cli import InputError, read_responses as score_read

    g = tmp_path / "r.jsonl.gz"
    with gzip.open(g, "wt", encoding="utf-8") as fh:
        fh.write('\ufeff{"id": "a", "response": "1", "gt": "{1}"}\n\n{"id": "b", "response": null, "gt": "{2}"}\n')
    assert score_read(str(g)).ids == ["a", "b"]
    assert replay_read(g).responses == {"a": "1", "b": None}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "response": "1", "gt": "{1}"}\n{oops\n')
    with pytest.raises(InputError, match=r"bad\.jsonl:2: malformed JSON"):
        score_read(str(bad))
    with pytest.raises(ValueError, match=r"replay backend: .*bad\.jsonl:2: malformed JSON"):
        replay_read(bad)
