"""`tcot`: textual chain of thought. The model reasons in text and ends with a marked final answer;
extraction takes what follows the last marker (`final_answer`), and the text before it is the
reasoning (eval_predictions.reasoning, see outcomes)."""
from __future__ import annotations

from functools import partial

from .inference_mode import InferenceMode, register_mode
from ..prompting.prompts import PromptTemplate, build_messages
from ..prompting.mode_wording import TABLE_FORMAT_NAMES, ANSWER_FORM

PROMPT = PromptTemplate(
    version="hctqa-tcot-v1",
    system=(
        "You answer questions about a table. Use only information from the table; do not use outside knowledge.\n"
        "Work it out step by step in plain text: say which rows and columns the question needs, which cells "
        "you read, and how you combine their values.\n"
        "Then end your reply with one last line that starts with 'Final answer:' followed by the answer. "
        + ANSWER_FORM
    ),
    table_header="Table ({format_name}):",
    format_names=TABLE_FORMAT_NAMES,
    question_block="Question: {question}",
    fold_separator="\n\n",
)

TCOT = register_mode(InferenceMode(
    name="tcot", prompt_version=PROMPT.version, build_messages=partial(build_messages, template=PROMPT),
    extraction="final_answer",
    description="textual chain of thought: reasoning, then a final answer line",
))
