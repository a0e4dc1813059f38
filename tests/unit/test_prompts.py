"""Zero-shot prompts: layout, shared prefix, folding, versioning."""
from __future__ import annotations

import dataclasses
import os
import re

import pytest

from evaluation_py.prompting import prompts
from evaluation_py.backends.base import make_cache_key
from evaluation_py.prompting.prompts import PROMPT, PROMPT_VERSION, TABLE_FORMATS, build_messages, template_fingerprint

# The wording fingerprint of each released prompt version. Editing the wording
# without bumping PROMPT_VERSION (and adding its fingerprint here) fails below.
KNOWN_FINGERPRINTS = {
    "hctqa-zeroshot-v1": "08c9440631498226",
}

TABLES = {
    "csv": "Region,2019,2020\nDoha,10,12\nAl Rayyan,7,9\n",
    "html": "<table><tr><th>Region</th><th>2019</th></tr><tr><td>Doha</td><td>10</td></tr></table>",
    "markdown": "| Region | 2019 |\n|---|---|\n| Doha | 10 |",
}
Q1 = "What is the value for Doha in 2019?"
Q2 = "Which region has the smallest value in 2020?"


def _text(messages) -> str:
    return "".join(m["role"] + "\x00" + m["content"] + "\x01" for m in messages)


def _common_prefix(a: str, b: str) -> str:
    return os.path.commonprefix([a, b])


def test_version_is_pinned_to_wording():
    assert PROMPT_VERSION == PROMPT.version
    assert PROMPT_VERSION in KNOWN_FINGERPRINTS, "new PROMPT_VERSION: add its fingerprint to KNOWN_FINGERPRINTS"
    assert template_fingerprint(PROMPT) == KNOWN_FINGERPRINTS[PROMPT_VERSION], (
        "prompt wording changed without a PROMPT_VERSION bump"
    )


@pytest.mark.parametrize("fmt", TABLE_FORMATS)
def test_roles_and_layout(fmt):
    msgs = build_messages(TABLES[fmt], fmt, Q1)
    assert isinstance(msgs, tuple)
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert set(msgs[0]) == {"role", "content"}
    system, user = msgs[0]["content"], msgs[1]["content"]
    assert "no answer" in system and "||" in system
    assert "only" in system.lower() and "table" in system.lower()
    assert TABLES[fmt].rstrip("\n") in user
    # the format is named on the line before the table
    first_line = user.split("\n", 1)[0]
    assert fmt in first_line.lower()
    assert user.split("\n", 1)[1].startswith(TABLES[fmt].rstrip("\n"))


@pytest.mark.parametrize("fmt", TABLE_FORMATS)
def test_table_before_question_and_question_last(fmt):
    user = build_messages(TABLES[fmt], fmt, Q1)[-1]["content"]
    assert user.index(TABLES[fmt].rstrip("\n")) < user.index(Q1)
    assert user.rstrip().endswith(Q1)


@pytest.mark.parametrize("system_role", [True, False])
@pytest.mark.parametrize("fmt", TABLE_FORMATS)
def test_prompts_on_one_table_share_a_prefix(fmt, system_role):
    a = _text(build_messages(TABLES[fmt], fmt, Q1, system_role=system_role))
    b = _text(build_messages(TABLES[fmt], fmt, Q2, system_role=system_role))
    prefix = _common_prefix(a, b)
    assert TABLES[fmt].rstrip("\n") in prefix
    # everything after the shared prefix is the question block only
    assert len(a) - len(prefix) <= len(Q1) + 2
    # a different table breaks the prefix before the table text
    other = _text(build_messages(TABLES[fmt] + "\nextra", fmt, Q1, system_role=system_role))
    assert TABLES[fmt].rstrip("\n") + "\nextra" not in _common_prefix(a, other)


def test_folding_variant():
    sys_msgs = build_messages(TABLES["csv"], "csv", Q1)
    folded = build_messages(TABLES["csv"], "csv", Q1, system_role=False)
    assert len(folded) == 1 and folded[0]["role"] == "user"
    content = folded[0]["content"]
    assert content.startswith(sys_msgs[0]["content"])
    assert content.endswith(sys_msgs[1]["content"])
    assert sys_msgs[1]["content"] not in sys_msgs[0]["content"]


def test_deterministic():
    assert build_messages(TABLES["html"], "html", Q1) == build_messages(TABLES["html"], "html", Q1)


@pytest.mark.parametrize("bad", ["json", "HTML", "", "latex"])
def test_unknown_format(bad):
    with pytest.raises(ValueError, match=re.escape(repr(bad))):
        build_messages(TABLES["csv"], bad, Q1)


def test_version_change_changes_messages_and_cache_key():
    v2 = dataclasses.replace(
        PROMPT, version="hctqa-zeroshot-test",
        system=PROMPT.system + " Keep the values exactly as written in the table.",
    )
    assert template_fingerprint(v2) != template_fingerprint(PROMPT)
    for system_role in (True, False):
        old = build_messages(TABLES["csv"], "csv", Q1, system_role=system_role)
        new = build_messages(TABLES["csv"], "csv", Q1, system_role=system_role, template=v2)
        assert old != new
        key_old = make_cache_key("m", "openai", "gpt", {"temperature": 0}, old)
        key_new = make_cache_key("m", "openai", "gpt", {"temperature": 0}, new)
        assert key_old != key_new


def test_module_wording_edit_changes_default_messages(monkeypatch):
    before = build_messages(TABLES["markdown"], "markdown", Q1)
    edited = dataclasses.replace(PROMPT, version="x", question_block="Q: {question}")
    monkeypatch.setattr(prompts, "PROMPT", edited)
    after = prompts.build_messages(TABLES["markdown"], "markdown", Q1)
    assert before != after
    assert after[-1]["content"].endswith("Q: " + Q1)
