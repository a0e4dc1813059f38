"""Wording the reasoning modes' prompts share: how the final answer is written, the format names."""
from __future__ import annotations

from .prompts import PROMPT

TABLE_FORMAT_NAMES = PROMPT.format_names

ANSWER_FORM = (
    "Give only the answer values there, separated by ' || ' when there are several (for example: "
    "Final answer: Doha || 1250). For a yes/no question the answer is Yes or No; if the table cannot "
    "answer the question, write: Final answer: no answer"
)

# What a program finds defined (pot and icot say the same).
PROGRAM_INPUTS = (
    "The code runs in a sandbox (no files, no network) where these variables are already defined: "
    "`html`, `markdown` and `csv`, the table rendered as text in each format, and `df`, a pandas "
    "DataFrame of the table's cell grid read from the CSV with no header inference (the header lines "
    "are ordinary rows, columns are numbered 0, 1, ...), every cell a string exactly as the CSV shows it "
    "(convert numbers yourself). You may import pandas and the standard library."
)

# Said by a code mode's prompt that shows the table's structure instead of its cells (table_in_prompt: structure).
STRUCTURE_NOTE = (
    "The table's cell values are not in this prompt: below it are the table's structure (shape, header "
    "labels with their grid positions, `df`'s shape and dtypes) and the question. Your code reads the "
    "values from the variables."
)
