"""`hctqa`: the command line over the project's library and its dbt build.

    hctqa list families|formats|modes|backends|metrics|filters
    hctqa eval ENTRY.yml [--limit N] [--formats F ...] [--project-dir DIR]
    hctqa score FILE ...            (python -m evaluation_py.scoring.cli)
    hctqa sandbox run PROGRAM.py    (python -m evaluation_py.sandbox)
    hctqa report [--project-dir DIR]
    hctqa seeds SEED SEED [SEED ...] [--project-dir DIR] [--vars YAML]

Bad arguments exit 2 with one line on stderr.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Optional

# What `hctqa eval` builds: the evaluation models and everything downstream of them (analyses, report).
EVAL_SELECTION = ("eval_requests+",)
# What `hctqa seeds` builds for each seed (selectors.yml `seed_build`: the light build's questions, the entries'
# answers, the scores and the leaderboard that the store keeps per fingerprint), then for the comparison in the main
# database (the checked vars and the analysis).
SEED_SELECTION = ("--selector", "seed_build")
COMPARISON_SELECTION = ("--select", "+stg_build_config", "analysis_seed_variance")
DEFAULT_DATABASE = "hctqa.duckdb"


class UsageError(Exception):
    """A bad argument or input: one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line instead of argparse's usage block
        raise UsageError(f"{self.prog}: {message}")


