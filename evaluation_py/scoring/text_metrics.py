"""Text similarity of an answer and its ground truth: ROUGE-L (``rouge-score``) and BLEU (``sacrebleu``).

For text answers (a table's title, a header's label), where a value can be partly right; numeric
answers are scored by ``exact_match`` and the HCT-QA metrics, which compare numbers as numbers.

Both take two texts: the values a scoring mode read from the answer and from the ground truth,
each side's values joined by a space in the order they came (:func:`evaluation_py.scoring.scores.score_lists`).
So a multi-value answer is compared as one text: its values in another order score lower (ROUGE-L
follows the longest common subsequence, BLEU the n-grams), an extra value lowers precision, a
missing one recall. An empty side scores 0, two equal texts 1.

- ``rouge_l``: the ROUGE-L F-measure, words being runs of Unicode letters and digits, lower-cased
  (rouge-score's own tokenizer keeps ASCII only: it would read ``Zürich`` as ``z rich``), no stemming.
  ``42.5`` is the words ``42`` and ``5``.
- ``bleu``: sacrebleu's sentence BLEU with effective order (a one-word answer is not 0 for lack of
  4-grams) and its default exponential smoothing and ``13a`` tokenizer, over 100 so in [0, 1].

Both are deterministic. rouge-score and sacrebleu are imported on the first text scored, not with
this module: scoring that asks no text metric never pays for them. No dbt imports.
"""
from __future__ import annotations

import re
from functools import lru_cache

_WORD_RE = re.compile(r"[^\W_]+")


class _WordTokenizer:
    """rouge-score's tokenizer interface: lower-cased runs of letters and digits, any script."""

    def tokenize(self, text: str) -> list[str]:
        return _WORD_RE.findall(text.lower())


@lru_cache(maxsize=1)
def _rouge():
    from rouge_score import rouge_scorer
    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False, tokenizer=_WordTokenizer())


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
    return float(_rouge().score(gt, answer)["rougeL"].fmeasure)


@lru_cache(maxsize=1 << 16)
def bleu(answer: str, gt: str) -> float:
    if not answer.strip() or not gt.strip():
        return 0.0
    if answer.strip() == gt.strip():
        return 1.0
    # sacrebleu's float sum can pass 100 by a rounding error (100.00000000000004): kept in [0, 1]
    return min(1.0, max(0.0, _bleu().sentence_score(answer, [gt]).score / 100.0))
