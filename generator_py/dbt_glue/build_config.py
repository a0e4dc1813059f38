"""The configuration a build's benchmark comes from, checked once up front, and its fingerprint.

`stg_build_config` (the first model of a build after the staged seeds) checks every var with
`check_vars` and stores one row: the normalized vars and `build_fingerprint`, a short sha256 of the
vars and inputs that shape the benchmark (seed, replicas, domains, the seed data, the release file).
Every mart carries that fingerprint (`stamp`), and the end of every run checks that they agree
(`main.build_status`, macros/build_status.sql): a killed or partial build that left marts of another
configuration behind marks the database incomplete.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

import pandas as pd
import pyarrow as pa

from .vars import (bool_var, counterfactuals_var, domains_var, paraphrases_var, parse_config, question_suites_var,
                   replicas_var, seed_var, seed_variance_seeds_var, share_var, variety_var)

#: Default of var max_failed_request_share: above this share of failed requests per model the build fails.
DEFAULT_MAX_FAILED_SHARE = 0.05
FINGERPRINT_COLUMN = "build_fingerprint"


def check_vars(raw: Mapping[str, Any], known_domains: Optional[Iterable[str]] = None) -> dict[str, Any]:
    """The vars as checked Python values; ValueError naming the first bad var."""
    out = {
        "seed": seed_var(raw.get("seed")),
        "replicas": replicas_var(raw.get("replicas")),
        "domains": domains_var(raw.get("domains"), known_domains),
        "question_variety": variety_var(raw.get("question_variety")),
        "question_suites": list(question_suites_var(raw.get("question_suites"))),
        "cross_check": bool_var("cross_check", raw.get("cross_check"), False),
        "obfuscated_variants": bool_var("obfuscated_variants", raw.get("obfuscated_variants"), True),
        "layout_counterfactuals": counterfactuals_var(raw.get("layout_counterfactuals")),
        "paraphrase_sets": paraphrases_var(raw.get("paraphrase_sets")),
        "seed_variance_seeds": seed_variance_seeds_var(raw.get("seed_variance_seeds")),
        "max_failed_request_share": share_var("max_failed_request_share", raw.get("max_failed_request_share"),
                                              DEFAULT_MAX_FAILED_SHARE),
    }
    for name in ("hctqa_release_dir", "eval_cache_dir", "exports_dir", "reports_dir"):
        value = parse_config(raw.get(name))
        if value is not None and not isinstance(value, str):
            raise ValueError(f"var {name} must be a folder path, got {value!r}")
        out[name] = value
    return out


def frame_digest(frame: pd.DataFrame) -> str:
    """sha256 of a frame's content, independent of its row and column order (seeds load by column name)."""
    frame = frame[sorted(frame.columns)]
    text = frame.astype(str).sort_values(list(frame.columns)).to_csv(index=False) if len(frame.columns) else ""
    return hashlib.sha256("\x1f".join(map(str, frame.columns)).encode() + b"\n" + text.encode()).hexdigest()


