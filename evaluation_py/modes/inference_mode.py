"""Inference modes: how a model is asked (prompt, version, turns) and how its answer is read back.

A mode is one `InferenceMode` registered under its name (`register_mode`, or a plugin's `hctqa.modes`
entry point naming an InferenceMode; a name registered already is an error); an `eval_models` entry
lists the modes it runs (`modes: [direct, ...]`, default `[direct]`). A mode supplies

- `build_messages(table_text, table_format, question, system_role)`: the first turn's chat messages,
  and `prompt_version`, the version of that wording (recorded per request and part of its cache key);
- `extraction`: the name of the answer-extraction filter scoring applies to its final answer;
- `kind`: the request kind, `generate` (free text) or `choose` (one of given choices);
- `max_turns` and, when above 1, `next_message(transcript)`: the next user message given the
  conversation so far (ending with the model's last reply), or None to end the episode there.
  A multi-turn mode needs a backend with the `multi_turn` capability; `needs` adds others (`images`).
- `runs_code`: its code runs in the sandbox (an entry picks it with `sandbox:`); a multi-turn mode
  that runs code gets `next_message(transcript, run_blocks)`, `run_blocks(blocks)` giving the results of
  code blocks run in order in one fresh sandbox session (evaluation_py.modes.execution);
- `structure_prompt_version` and `build_structure_messages`: a code mode's prompt that shows the
  table's structure instead of its cells (prompting.table_structure); an entry's `table_in_prompt`
  (`structure`, the default, or `full`) picks it for every such mode of the entry;
- `answer_source`: `response` (the extraction filter reads the response) or `execution` (the answer is
  what its program computed: pot; evaluation_py.modes.outcomes).

`direct` (the zero-shot prompt of `prompts.py`, one turn) is registered here; `tcot`, `pot` and
`icot` are one module each in evaluation_py.modes, imported at the end of this module.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from generator_py.core.registry import Registry

from ..request_kinds import CAPABILITIES, REQUEST_KINDS
from ..prompting.prompts import PROMPT_VERSION, build_messages

MessagesBuilder = Callable[..., tuple[dict, ...]]
NextMessage = Callable[[tuple[dict, ...]], Optional[str]]


@dataclass(frozen=True)
class InferenceMode:
    name: str
    prompt_version: str
    build_messages: MessagesBuilder
    extraction: str
    kind: str = "generate"
    max_turns: int = 1
    next_message: Optional[NextMessage] = None
    needs: frozenset[str] = field(default_factory=frozenset)
    runs_code: bool = False
    answer_source: str = "response"
    description: str = ""  # one line, for listings
    # A code mode's prompt with the table's structure instead of its cells (entry key `table_in_prompt`):
    # its version and builder, called as build_messages with the structure text in place of the table.
    structure_prompt_version: str = ""
    build_structure_messages: Optional[MessagesBuilder] = None

    @property
    def shows_structure(self) -> bool:
        """It can leave the table's cells out of the prompt (`table_in_prompt: structure`, its default)."""
        return self.build_structure_messages is not None

    @property
    def multi_turn(self) -> bool:
        return self.max_turns > 1

    def required_capabilities(self) -> frozenset[str]:
        """What a backend must declare to serve this mode's requests."""
        return frozenset(self.needs) | ({"multi_turn"} if self.multi_turn else set())


ANSWER_SOURCES = ("response", "execution")


def _checked(name: str, mode: InferenceMode) -> InferenceMode:
    """A mode as the registry stores it: complete, registered under its own name."""
    if not isinstance(mode, InferenceMode):
        raise ValueError(f"inference mode {name!r} must be an InferenceMode, got {type(mode).__name__}")
    where = f"inference mode {mode.name!r}"
    if mode.name != name:
        raise ValueError(f"{where}: registered as {name!r}")
    if not mode.prompt_version:
        raise ValueError(f"{where}: prompt_version is empty (it names the wording in every cache key)")
    if not callable(mode.build_messages):
        raise ValueError(f"{where}: build_messages must be callable")
    if not mode.extraction:
        raise ValueError(f"{where}: extraction (the answer-extraction filter's name) is empty")
    if mode.kind not in REQUEST_KINDS:
        raise ValueError(f"{where}: kind {mode.kind!r} must be one of {', '.join(REQUEST_KINDS)}")
    if not isinstance(mode.max_turns, int) or isinstance(mode.max_turns, bool) or mode.max_turns < 1:
        raise ValueError(f"{where}: max_turns {mode.max_turns!r} must be a positive integer")
    if mode.multi_turn and not callable(mode.next_message):
        raise ValueError(f"{where}: max_turns {mode.max_turns} needs next_message (how a turn follows the last)")
    if mode.answer_source not in ANSWER_SOURCES:
        raise ValueError(f"{where}: answer_source {mode.answer_source!r} must be one of {', '.join(ANSWER_SOURCES)}")
    if mode.answer_source == "execution" and not mode.runs_code:
        raise ValueError(f"{where}: answer_source 'execution' needs runs_code (a program to run)")
    if bool(mode.structure_prompt_version) != (mode.build_structure_messages is not None):
        raise ValueError(f"{where}: structure_prompt_version and build_structure_messages come together")
    if mode.build_structure_messages is not None and not mode.runs_code:
        raise ValueError(f"{where}: a structure prompt needs runs_code (a program that reads the table)")
    unknown = set(mode.needs) - CAPABILITIES
    if unknown:
        raise ValueError(f"{where}: unknown capabilities {sorted(unknown)}; known: {', '.join(sorted(CAPABILITIES))}")
    return mode


MODES: Registry[InferenceMode] = Registry("inference mode", entry_point_group="hctqa.modes", prepare=_checked)


def register_mode(mode: InferenceMode, description: Optional[str] = None) -> InferenceMode:
    """Add a mode under its name, after checking it is complete (a name registered already is an error)."""
    return MODES.register(getattr(mode, "name", ""), mode, description=description)


def mode_names() -> list[str]:
    return list(MODES.names())


def get_mode(name: str) -> InferenceMode:
    return MODES.get(name)


DIRECT = register_mode(InferenceMode(
    name="direct", prompt_version=PROMPT_VERSION, build_messages=build_messages, extraction="direct",
    description="zero-shot: the table and the question, the answer read as given",
))

from .. import modes  # noqa: E402,F401  (registers tcot, pot, icot; they import this module)
