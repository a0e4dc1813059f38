"""Zero-shot chat prompts for one question on one table rendering.

All prompt wording lives in :data:`PROMPT` (one :class:`PromptTemplate`),
tagged with :data:`PROMPT_VERSION`. The messages are part of a prediction's
cache key, so changing any wording changes the messages and therefore the
cache key; bump the version with it (``tests/unit/test_prompts.py`` pins the
wording's fingerprint to the version so a silent edit fails the tests).

Layout: the system message holds the instructions; the user message holds the
table first (after a line naming its format) and the question last, so that
prompts on the same table share a prefix (useful for prefix caching). For
models without a system role, ``system_role=False`` folds the instructions
into the start of the single user message. No dbt imports.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from generator_py.render import registry as table_formats

TABLE_FORMATS: tuple[str, ...] = table_formats.format_names(text_only=True)


@dataclass(frozen=True)
class PromptTemplate:
    """Every piece of prompt wording, and the version tag that names it."""

    version: str
    system: str
    # First line of the user message; ``{format_name}`` is filled from ``format_names``.
    table_header: str
    format_names: tuple[tuple[str, str], ...]
    # Put after the table; ``{question}`` is filled with the question text.
    question_block: str
    # Between the instructions and the user text when they are folded into one user turn.
    fold_separator: str


PROMPT = PromptTemplate(
    version="hctqa-zeroshot-v1",
    system=(
        "You answer questions about a table. Use only information from the table; "
        "do not use outside knowledge.\n"
        "If the question cannot be answered from the table, reply exactly: no answer\n"
        "Otherwise reply with only the answer values, separated by ' || ' when there are several "
        "(for example: Doha || 1250). For a yes/no question reply Yes or No. "
        "Give no explanation, no working and no other text."
    ),
    table_header="Table ({format_name}):",
    format_names=tuple((name, table_formats.get_format(name).display_name) for name in TABLE_FORMATS),
    question_block="Question: {question}",
    fold_separator="\n\n",
)

PROMPT_VERSION: str = PROMPT.version


def template_fingerprint(template: PromptTemplate = PROMPT) -> str:
    """A short sha256 of a template's wording (the version tag excluded)."""
    wording = {k: v for k, v in asdict(template).items() if k != "version"}
    canonical = json.dumps(wording, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


PROMPT_FINGERPRINT: str = template_fingerprint(PROMPT)


def _user_text(template: PromptTemplate, table_text: str, table_format: str, question: str) -> str:
    names = dict(template.format_names)
    if table_format not in names:
        raise ValueError(
            f"unknown table_format {table_format!r}; expected one of {', '.join(TABLE_FORMATS)}"
        )
    header = template.table_header.format(format_name=names[table_format])
    table = table_text.rstrip("\n")
    question_text = template.question_block.format(question=question.strip())
    return f"{header}\n{table}\n\n{question_text}"


def build_messages(
    table_text: str,
    table_format: str,
    question: str,
    system_role: bool = True,
    template: PromptTemplate | None = None,
) -> tuple[dict, ...]:
    """Chat messages asking ``question`` about a table rendered as ``table_format``.

    ``table_format`` is one of ``html``, ``csv``, ``markdown`` (anything else:
    ``ValueError`` naming it). Returns ``({"role": "system", ...}, {"role":
    "user", ...})``, or, with ``system_role=False``, one user message whose
    content starts with the system text. ``template`` defaults to
    :data:`PROMPT`; other templates are for experiments and tests.
    """
    if template is None:
        template = PROMPT
    if not isinstance(table_format, str) or table_format not in TABLE_FORMATS:
        raise ValueError(
            f"unknown table_format {table_format!r}; expected one of {', '.join(TABLE_FORMATS)}"
        )
    user = _user_text(template, table_text, table_format, question)
    if system_role:
        return (
            {"role": "system", "content": template.system},
            {"role": "user", "content": user},
        )
    return ({"role": "user", "content": f"{template.system}{template.fold_separator}{user}"},)
