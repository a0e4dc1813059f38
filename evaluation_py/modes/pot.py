"""`pot`: program of thought. The model writes one Python program; the program runs in the sandbox
with only the table's renderings and `df` (wording.PROGRAM_INPUTS), and its answer (the variable
`answer` if set, else what it printed) is the prediction's answer. A failed run is a prediction
without an answer, with the sandbox's error kind: scored 0 in strict mode.

The run happens after the response is cached, when eval_predictions is built (outcomes); its result
is cached too (execution), so a rebuild neither asks nor runs again.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from .inference_mode import InferenceMode, register_mode
from ..prompting.prompts import PromptTemplate, build_messages
from ..prompting.mode_wording import PROGRAM_INPUTS, STRUCTURE_NOTE, TABLE_FORMAT_NAMES

SYSTEM_START = "You answer a question about a table by writing one Python program that computes the answer.\n"
SYSTEM_END = (
    "Read the values from `df` (or the text renderings), compute the answer, and set the variable "
    "`answer` to it as text: only the answer values, separated by ' || ' when there are several; Yes or "
    "No for a yes/no question; 'no answer' if the table cannot answer it. (Without `answer`, what the "
    "program prints is the answer.)\n"
    "Reply with the program only, in one ```python code block."
)

PROMPT = PromptTemplate(
    version="hctqa-pot-v1",
    system=SYSTEM_START + PROGRAM_INPUTS + "\n" + SYSTEM_END,
    table_header="Table ({format_name}):",
    format_names=TABLE_FORMAT_NAMES,
    question_block="Question: {question}",
    fold_separator="\n\n",
)

# The default: the table's structure instead of its cells (the program reads them), as TReB runs PoT.
STRUCTURE_PROMPT = replace(PROMPT, version="hctqa-pot-structure-v1",
                           system=SYSTEM_START + PROGRAM_INPUTS + "\n" + STRUCTURE_NOTE + "\n" + SYSTEM_END,
                           table_header="Table structure:")

POT = register_mode(InferenceMode(
    name="pot", prompt_version=PROMPT.version, build_messages=partial(build_messages, template=PROMPT),
    structure_prompt_version=STRUCTURE_PROMPT.version,
    build_structure_messages=partial(build_messages, template=STRUCTURE_PROMPT),
    extraction="final_answer", runs_code=True, answer_source="execution",
    description="program of thought: one program, run in the sandbox; its output is the answer",
))
