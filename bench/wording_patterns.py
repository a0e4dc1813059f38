"""Count the unnatural wordings (no person would use them) over a built DuckDB, and print a fixed sample to rate.

    .venv/bin/python bench/wording_patterns.py path/to/hctqa.duckdb [--sample 60] [--seed 15]

The vocabulary (spoken names, value phrases) is read from this checkout's seeds/domain_attributes.csv,
so an older build is measured against today's vocabulary. The sample is drawn from the sorted
question_ids with random.Random(seed), so the same ids come out of any build that has them.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import duckdb  # noqa: E402
import pandas as pd  # noqa: E402

from support.wording_patterns import count_problems, vocabulary  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--sample", type=int, default=60)
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args()
    vocab = vocabulary(pd.read_csv(ROOT / "seeds" / "domain_attributes.csv", dtype=str, keep_default_na=False))
    con = duckdb.connect(args.db, read_only=True)
    rows = con.execute("select question_id, dataset, question, spec_json from benchmark_questions "
                       "where source = 'synthetic' order by question_id").fetchall()
    counts, examples, n = count_problems(rows, vocab)
    print(f"{n} synthetic questions")
    for name, c in counts.items():
        print(f"  {name}: {c}")
        for e in examples[name]:
            print(f"      e.g. {e}")
    ids = random.Random(args.seed).sample([r[0] for r in rows], args.sample)
    text = dict((r[0], r[2]) for r in rows)
    print(f"\nsample of {args.sample} (seed {args.seed}):")
    for qid in ids:
        print(f"{qid}\t{text[qid]}")


if __name__ == "__main__":
    main()
