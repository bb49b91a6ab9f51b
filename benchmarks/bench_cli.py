"""Wall time of ``runway-deploy plan`` (and ``check``) on a generated workspace, as a user runs it.

Each run is a fresh process (``runway-deploy plan DIR``, output discarded); prints the median
and spread of ``--runs`` runs. Run: ``.venv/bin/python benchmarks/bench_cli.py [--scale 1]
[--seed N] [--root PATH] [--runs 10]``. Asserts nothing.
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

from common import cli_command, fmt, resolve_root, summary  # noqa: E402
from generate import DEFAULT_SEED, generate  # noqa: E402


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


def cli_target(root: Path) -> str:
    """What a user passes for the workspace of root runway ``root``: its folder when the CLI
    finds it there (runway.yaml / runway.yml), else the file itself."""
    return str(root.parent) if root.name in ("runway.yaml", "runway.yml") else str(root)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=1, help="generated workspace scale (default 1: ~3,200-line root)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the generated workspace (default {DEFAULT_SEED})")
    ap.add_argument("--root", type=Path, default=None, help="time this workspace instead of a generated one: its root runway file or its folder")
    ap.add_argument("--runs", type=int, default=10, help="fresh runs of each command, after one warm-up run (default 10)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    a = ap.parse_args()
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = resolve_root(a.root) if a.root else generate(Path(tmp) / f"x{a.scale}", a.scale, a.seed)
        target = cli_target(root)
        print(f"{'workspace':>30}: {target}")
        for command in ("plan", "check"):
            times, rc = wall_times([command, target], a.runs)
            res[command] = {**summary(times), "exit": rc}
            print(f"{'runway-deploy ' + command:>30}: {fmt(summary(times), p95=False)}, exit {rc}")
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
