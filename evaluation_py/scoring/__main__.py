"""`python -m evaluation_py.scoring RESPONSES.jsonl ...`: the scoring command line (`cli`)."""
import sys

from .cli import main

sys.exit(main())