def file_digest(path: Optional[Path]) -> Optional[str]:
    """sha256 of a file's bytes (None for no file)."""
    if path is None:
        return None
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def build_fingerprint(checked: Mapping[str, Any], input_digests: Mapping[str, Optional[str]]) -> str:
    """16 hex digits naming what shaped the benchmark: seed, replicas, domains, question variety and the inputs."""
    shaping = {"seed": checked["seed"], "replicas": checked["replicas"],
               "question_variety": checked.get("question_variety", "paper"),
               "domains": sorted(checked["domains"]) if checked["domains"] else None,
               "inputs": dict(sorted(input_digests.items()))}
    # the question suites enter only beyond the default (hctqa alone), so a default build keeps its fingerprint
    suites = checked.get("question_suites") or ["hctqa"]
    if list(suites) != ["hctqa"]:
        shaping["question_suites"] = list(suites)
    if not checked.get("obfuscated_variants", True):  # only when off: a default build keeps its fingerprint
        shaping["obfuscated_variants"] = False
    # the opt-in parts enter only when on (the seeds a seed-variance analysis compares shape no benchmark)
    if checked.get("layout_counterfactuals"):
        shaping["layout_counterfactuals"] = checked["layout_counterfactuals"]
    if checked.get("paraphrase_sets"):
        shaping["paraphrase_sets"] = True
    canonical = json.dumps(shaping, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def config_frame(checked: Mapping[str, Any], fingerprint: str,
                 input_digests: Optional[Mapping[str, Optional[str]]] = None) -> pd.DataFrame:
    """The one row of `stg_build_config` (`inputs_json`: the input digests, so the fingerprint of the same
    configuration with another seed can be computed: `fingerprint_for_seed`)."""
    return pd.DataFrame([{
        FINGERPRINT_COLUMN: fingerprint,
        "seed": checked["seed"],
        "replicas": checked["replicas"],
        "domains_json": json.dumps(checked["domains"]),
        "hctqa_release_dir": checked["hctqa_release_dir"],
        "max_failed_request_share": checked["max_failed_request_share"],
        "config_json": json.dumps(dict(checked), sort_keys=True),
        "inputs_json": json.dumps(dict(sorted((input_digests or {}).items()))),
    }]).astype({"replicas": "Int64", "hctqa_release_dir": object})


def fingerprint_for_seed(config_row: Mapping[str, Any], seed: int) -> str:
    """The fingerprint a build of the configuration in `config_row` (a row of `stg_build_config`) would have with
    `seed` instead of its own: how the builds of several seeds find each other's results in the prediction store."""
    checked = json.loads(config_row["config_json"])
    return build_fingerprint({**checked, "seed": int(seed)}, json.loads(config_row["inputs_json"]))


def fingerprint_of(config_relation) -> str:
    """The fingerprint in `stg_build_config` (a relation, as `dbt.ref` gives, or a frame)."""
    frame = config_relation if isinstance(config_relation, pd.DataFrame) else config_relation.df()
    if len(frame) != 1:
        raise ValueError(f"stg_build_config must hold one row, holds {len(frame)}")
    return str(frame[FINGERPRINT_COLUMN].iloc[0])


def stamp(frame, config_relation):
    """`frame` (a pandas frame or an Arrow table) with the build's fingerprint as its last column."""
    fingerprint = fingerprint_of(config_relation)
    if isinstance(frame, pa.Table):
        return frame.append_column(FINGERPRINT_COLUMN, pa.array([fingerprint] * frame.num_rows, pa.string()))
    return frame.assign(**{FINGERPRINT_COLUMN: fingerprint})


# The default database keeps the historical folder names; any other file gets its own, named after it.
DEFAULT_DATABASE_STEM = "hctqa"


def database_path(session) -> Optional[Path]:
    """The file of the DuckDB database a dbt Python model writes to (None in memory)."""
    rows = session.sql("select path from duckdb_databases() where database_name = current_database()").fetchall()
    return Path(rows[0][0]) if rows and rows[0][0] else None


def output_dir(configured, database: Optional[Path], kind: str) -> Path:
    """Where `kind` ("exports" or "reports") goes: the var when set, else next to the database file.

    `hctqa.duckdb` writes `exports/` and `reports/` beside it; `other.duckdb` writes `other_exports/` and
    `other_reports/`: two databases in one folder never overwrite each other's files.
    """
    value = parse_config(configured)
    if value is not None:
        return Path(str(value))
    if database is None:
        return Path(kind)
    name = kind if database.stem == DEFAULT_DATABASE_STEM else f"{database.stem}_{kind}"
    return database.parent / name


def built_relation(load, config_relation):
    """The relation `load()` gives (a function of the model returning `dbt.ref("...")`: dbt finds a Python
    model's refs in its source, so each stays written out there) when it exists and was made by this build's
    configuration (or is empty), else None.

    For the models of the light build that also show a heavy part (selectors.yml: tag images, choice,
    obfuscation, finetune) when one was built: the light default leaves the heavy models unbuilt, and a
    heavy relation left by a build of another configuration is not this benchmark's.
    """
    import duckdb

    try:
        relation = load()
    except KeyError:  # a ref dbt did not record for the model
        return None
    except duckdb.CatalogException:  # selected, but never built in this database
        return None
    if FINGERPRINT_COLUMN not in relation.columns:
        return None
    stamps = relation.project(FINGERPRINT_COLUMN).distinct().fetchall()
    return relation if stamps in ([], [(fingerprint_of(config_relation),)]) else None
