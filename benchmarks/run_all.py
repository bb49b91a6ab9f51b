"""Run every benchmark and print the figures beside the performance targets (issue 6).

``.venv/bin/python benchmarks/run_all.py`` (full: ×1…×8 analysis, 210-edit keystroke replay
×3 rounds beside yaml-language-server, 10 starts, 100 requests of each kind, 10 CLI runs; a
few minutes) or ``--smoke`` (tiny sizes and counts, well under a minute: for CI, so that the
scripts do not rot). The workspaces are generated (``--seed``: another workspace of the same
shape), or ``--root PATH`` runs every benchmark (analysis, keystrokes, requests, CLI) on one
existing workspace instead (its root runway file or its folder; the analysis then has one
row, no scales, and linear scaling is not measured). yaml-language-server is used when
installed in benchmarks/.peer (``npm --prefix benchmarks/.peer install
yaml-language-server@1.25``); otherwise the replay runs against our server only and says so.
Raw figures go to ``benchmarks/out/`` (gitignored).

Nothing is asserted: a figure over its target is printed as such, a figure that could not be
measured (say, a workspace without ``uses`` lists) as ``not measured``, and the exit status is
0 unless a benchmark itself fails to run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_analysis  # noqa: E402
import bench_cli  # noqa: E402
import bench_keystrokes  # noqa: E402
import bench_lsp  # noqa: E402
from common import HERE, fmt, machine, read_source, resolve_root, summary  # noqa: E402
from generate import DEFAULT_SEED, generate  # noqa: E402


def _p95(values: list[float]) -> float | None:
    return summary(values)["p95"] if values else None


def _target(name: str, value: float | None, shown: str, target: str, limit: float | None = None,
            within: tuple[float, float] | None = None, why: str = "") -> dict[str, Any]:
    """One row of the targets table; ``value`` None (or NaN): not measured, never "over"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return {"measure": name, "value": why or "n/a", "target": target, "ok": None}
    ok = (value <= limit) if limit is not None else (within[0] <= value <= within[1]) if within else None
    return {"measure": name, "value": shown, "target": target, "ok": ok}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny sizes and counts (CI)")
    ap.add_argument("--root", type=Path, default=None,
                    help="run every benchmark on this existing workspace (its root runway file or its folder) instead of generated ones")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the generated workspaces (default {DEFAULT_SEED}, RESULTS.md's)")
    ap.add_argument("--no-peer", action="store_true", help="skip yaml-language-server even when installed")
    ap.add_argument("--out", type=Path, default=HERE / "out", help="folder for the raw figures (JSON)")
    a = ap.parse_args()
    smoke = a.smoke
    given = resolve_root(a.root) if a.root else None
    cfg = {
        "scales": [1, 2] if smoke else [1, 2, 4, 8],
        "repeat": 2 if smoke else 15,
        "edits": 40 if smoke else 210,  # 40: enough for all three kinds of edit
        "rounds": 1 if smoke else 3,
        "gap": 0.02 if smoke else 0.05,
        "starts": 2 if smoke else 10,
        "requests": 10 if smoke else 100,
        "cli_runs": 2 if smoke else 10,
        "root": str(given) if given else None,
        "seed": None if given else a.seed,
    }
    t_start = time.perf_counter()
    a.out.mkdir(parents=True, exist_ok=True)
    m = machine()
    print(f"# runway benchmarks ({'smoke' if smoke else 'full'}) — {time.strftime('%Y-%m-%d %H:%M %Z')}")
    print(f"machine: {m['nproc']} CPUs, {m['cpu']}, Python {m['python']}, load {m['load']}; pygls {m['pygls']}, lsprotocol {m['lsprotocol']}, "
          f"pydantic {m['pydantic']}, ruamel.yaml {m['ruamel.yaml']} (clib {m['ruamel.yaml.clib']}); node {m['node']}, "
          f"yaml-language-server {m['yaml-language-server'] or 'not installed'}")
    print(f"workspace: {given} (--root)" if given else f"workspace: generated, seed {a.seed}")
    results: dict = {"machine": m, "config": cfg}
    warnings: list[str] = []

    print("\n## analysis vs ruamel C compose")
    rows = bench_analysis.run(cfg["scales"], cfg["repeat"], root=given, seed=a.seed)
    results["analysis"] = rows

    with tempfile.TemporaryDirectory() as tmp:
        root = given or generate(Path(tmp) / "x1", 1, a.seed)
        text = read_source(root)  # as on disk: CRLF kept

        print(f"\n## keystrokes: didChange -> publishDiagnostics ({cfg['rounds']} round(s), gap {cfg['gap'] * 1000:.0f} ms)")
        edits = bench_keystrokes.make_edits(text, cfg["edits"])
        print(f"{root} ({text.count(chr(10))} lines, {'CRLF' if chr(13) + chr(10) in text else 'LF'}): {bench_keystrokes.describe(edits)}")
        for w in bench_keystrokes.mix_warnings(edits, text):
            print(w)
            warnings.append(w)
        ks = asyncio.run(bench_keystrokes.run(root, edits, cfg["rounds"], cfg["gap"], not a.no_peer, Path(tmp)))
        ks["mix"] = bench_keystrokes.edit_mix(edits)
        ks_summary = bench_keystrokes.report(ks)
        results["keystrokes"] = {"summary": ks_summary, "raw": ks}

        print(f"\n## start-up, requests, memory ({cfg['starts']} starts, {cfg['requests']} requests)")
        starts = bench_lsp.report_start(asyncio.run(bench_lsp.measure_start(cfg["starts"])))
        req = asyncio.run(bench_lsp.measure_requests(root, cfg["requests"]))
        warnings += bench_lsp.report_requests(req)
        print(f"{'RSS after requests':>30}: {req['rss_mb']:.0f} MiB" if req.get("rss_mb") else f"{'RSS after requests':>30}: not measured")
        results["start_ms"] = starts
        results["requests"] = req

        print(f"\n## runway-deploy ({cfg['cli_runs']} runs)")
        cli = {}
        target = bench_cli.cli_target(root)
        for command in ("plan", "check"):
            times, rc = bench_cli.wall_times([command, target], cfg["cli_runs"])
            cli[command] = times
            print(f"{'runway-deploy ' + command:>30}: {fmt(summary(times), p95=False)}, exit {rc}")
        results["cli_ms"] = cli

    # --- targets -------------------------------------------------------------------------
    ours = ks_summary.get("ours", {})
    ours_n = ours.get("pooled", {}).get("n", 0) if ours else 0
    p50 = ours["pooled"]["median"] if ours_n else None
    p95 = ours["pooled"]["p95"] if ours_n else None
    ratio = ks_summary.get("ratio_p50")
    a0 = rows[0]  # the smallest scale (×1), or the --root workspace
    lin = bench_analysis.linearity(rows)
    rss = [x for x in ours.get("rss_mb", []) if x]
    comp, comp_after, hover = _p95(req["completion"]), _p95(req["completion_after_keystroke"]), _p95(req["hover"])
    plan = statistics.median(cli["plan"]) if cli["plan"] else None
    start = starts["runway"]["median"] if starts.get("runway", {}).get("n") else None  # report_start: figures per series
    lo, hi = bench_analysis.LINEAR
    checks = [
        _target("keystroke -> diagnostics p50", p50, f"{p50 or 0:.1f} ms", "≤ 100 ms", 100, why="no publish"),
        _target("keystroke -> diagnostics p95", p95, f"{p95 or 0:.1f} ms", "≤ 150 ms", 150, why="no publish"),
        _target("p50 vs yaml-language-server", ratio, f"{ratio or 0:.2f}×", "≤ 0.4×", 0.4, why="peer not run"),
        _target(f"analysis / C compose, same text ({a0['label']}, cold)", a0["cold_over_compose_all"],
                f"{a0['cold_over_compose_all']:.2f}× (root only {a0['cold_over_compose_root']:.2f}×)", f"≤ {bench_analysis.TARGET_RATIO:g}×",
                bench_analysis.TARGET_RATIO),
        _target("start (spawn -> initialize)", start, f"{start or 0:.0f} ms", "≤ 500 ms", 500),
        _target("runway-deploy plan", plan, f"{plan or 0:.0f} ms", "≤ 600 ms", 600),
        _target("server RSS after the replay", max(rss) if rss else None, f"{max(rss) if rss else 0:.0f} MiB", "≤ 120 MiB", 120, why="no /proc"),
        _target("completion p95 (analysis current)", comp, f"{comp or 0:.1f} ms", "≤ 50 ms", 50, why="no place found"),
        _target("completion p95 (right after a keystroke)", comp_after, f"{comp_after or 0:.1f} ms", "≤ 50 ms", 50, why="no place found"),
        _target("hover p95", hover, f"{hover or 0:.1f} ms", "≤ 50 ms", 50, why="no place found"),
        _target("linear scaling (ms/kline, largest vs smallest)", lin["ratio"] if lin else None, f"{lin['ratio']:.2f}×" if lin else "",
                f"{lo}–{hi}×", within=(lo, hi), why="one workspace"),
    ]
    print("\n## targets (figures from this run; informational, never asserted)")
    width = max(len(c["value"]) for c in checks)
    print(f"| {'measure':<46} | {'measured':>{width}} | {'target':>9} | |")
    print(f"|{'-' * 48}|{'-' * (width + 2)}|{'-' * 11}|---|")
    for c in checks:
        mark = "not measured" if c["ok"] is None else ("ok" if c["ok"] else "over")
        print(f"| {c['measure']:<46} | {c['value']:>{width}} | {c['target']:>9} | {mark} |")
    print("analysis / C compose: cold analysis over ruamel's C compose of every file the analysis reads (the issue's \"same text\"), "
          "GC paused in both; root only: over compose of the root file alone")
    if lin:
        print("linear scaling: cold ms per 1,000 lines read (medians) " + ", ".join(f"{label} {ms:.2f}" for label, _n, ms in lin["series"])
              + f"; {lin['largest']} / {lin['smallest']} = {lin['ratio']:.2f}× (linear within {lo}–{hi}×)")
    for w in warnings:
        print(w)
    results["targets"] = checks
    results["warnings"] = warnings
    name = ("smoke" if smoke else f"full-{time.strftime('%Y%m%d-%H%M%S')}") + ("-root" if given else "") + ".json"
    (a.out / name).write_text(json.dumps(results, indent=1, default=str))
    print(f"\n({time.perf_counter() - t_start:.0f} s; raw figures in {a.out / name})")


if __name__ == "__main__":
    main()
