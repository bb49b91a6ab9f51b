"""Wall time of ``runway-deploy`` on a generated workspace, as CI runs it, against a floor.

Each run is a fresh process, output discarded: ``check DIR``, ``plan DIR`` (text), ``plan DIR
--format json`` (the 3.5 MB document of the ×1 workspace) and ``diff DIR DIR --format json``;
the floor is ``python -c "import runway_core"`` in the same run, the start of any Python
program on this machine. Runs are interleaved (one of each command per round), so a load spike
hits all of them alike; prints median and spread per command and its median as a ratio to the
floor's. ``--scale 1 4`` also shows linearity (median at ×4 / median at ×1). Targets (issue 14):
``plan --format json`` and ``check`` ≤ 0.5 s at ×1. Asserts nothing.

Run: ``.venv/bin/python benchmarks/bench_cli.py [--scale 1 [5]] [--seed N] [--root PATH]
[--runs 10] [--json FILE] [--before DIR]`` (``--before``: the same rounds also on older code).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import cli_command, fmt, resolve_root, summary  # noqa: E402
from generate import DEFAULT_SEED, generate  # noqa: E402

#: What is timed: name -> arguments after ``runway-deploy`` (``{t}`` the workspace folder).
COMMANDS = {
    "check": ["check", "{t}"],
    "plan": ["plan", "{t}"],
    "plan --format json": ["plan", "{t}", "--format", "json"],
    "diff --format json": ["diff", "{t}", "{t}", "--format", "json"],
}
FLOOR = "python -c 'import runway_core'"
TARGETS_MS = {"check": 500, "plan --format json": 500}


def _run(cmd: list[str], pythonpath: str | None = None) -> tuple[float, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    t0 = time.perf_counter()
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
    return (time.perf_counter() - t0) * 1000, rc


def wall_times(args: list[str], runs: int) -> tuple[list[float], int]:
    """Milliseconds of ``runs`` fresh runs of the CLI with ``args`` (after one warm-up run,
    so that every run finds the byte-code cached); and the last exit status."""
    cmd = cli_command() + args
    _run(cmd)
    out, rc = [], 0
    for _ in range(runs):
        ms, rc = _run(cmd)
        out.append(ms)
    return out, rc


def interleaved(target: str, runs: int, before: str | None = None) -> dict[str, dict]:
    """Every command and the floor, one of each per round, ``runs`` rounds (after a warm-up
    round); with ``before`` (a folder holding an older runway_core, deploy_engine... ) each
    command also runs on that code in the same rounds, as ``<name> (before)``."""
    cmds: dict[str, tuple[list[str], str | None]] = {}
    for name, args in COMMANDS.items():
        cmd = cli_command() + [a.format(t=target) for a in args]
        if before is not None:
            cmds[f"{name} (before)"] = (cmd, before)
        cmds[name] = (cmd, None)
    cmds[FLOOR] = ([sys.executable, "-c", "import runway_core"], None)
    times: dict[str, list[float]] = {name: [] for name in cmds}
    codes: dict[str, int] = {}
    for round_ in range(runs + 1):
        for name, (cmd, path) in cmds.items():
            ms, rc = _run(cmd, path)
            if round_:
                times[name].append(ms)
            codes[name] = rc
    return {name: {**summary(v), "exit": codes[name], "raw": v} for name, v in times.items()}


def cli_target(root: Path) -> str:
    """What a user passes for the workspace of root runway ``root``: its folder when the CLI
    finds it there (runway.yaml / runway.yml), else the file itself."""
    return str(root.parent) if root.name in ("runway.yaml", "runway.yml") else str(root)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, nargs="+", default=[1], help="generated workspace scales (default 1: the 3,218-line root)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the generated workspace (default {DEFAULT_SEED})")
    ap.add_argument("--root", type=Path, default=None, help="time this workspace instead of a generated one: its root runway file or its folder")
    ap.add_argument("--runs", type=int, default=10, help="rounds (one fresh run of each command per round), after a warm-up round (default 10)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--before", type=Path, default=None,
                    help="also run each command on this code (a folder holding runway_core, deploy_engine, catalog: "
                    "git archive <commit> runway_core runway_lsp catalog deploy_engine | tar -x -C DIR), interleaved")
    a = ap.parse_args()
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"{'load average':>30}: {' '.join(f'{x:.2f}' for x in load) if load else 'unknown'}")
    res: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        targets = [("root", resolve_root(a.root))] if a.root else [(f"x{s}", generate(Path(tmp) / f"x{s}", s, a.seed)) for s in a.scale]
        for label, root in targets:
            lines = Path(root).read_text(encoding="utf-8").count("\n")
            print(f"\n## {label}: {cli_target(root)} ({lines:,}-line root)")
            figures = interleaved(cli_target(root), a.runs, str(a.before.resolve()) if a.before else None)
            floor = figures[FLOOR]["median"]
            for name, f in figures.items():
                ratio = f["median"] / floor if floor else float("nan")
                target = TARGETS_MS.get(name)
                goal = f", target ≤ {target} ms: {'met' if f['median'] <= target else 'NOT met'}" if target and label == "x1" else ""
                print(f"{name:>30}: {fmt(f, p95=False)}, {ratio:.1f}× the floor, exit {f['exit']}{goal}")
            res[label] = {"lines": lines, "floor_ms": floor, "commands": figures}
    if len(res) > 1 and "x1" in res:
        print("\n## linearity (median / median at x1, per line of the root)")
        base = res["x1"]
        for label, r in res.items():
            if label == "x1":
                continue
            size = r["lines"] / base["lines"]
            for name in [n for n in r["commands"] if n != FLOOR]:
                m, m1 = r["commands"][name]["median"], base["commands"][name]["median"]
                print(f"{name + ' ' + label:>30}: {m / m1:.2f}× the time for {size:.2f}× the lines")
    if a.json:
        a.json.write_text(json.dumps({"load": load, "results": res}, indent=1))


if __name__ == "__main__":
    main()
