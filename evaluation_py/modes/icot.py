"""`icot`: interleaved chain of thought. Several turns: the code blocks of each reply run in one
sandbox session whose state persists over the episode, and their output (capped) is the next user
message; the episode ends at a reply with the final-answer marker, or after `max_turns` replies
(default 5; an entry may set `max_turns`). The final answer is extracted as in tcot.

The follow-up is a function of the transcript (and the table) only: it re-runs every code block of
the episode's replies so far, in order, in a fresh session, and reports the last reply's blocks.
So a resumed episode (a killed build) rebuilds the session's state exactly; the runs are cached
(execution), so a block is not run again for a transcript already seen.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Callable, Optional

from ..scoring.final_answer import states_final_answer
from .inference_mode import InferenceMode, register_mode
from ..prompting.prompts import PromptTemplate, build_messages
from .code_blocks import code_blocks
from ..prompting.mode_wording import ANSWER_FORM, PROGRAM_INPUTS, STRUCTURE_NOTE, TABLE_FORMAT_NAMES

MAX_TURNS = 5

SYSTEM_START = "You answer a question about a table by reasoning in steps and running Python code as you go.\n"
SYSTEM_END = (
    "In each reply, explain your next step briefly and give the code for it in a ```python block. The "
    "code runs in one Python session that keeps its variables from reply to reply; what it prints (or "
    "its error) comes back to you as the next message. Print what you need to see.\n"
    "When you know the answer, reply with a last line that starts with 'Final answer:' followed by the "
    "answer, and no code. " + ANSWER_FORM + "\nYou have a few replies only: be direct."
)

PROMPT = PromptTemplate(
    version="hctqa-icot-v1",
    system=SYSTEM_START + PROGRAM_INPUTS + "\n" + SYSTEM_END,
    table_header="Table ({format_name}):",
    format_names=TABLE_FORMAT_NAMES,
    question_block="Question: {question}",
    fold_separator="\n\n",
)

# The default: the table's structure instead of its cells (the code reads them), as TReB runs ICoT.
STRUCTURE_PROMPT = replace(PROMPT, version="hctqa-icot-structure-v1",
                           system=SYSTEM_START + PROGRAM_INPUTS + "\n" + STRUCTURE_NOTE + "\n" + SYSTEM_END,
                           table_header="Table structure:")

NO_CODE = ("No ```python code block was found in your reply. Reply with code to run in a ```python block, or "
           "end with a line 'Final answer: ...'.")

RunBlocks = Callable[[list[str]], list[dict]]


def block_report(results: list[dict]) -> str:
    """The user message reporting the last reply's blocks: each block's output or error."""
    parts = []
    for i, r in enumerate(results, start=1):
        label = f"Block {i}" if len(results) > 1 else "Your code"
        output = (r.get("output") or "").strip()
        if r.get("error_kind"):
            text = f"{label} failed ({r['error_kind']}): {r.get('message') or 'no message'}"
            if output:
                text += f"\nOutput:\n{output}"
        elif output:
            text = f"{label} printed:\n{output}"
        elif r.get("answer"):
            text = f"{label} printed nothing; answer = {r['answer']}"
        else:
            text = f"{label} printed nothing."
        parts.append(text)
    return "\n\n".join(parts)


def episode_blocks(transcript: tuple[dict, ...]) -> tuple[list[str], int]:
    """Every code block of the episode's replies in order, and how many the last reply has."""
    replies = [m.get("content") or "" for m in transcript if m.get("role") == "assistant"]
    blocks = [b for reply in replies for b in code_blocks(reply)]
    return blocks, len(code_blocks(replies[-1])) if replies else 0


def next_message(transcript: tuple[dict, ...], run_blocks: RunBlocks) -> Optional[str]:
    """None at a final answer; else the output of the last reply's blocks, run after all earlier ones."""
    last = transcript[-1].get("content") or ""
    if states_final_answer(last):
        return None
    blocks, n_last = episode_blocks(transcript)
    if n_last == 0:
        return NO_CODE
    return block_report(run_blocks(blocks)[-n_last:])


ICOT = register_mode(InferenceMode(
    name="icot", prompt_version=PROMPT.version, build_messages=partial(build_messages, template=PROMPT),
    structure_prompt_version=STRUCTURE_PROMPT.version,
    build_structure_messages=partial(build_messages, template=STRUCTURE_PROMPT),
    extraction="final_answer", max_turns=MAX_TURNS, next_message=next_message, runs_code=True,
    description="interleaved chain of thought: reasoning turns whose code blocks run in the sandbox",
))
