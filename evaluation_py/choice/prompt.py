"""The one-shot prompt of a two-option item (TabIS is one-shot), in either option order.

Layout (one version, `CHOICE_PROMPT_VERSION`, part of every cache key): the instructions (a system
message, or folded into the first user turn for models without a system role), then the worked
example as a user turn and its answer letter as the assistant's turn, then the item as the last user
turn: the table(s) as CSV (the rendering the probes' positions count on; an m_tis item shows both
tables in their order), the question, `A. ...`, `B. ...`
(`shown_option`). The item's own turn is last, so the example
and instructions are a shared prefix.

Order `ab` shows the options as stored (option_a as A); `ba` swaps them, so the right letter flips.
The example is always shown in its stored order with its right letter.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

CHOICE_PROMPT_VERSION = "tabis-choice-v1"
ORDERS = ("ab", "ba")

INSTRUCTIONS = ("You answer questions about tables. Each question has two options, A and B; exactly one is "
                "right. Use only the table. Reply with the letter of the right option only: A or B.")
ANSWER_CUE = "Answer with A or B."


@dataclass(frozen=True)
class ShownItem:
    """An item as a prompt shows it: its tables' CSV in order, its question and the stored options."""

    item_id: str
    tables: tuple[str, ...]  # one CSV, or two for m_tis (in the order shown)
    question: str
    option_a: str
    option_b: str
    correct_option: str  # "A" or "B", of the stored order


def shown_option(option: str) -> str:
    """An option as the prompt shows it: a gt-format answer (`{a | 1} || {b}`) as its values joined by
    ` || ` (how models are asked to answer elsewhere); a probe's content (`x | y`) as it is."""
    from generator_py.release.gt import gt_value_list

    if not option.lstrip().startswith("{"):
        return option
    return " || ".join(gt_value_list(option, lower=False, drop_zeros=False))


def options_in_order(item: ShownItem, order: str) -> tuple[str, str, str]:
    """(text shown as A, text shown as B, the right letter) in `order`."""
    if order == "ab":
        return item.option_a, item.option_b, item.correct_option
    if order == "ba":
        return item.option_b, item.option_a, "B" if item.correct_option == "A" else "A"
    raise ValueError(f"option order {order!r} must be one of {', '.join(ORDERS)}")


def item_block(item: ShownItem, order: str) -> str:
    a, b = (shown_option(o) for o in options_in_order(item, order)[:2])
    if len(item.tables) == 1:
        tables = f"Table (CSV):\n{item.tables[0]}"
    else:
        tables = "\n\n".join(f"Table {i + 1} (CSV):\n{csv}" for i, csv in enumerate(item.tables))
    return f"{tables}\n\nQuestion: {item.question}\nA. {a}\nB. {b}\n{ANSWER_CUE}"


def build_choice_messages(item: ShownItem, order: str, example: Optional[ShownItem],
                          system_role: bool = True) -> tuple[dict, ...]:
    """The chat messages asking `item` in `order`, after `example` (None: zero-shot, when no item of
    the subset is on another table)."""
    turns: list[dict] = []
    if example is not None:
        turns += [{"role": "user", "content": item_block(example, "ab")},
                  {"role": "assistant", "content": example.correct_option}]
    turns.append({"role": "user", "content": item_block(item, order)})
    if system_role:
        return ({"role": "system", "content": INSTRUCTIONS}, *turns)
    first = dict(turns[0], content=INSTRUCTIONS + "\n\n" + turns[0]["content"])
    return (first, *turns[1:])
