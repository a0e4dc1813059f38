"""`python -m evaluation_py.sandbox run PROGRAM.py [--table-csv FILE] [--timeout S] [--memory-mb M]`

Prints one JSON object (status, error_kind, answer, stdout, wall_s, sandbox, message) and exits 0
whatever the program did; 2 on a usage error, or when the chosen sandbox cannot run here.
"""
from __future__ import annotations

import argparse
import json
import sys

from .bubblewrap import SandboxUnavailable
from .limits import Limits
from .pool import SandboxError, SandboxPool
from .result import SANDBOX_NAMES


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evaluation_py.sandbox", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one program in the sandbox and print its result as JSON")
    run.add_argument("program", help="a Python file")
    run.add_argument("--table-csv", help="a CSV of the table grid: the program gets it as csv, df, html, markdown")
    run.add_argument("--timeout", type=float, default=Limits.timeout_s, help="wall clock in seconds")
    run.add_argument("--memory-mb", type=int, default=Limits.memory_mb, help="memory on top of the warm interpreter")
    run.add_argument("--sandbox", choices=SANDBOX_NAMES, default="bubblewrap",
                     help="bubblewrap (default), or the weaker rlimits-only sandbox")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with open(args.program, encoding="utf-8") as handle:
            code = handle.read()
        table = None
        if args.table_csv:
            from .program import inputs_from_csv

            with open(args.table_csv, encoding="utf-8", newline="") as handle:
                table = inputs_from_csv(handle.read())
        limits = Limits(timeout_s=args.timeout, cpu_s=max(1, int(args.timeout) + 1), memory_mb=args.memory_mb)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"sandbox run: {exc}", file=sys.stderr)
        return 2
    try:
        with SandboxPool(1, limits, sandbox=args.sandbox) as pool:
            result = pool.run(code, table)
    except SandboxUnavailable as exc:
        print(f"sandbox run: {exc}", file=sys.stderr)
        return 2
    except SandboxError as exc:
        print(f"sandbox run: the sandbox failed: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result.to_dict(), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
