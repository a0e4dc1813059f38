"""The full build's heavy Python nodes rebuilt on a database that holds their inputs: the peak PSS of the dbt
process tree while each ran (`bench_light_full.run_build`'s sampling, one thread) and the CPU seconds of the
whole run. For before/after comparisons of these nodes in the same conditions without a whole build.

    .venv/bin/dbt build --selector full                       # once: the inputs
    .venv/bin/python bench/bench_heavy_nodes.py benchmark_choice_items benchmark_finetune_exports \
        benchmark_exports eval_choice_predictions
"""
from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import bench_light_full as light_full  # noqa: E402


def main() -> None:
    nodes = sys.argv[1:]
    print("load before:", " ".join(f"{x:.1f}" for x in os.getloadavg()))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    got = light_full.run_build(ROOT, ["--threads", "1", "--select", *nodes, "--exclude", "test_type:data",
                                      "test_type:unit"])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"wall {got['wall']:.1f} s, CPU {cpu:.1f} s, peak PSS {got['peak'] / 2**30:.2f} GiB")
    for node, gib, seconds in light_full.node_profile(ROOT, got["samples"]):
        print(f"  {node}: {gib:.2f} GiB, {seconds:.1f} s")
    print("load after:", " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
