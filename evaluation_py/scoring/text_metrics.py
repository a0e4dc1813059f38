"""Text similarity of an answer and its ground truth: ROUGE-L (computed here) and BLEU (``sacrebleu``).

For text answers (a table's title, a header's label), where a value can be partly right; numeric
answers are scored by ``exact_match`` and the HCT-QA metrics, which compare numbers as numbers.

Both take two texts: the values a scoring mode read from the answer and from the ground truth,
each side's values joined by a space in the order they came (:func:`evaluation_py.scoring.scores.score_lists`).
So a multi-value answer is compared as one text: its values in another order score lower (ROUGE-L
follows the longest common subsequence, BLEU the n-grams), an extra value lowers precision, a
missing one recall. An empty side scores 0, two equal texts 1.

- ``rouge_l``: the ROUGE-L F-measure (Lin, 2004): the longest common subsequence of the two texts' words
  over the answer's words (precision) and the ground truth's (recall), their harmonic mean; words being
  runs of Unicode letters and digits, lower-cased, no stemming (the formula of the ``rouge-score``
  package with such a tokenizer, whose own keeps ASCII only: it would read ``Zürich`` as ``z rich``).
  ``42.5`` is the words ``42`` and ``5``.
- ``bleu``: sacrebleu's sentence BLEU with effective order (a one-word answer is not 0 for lack of
  4-grams) and its default exponential smoothing and ``13a`` tokenizer, over 100 so in [0, 1].

Both are deterministic. sacrebleu is imported on the first text BLEU scores, not with this module:
scoring that asks no BLEU never pays for it. No dbt imports.
"""
from __future__ import annotations

import re
from functools import lru_cache

_WORD_RE = re.compile(r"[^\W_]+")


def _words(text: str) -> list[str]:
    """Lower-cased runs of letters and digits, any script."""
    return _WORD_RE.findall(text.lower())


def _lcs_length(a: list[str], b: list[str]) -> int:
    """The length of the longest common subsequence of `a` and `b` (one row of the table at a time)."""
    if len(b) > len(a):
        a, b = b, a
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0  # the previous row's value left of the current column
        for j, y in enumerate(b, 1):
            above = row[j]
            row[j] = diagonal + 1 if x == y else (above if above > row[j - 1] else row[j - 1])
            diagonal = above
    return row[-1]


@lru_cache(maxsize=1)
def _bleu():
    from sacrebleu.metrics import BLEU
    return BLEU(effective_order=True)


@lru_cache(maxsize=1 << 16)
def rouge_l(answer: str, gt: str) -> float:
    if not answer.strip() or not gt.strip():
        return 0.0
    if answer.strip() == gt.strip():
        return 1.0  # also where no word is left to compare (a value of punctuation only: `-`)
    answer_words, gt_words = _words(answer), _words(gt)
    if not answer_words or not gt_words:
        return 0.0
    common = _lcs_length(gt_words, answer_words)
    precision, recall = common / len(answer_words), common / len(gt_words)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


@lru_cache(maxsize=1 << 16)
def bleu(answer: str, gt: str) -> float:
    if not answer.strip() or not gt.strip():
        return 0.0
    if answer.strip() == gt.strip():
        return 1.0
    # sacrebleu's float sum can pass 100 by a rounding error (100.00000000000004): kept in [0, 1]
    return min(1.0, max(0.0, _bleu().sentence_score(answer, [gt]).score / 100.0))
