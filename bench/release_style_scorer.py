"""The HCT-QA release's scoring procedure (`scripts/score_model_responses/score_responses.py` in the release's
repository), reproduced step for step as plain Python: the reference side of `bench_scoring_cli.py`.

The release's script is not part of this project and is not fetched; this file is written here from what the
script does, so that timing it times the release's way of scoring:

- it imports pandas (the script does, without using it) and reads the whole file with `json.load`: one JSON
  list of objects;
- for each object it takes the answer from `output`, else `response`, and the ground truth from `gt`, else
  `ground_truth`, and skips a missing answer or one that, lower-cased and stripped, starts with `no answer`
  or `error`;
- it cleans the ground truth with regular-expression substitutions (digit commas, then per value five passes
  of digit commas and two trailing-zero rules) and the response with about ten steps (junk-token cut,
  `answer:` removal, blank-line and code-fence cut, backticks and newlines, five passes of digit commas, edge
  commas, two trailing-zero rules, split on `||`), each `re` call with its pattern given as text, as the
  script does;
- per line: precision and recall of the two value sets counted with Python loops, F1, complete containment
  (recall 1), then plain averages;
- then it groups the objects by dataset (the id before the first `--`) and scores every group again the same
  way, and writes the report text to a file and to standard output.

    .venv/bin/python bench/release_style_scorer.py RESPONSES.json OUTPUT.txt
"""
from __future__ import annotations

import json
import re
import sys

import pandas  # noqa: F401  (the release's script imports it at its top: its start-up is part of the cost)

JUNK = r"(?:<eos_token>|#input|# input|# solution:|#solution|# explanation:|#explanation|note:|table:)"


def gt_list(text: str) -> list[str]:
    text = re.sub(r"(?<=\d),(?=\d)", "", text).lower().strip()
    parts = text.replace("{", "").replace("}", "").replace("||", "|").split("|")
    values = []
    for part in parts:
        v = part.lower().strip()
        for _ in range(5):
            v = re.sub(r"(\d+),(\d+)", r"\1\2", v)
        v = re.sub(r"(\d+)\.0+\b", r"\1", v)
        v = re.sub(r"(\d*\.\d*?[1-9])0+\b", r"\1", v)
        values.append(v)
    return values


def response_list(text: str) -> list[str]:
    text = text.lower().strip()
    junk = re.search(JUNK, text)
    text = re.sub(r"answer\s*[:=]\s*", "", text, flags=re.IGNORECASE)
    if junk:  # the position found before the removal above, as the script has it
        text = text[:junk.start()]
    text = text.split("\n\n")[0]
    text = text.split("\n```\n")[0]
    text = text.replace("`", "").replace("\n", "")
    for _ in range(5):
        text = re.sub(r"(\d+),(\d+)", r"\1\2", text)
    text = re.sub(r"(^,|,$)", "", text.strip())
    text = re.sub(r"(\d+)\.0+\b", r"\1", text)
    text = re.sub(r"(\d*\.\d*?[1-9])0+\b", r"\1", text)
    return [v.strip() for v in text.lower().strip().split("||")]


def means(records: list) -> tuple[float, float, float, float]:
    gts, responses = [], []
    for rec in records:
        answer = rec.get("output", rec.get("response", ""))
        truth = rec.get("gt", rec.get("ground_truth", ""))
        if answer is None:
            continue
        head = answer.lower().strip()
        if head.startswith("no answer") or head.startswith("error"):
            continue
        gts.append(gt_list(truth))
        responses.append(response_list(answer))
    ps, rs, fs, ccs = [], [], [], []
    for gt, resp in zip(gts, responses):
        g, r = set(gt), set(resp)
        p = sum(1 for v in r if v in g) / max(len(r), 1)
        rc = sum(1 for v in g if v in r) / max(len(g), 1)
        ps.append(p)
        rs.append(rc)
        fs.append(0 if p + rc == 0 else 2 * p * rc / (p + rc))
        ccs.append(1 if rc == 1 else 0)
    return tuple(sum(x) / max(len(x), 1) for x in (ps, rs, fs, ccs))  # type: ignore[return-value]


def block(name: str, dataset: str, m: tuple) -> str:
    return (f"Model: {name} on dataset {dataset}\nMean Precision: {m[0]:.4f}\nMean Recall: {m[1]:.4f}\n"
            f"Mean F1 Score: {m[2]:.4f}\nMean CC Score: {m[3]:.4f}\n" + "*" * 50)


def main(path: str, output: str) -> None:
    with open(path) as fh:
        records = json.load(fh)
    text = block(path, "ALL", means(records))
    groups: dict[str, list] = {}
    for rec in records:
        groups.setdefault(rec["id"].split("--")[0], []).append(rec)
    for dataset, group in groups.items():
        text += block(path, dataset, means(group))
    with open(output, "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
