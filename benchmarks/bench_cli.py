"""Wall time of ``runway-deploy plan`` (and ``check``) on a generated workspace, as a user runs it.

Each run is a fresh process (``runway-deploy plan DIR``, output discarded); prints the median
and spread of ``--runs`` runs. Run: ``python benchmarks/bench_cli.py [--scale 1] [--runs 10]``.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import cli_command, fmt, summary  # noqa: E402
from generate import generate  # noqa: E402


def wall_times(args: list[str], runs: int) -> tuple[list[float], int]:
    """Milliseconds of ``runs`` fresh runs of the CLI with ``args`` (after one warm-up run,
    so that every run finds the byte-code cached); and the last exit status."""
    cmd = cli_command() + args
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out, rc = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        out.append((time.perf_counter() - t0) * 1000)
    return out, rc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--root", type=Path, default=None, help="a workspace folder instead of a generated one")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = a.root.resolve() if a.root else generate(Path(tmp) / f"x{a.scale}", a.scale).parent
        for command in ("plan", "check"):
            times, rc = wall_times([command, str(folder)], a.runs)
            res[command] = {**summary(times), "exit": rc}
            print(f"{'runway-deploy ' + command:>30}: {fmt(summary(times), p95=False)}, exit {rc}")
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
