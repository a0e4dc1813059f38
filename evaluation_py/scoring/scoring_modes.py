"""The scoring modes' names (:mod:`evaluation_py.scoring.scores` has their rules): a module of its own, importing
nothing, so that the scoring CLI answers ``--help`` and bad arguments before it imports pandas."""

SCORING_MODES = ("strict", "paper")
DEFAULT_SCORING_MODE = "strict"
