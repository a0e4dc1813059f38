"""The scoring modes' registry (:mod:`evaluation_py.scoring.scores` applies their rules): a module of its own,
importing nothing, so that the scoring CLI answers ``--help`` and bad arguments before it imports pandas.

Each mode names the reading it builds on: ``strict`` (:mod:`evaluation_py.scoring.strict_reading`) or ``paper``
(:mod:`evaluation_py.scoring.paper_reading`, the HCT-QA release's procedure). ``paper-hitab`` and ``paper-gpt``
are the release's own variants of the paper reading for some of its datasets (the rules:
:func:`evaluation_py.scoring.paper_reading.hitab_values`, :func:`~evaluation_py.scoring.paper_reading.gpt_values`);
they score files on request (the scoring CLI), while a build scores every prediction in
:data:`BUILD_SCORING_MODES` only (``eval_scores``)."""

SCORING_MODE_READINGS = {
    "strict": "strict",
    "paper": "paper",
    "paper-hitab": "paper",
    "paper-gpt": "paper",
}
SCORING_MODES = tuple(SCORING_MODE_READINGS)
BUILD_SCORING_MODES = ("strict", "paper")
DEFAULT_SCORING_MODE = "strict"