def _parser() -> argparse.ArgumentParser:
    from .registries import REGISTRIES

    parser = _Parser(prog="hctqa", description="Table-QA benchmark factory: list, evaluate, score, report.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    listing = commands.add_parser("list", help="print a registry: name, description, where it comes from")
    listing.add_argument("kind", choices=sorted(REGISTRIES))
    ev = commands.add_parser("eval", help="evaluate the entries of a YAML file (dbt build of the evaluation)")
    ev.add_argument("entries", help="YAML: a list of eval_models entries, one entry, or {eval_models: [...]}")
    ev.add_argument("--limit", type=int, help="questions per entry (sets each entry's `sample`)")
    ev.add_argument("--formats", nargs="+", help="table formats of every entry (sets each entry's `formats`)")
    ev.add_argument("--project-dir", default=".", help="the dbt project (default: the working directory)")
    ev.add_argument("--vars", default=None, help="more dbt vars, as YAML (e.g. '{judge_model: ...}')")
    ev.add_argument("--exclude", nargs="+", default=[], help="dbt nodes left out of the build (dbt's --exclude)")
    commands.add_parser("score", help="score a predictions file (python -m evaluation_py.scoring.cli)", add_help=False)
    commands.add_parser("sandbox", help="run a program in the sandbox (python -m evaluation_py.sandbox)",
                        add_help=False)
    report = commands.add_parser("report", help="print the report's path and the last run's headline")
    report.add_argument("--project-dir", default=".", help="the dbt project (default: the working directory)")
    seeds = commands.add_parser("seeds", help="build the benchmark under several seeds, each in a database of its "
                                              "own, and compare the models' scores across them (analysis_seed_variance)")
    seeds.add_argument("seeds", nargs="+", type=int, help="two or more distinct seeds")
    seeds.add_argument("--project-dir", default=".", help="the dbt project (default: the working directory)")
    seeds.add_argument("--vars", default=None, help="the dbt vars every seed is built with, as YAML (seed aside)")
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in ("score", "sandbox"):  # their own parsers, their own arguments
            return _delegate(argv[0], argv[1:])
        args = _parser().parse_args(argv)
        if args.command == "list":
            return _list(args.kind)
        if args.command == "eval":
            return _eval(args)
        if args.command == "seeds":
            return _seeds(args)
        return _report(Path(args.project_dir))
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return 2


def _delegate(command: str, argv: list[str]) -> int:
    if command == "score":
        from .scoring.cli import main as command_main
    else:
        from .sandbox.__main__ import main as command_main
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            code = command_main(argv)
    except SystemExit as e:  # argparse: usage block then the error line; keep the error line
        code = e.code if isinstance(e.code, int) else 2
        lines = [line for line in captured.getvalue().splitlines() if line.strip()]
        if code == 2 and lines:
            print(f"hctqa {command}: {lines[-1].split(': error: ', 1)[-1]}", file=sys.stderr)
            return 2
        sys.stderr.write(captured.getvalue())
        return code
    sys.stderr.write(captured.getvalue())
    return int(code or 0)


def _list(kind: str) -> int:
    from .registries import REGISTRIES

    entries = REGISTRIES[kind].listing()
    width = max((len(e.name) for e in entries), default=0)
    for e in entries:
        print(f"{e.name:<{width}}  {e.description}  [{e.origin}]")
    return 0


def read_entries(path: Path, limit: Optional[int], formats: Optional[list[str]]) -> list[dict]:
    """The entries of an ENTRY.yml, with --limit / --formats applied and checked; UsageError naming the file."""
    import yaml

    from .configuration.model_specs import parse_eval_models

    try:
        raw = yaml.safe_load(path.read_text())
    except OSError as e:
        raise UsageError(f"hctqa eval: cannot read {str(path)!r}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise UsageError(f"hctqa eval: {str(path)!r} is not YAML: {str(e).splitlines()[0]}") from None
    if isinstance(raw, dict) and "eval_models" in raw:
        raw = raw["eval_models"]
    entries = [raw] if isinstance(raw, dict) else raw
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise UsageError(f"hctqa eval: {str(path)!r} must hold an entry, a list of entries or eval_models: [...]")
    if limit is not None:
        if limit < 1:
            raise UsageError("hctqa eval: --limit must be a positive number of questions")
        entries = [{**e, "sample": limit} for e in entries]
    if formats:
        entries = [{**e, "formats": list(formats)} for e in entries]
    try:
        parse_eval_models(entries)
    except ValueError as e:
        raise UsageError(f"hctqa eval: {str(path)!r}: {e}") from None
    return entries


def _database(project: Path) -> Path:
    configured = os.environ.get("HCTQA_DUCKDB_PATH")
    return Path(configured) if configured else project / DEFAULT_DATABASE


def _dbt_executable() -> str:
    candidate = Path(sys.executable).parent / "dbt"
    return str(candidate) if candidate.exists() else "dbt"


def _eval(args) -> int:
    import yaml

    project = Path(args.project_dir).resolve()
    if not (project / "dbt_project.yml").exists():
        raise UsageError(f"hctqa eval: {str(project)!r} is not a dbt project (no dbt_project.yml); pass --project-dir")
    entries = read_entries(Path(args.entries), args.limit, args.formats)
    extra = {}
    if args.vars:
        extra = yaml.safe_load(args.vars)
        if not isinstance(extra, dict):
            raise UsageError("hctqa eval: --vars must be a YAML mapping")
    dbt_vars = {**extra, "eval_models": entries}
    argv = [_dbt_executable(), "build", "--select", *EVAL_SELECTION, *(["--exclude", *args.exclude] if args.exclude
                                                                       else []),
            "--vars", json.dumps(dbt_vars), "--project-dir", str(project), "--profiles-dir", str(project)]
    code = _run_forwarding_signals(argv, project)
    if code != 0:
        return code
    return _print_leaderboard(_database(project), [e["name"] for e in entries])


def seed_database(database: Path, seed: int) -> Path:
    """The database a seed's build of `hctqa seeds` goes to: `NAME_seed<seed>.duckdb` beside `NAME.duckdb`."""
    return database.with_name(f"{database.stem}_seed{seed}{database.suffix}")


def _yaml_vars(text: Optional[str], command: str) -> dict:
    import yaml

    if not text:
        return {}
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise UsageError(f"hctqa {command}: --vars is not YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(value, dict):
        raise UsageError(f"hctqa {command}: --vars must be a YAML mapping")
    return value


def _seeds(args) -> int:
    """Build every seed into a database of its own (one build per database), all sharing the main database's
    prediction store, where each records its leaderboard under its fingerprint; then compare them in the main
    database (analysis_seed_variance, var seed_variance_seeds)."""
    from .dbt_glue.evaluation_inputs import store_path

    project = Path(args.project_dir).resolve()
    if not (project / "dbt_project.yml").exists():
        raise UsageError(f"hctqa seeds: {str(project)!r} is not a dbt project (no dbt_project.yml); pass --project-dir")
    seeds = list(args.seeds)
    if len(seeds) < 2 or len(set(seeds)) != len(seeds):
        raise UsageError(f"hctqa seeds: give two or more distinct seeds, got {' '.join(map(str, seeds))}")
    base_vars = _yaml_vars(args.vars, "seeds")
    for key in ("seed", "seed_variance_seeds"):
        if key in base_vars:
            raise UsageError(f"hctqa seeds: --vars sets {key}, which the command sets itself")
    database = _database(project)
    # one store for every seed: the main database's (or the var's, or HCTQA_CACHE_DIR's)
    cache_dir = str(store_path(base_vars.get("eval_cache_dir"), database.resolve()).parent)
    shared = {**base_vars, "eval_cache_dir": cache_dir}
    for seed in seeds:
        target = seed_database(database, seed)
        print(f"hctqa seeds: seed {seed} -> {target}", flush=True)
        code = _run_dbt(project, target, ["build", *SEED_SELECTION], {**shared, "seed": seed})
        if code != 0:
            print(f"hctqa seeds: the build of seed {seed} failed (exit status {code}); {target} says what it holds "
                  "(build_status)", file=sys.stderr)
            return code
    print(f"hctqa seeds: comparing seeds {', '.join(map(str, seeds))} in {database}", flush=True)
    code = _run_dbt(project, database, ["build", *COMPARISON_SELECTION],
                    {**shared, "seed_variance_seeds": seeds})
    if code != 0:
        return code
    return _print_seed_variance(database)


def _run_dbt(project: Path, database: Path, args: list[str], dbt_vars: dict) -> int:
    argv = [_dbt_executable(), *args, "--vars", json.dumps(dbt_vars), "--project-dir", str(project),
            "--profiles-dir", str(project)]
    env = {**os.environ, "HCTQA_DUCKDB_PATH": str(database)}
    return _run_forwarding_signals(argv, project, env)


def _print_seed_variance(database: Path) -> int:
    import duckdb

    con = duckdb.connect(str(database), read_only=True)
    try:
        rows = con.execute(
            "select model_name, table_format, inference_mode, metric, n_seeds, mean, sd_between_seeds, "
            "within_build_half_width, detectable_difference from analysis_seed_variance where scoring_mode = 'strict' "
            "and metric in ('f1', 'cc') order by model_name, table_format, inference_mode, metric").fetchall()
    finally:
        con.close()
    print("model_name | format | mode | metric (strict) | seeds | mean | sd between seeds | within-build 95% "
          "half-width | detectable difference")
    for r in rows:
        print(f"{r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.3f} | {r[6]:.4f} | {r[7]:.4f} | {r[8]:.4f}")
    return 0


def _run_forwarding_signals(argv: list[str], cwd: Path, env: Optional[dict] = None) -> int:
    """Run dbt; SIGINT and SIGTERM reach it once each, forwarded, and it stops on either (answers kept).

    dbt runs in a process group of its own: a terminal's Ctrl-C, sent to the foreground group, would
    otherwise reach it twice (from the terminal and forwarded)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, process_group=0)

    def forward(signum, frame):
        proc.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return proc.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _print_leaderboard(database: Path, names: list[str]) -> int:
    from .configuration.model_specs import BASELINE_NAMES

    import duckdb

    con = duckdb.connect(str(database), read_only=True)
    try:
        rows = con.execute(
            "select model_name, table_format, inference_mode, metric, mean, ci_low, ci_high, n_questions, n_tables"
            " from eval_leaderboard where scoring_mode = 'strict' and metric in ('f1', 'cc')"
            " and model_name in (select unnest(?))"
            " order by table_format, inference_mode, metric, mean desc, model_name",
            [[*names, *BASELINE_NAMES]]).fetchall()
    finally:
        con.close()
    print("model_name | format | mode | metric (strict) | mean [95% CI, tables resampled] | questions | tables")
    for r in rows:
        print(f"{r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.3f} [{r[5]:.3f}, {r[6]:.3f}] | {r[7]} | {r[8]}")
    return 0


def _report(project: Path) -> int:
    from generator_py.dbt_glue.build_config import output_dir

    database = _database(project.resolve())
    reports = output_dir(None, database, "reports")
    index = reports / "index.html"
    if not index.exists():
        print(f"hctqa report: no report at {index}: run `dbt build` first", file=sys.stderr)
        return 1
    print(index)
    runs = sorted((reports / "runs").glob("*.json"), key=lambda p: p.stat().st_mtime)
    if not runs:
        print("no run has asked a model anything yet")
        return 0
    record = json.loads(runs[-1].read_text())
    print(f"last run {record['run_id']} ({record['started_at']} to {record['ended_at']}), "
          f"benchmark {record['fingerprint']}")
    for name, model in sorted(record["models"].items()):
        head = [r for r in model["results"] if r["metric"] in ("f1", "cc")]
        means = ", ".join(f"{r['table_format']}/{r['inference_mode']} {r['metric']} {r['mean']:.3f} "
                          f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]" for r in head)
        print(f"  {name}: sent {model['requests_sent']}, cached {model['requests_cached']}, "
              f"failed {model['requests_failed']}; {means or 'no scores'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
