"""Run every benchmark and print the figures beside the performance targets (issue 6).

``python benchmarks/run_all.py`` (full: ×1…×8 analysis, 210-edit keystroke replay ×3 rounds
beside yaml-language-server, 10 starts, 100 requests of each kind, 10 CLI runs; a few
minutes) or ``--smoke`` (tiny sizes and counts, well under a minute: for CI, so that the
scripts do not rot). yaml-language-server is used when installed in benchmarks/.peer
(``cd benchmarks/.peer && npm install yaml-language-server@1.25``); otherwise the replay runs
against our server only and says so. Raw figures go to ``benchmarks/out/`` (gitignored).

Nothing is asserted: a figure over its target is printed as such, and the exit status is 0
unless a benchmark itself fails to run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_analysis  # noqa: E402
import bench_cli  # noqa: E402
import bench_keystrokes  # noqa: E402
import bench_lsp  # noqa: E402
from common import HERE, fmt, machine, summary  # noqa: E402
from generate import generate  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny sizes and counts (CI)")
    ap.add_argument("--no-peer", action="store_true", help="skip yaml-language-server even when installed")
    ap.add_argument("--out", type=Path, default=HERE / "out")
    a = ap.parse_args()
    smoke = a.smoke
    cfg = {
        "scales": [1, 2] if smoke else [1, 2, 4, 8],
        "repeat": 2 if smoke else 15,
        "edits": 20 if smoke else 210,
        "rounds": 1 if smoke else 3,
        "gap": 0.02 if smoke else 0.05,
        "starts": 2 if smoke else 10,
        "requests": 10 if smoke else 100,
        "cli_runs": 2 if smoke else 10,
    }
    t_start = time.perf_counter()
    a.out.mkdir(parents=True, exist_ok=True)
    m = machine()
    print(f"# runway benchmarks ({'smoke' if smoke else 'full'}) — {time.strftime('%Y-%m-%d %H:%M %Z')}")
    print(f"machine: {m['nproc']} CPUs, {m['cpu']}, Python {m['python']}, load {m['load']}; pygls {m['pygls']}, lsprotocol {m['lsprotocol']}, "
          f"pydantic {m['pydantic']}, ruamel.yaml {m['ruamel.yaml']} (clib {m['ruamel.yaml.clib']}); node {m['node']}, "
          f"yaml-language-server {m['yaml-language-server'] or 'not installed'}")
    results: dict = {"machine": m, "config": cfg}

    print("\n## analysis vs ruamel C compose")
    rows = bench_analysis.run(cfg["scales"], cfg["repeat"])
    results["analysis"] = rows

    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "x1", 1)
        text = root.read_text()

        print(f"\n## keystrokes: didChange -> publishDiagnostics ({cfg['edits']} edits, {cfg['rounds']} round(s), gap {cfg['gap'] * 1000:.0f} ms)")
        edits = bench_keystrokes.make_edits(text, cfg["edits"])
        ks = asyncio.run(bench_keystrokes.run(root, edits, cfg["rounds"], cfg["gap"], not a.no_peer, Path(tmp)))
        ks_summary = bench_keystrokes.report(ks)
        results["keystrokes"] = {"summary": ks_summary, "raw": ks}

        print(f"\n## start-up, requests, memory ({cfg['starts']} starts, {cfg['requests']} requests)")
        starts = asyncio.run(bench_lsp.measure_start(cfg["starts"]))
        print(f"{'start (spawn->initialize)':>30}: {fmt(summary(starts), p95=False)}")
        req = asyncio.run(bench_lsp.measure_requests(root, cfg["requests"]))
        for k in ("hover", "completion", "completion_after_keystroke", "codeLens", "inlayHint"):
            print(f"{k:>30}: {fmt(summary(req[k]))}")
        print(f"{'RSS after requests':>30}: {req['rss_mb']:.0f} MiB" if req.get("rss_mb") else "RSS: n/a")
        results["start_ms"] = starts
        results["requests"] = req

        print(f"\n## runway-deploy ({cfg['cli_runs']} runs)")
        cli = {}
        for command in ("plan", "check"):
            times, rc = bench_cli.wall_times([command, str(root.parent)], cfg["cli_runs"])
            cli[command] = times
            print(f"{'runway-deploy ' + command:>30}: {fmt(summary(times), p95=False)}, exit {rc}")
        results["cli_ms"] = cli

    # --- targets -------------------------------------------------------------------------
    ours = ks_summary.get("ours", {})
    x1 = rows[0]
    lin = (rows[-1]["cold_ms_per_kline"] / rows[0]["cold_ms_per_kline"]) if len(rows) > 1 else None
    rss = [x for x in ours.get("rss_mb", []) if x]
    checks = [
        ("keystroke -> diagnostics p50", f"{ours['pooled']['median']:.1f} ms" if ours else "n/a", "≤ 100 ms", ours and ours["pooled"]["median"] <= 100),
        ("keystroke -> diagnostics p95", f"{ours['pooled']['p95']:.1f} ms" if ours else "n/a", "≤ 150 ms", ours and ours["pooled"]["p95"] <= 150),
        ("p50 vs yaml-language-server", f"{ks_summary['ratio_p50']:.2f}×" if "ratio_p50" in ks_summary else "peer not run", "≤ 0.4×",
         ks_summary.get("ratio_p50", 1) <= 0.4 if "ratio_p50" in ks_summary else None),
        ("analysis / C compose (×1, cold)", f"{x1['cold_over_compose']:.2f}×", "≤ 2×", x1["cold_over_compose"] <= 2),
        ("start (spawn -> initialize)", f"{statistics.median(starts):.0f} ms", "≤ 500 ms", statistics.median(starts) <= 500),
        ("runway-deploy plan", f"{statistics.median(cli['plan']):.0f} ms", "≤ 600 ms", statistics.median(cli["plan"]) <= 600),
        ("server RSS after the replay", f"{max(rss):.0f} MiB" if rss else "n/a", "≤ 120 MiB", bool(rss) and max(rss) <= 120),
        ("completion p95 (analysis current)", f"{summary(req['completion'])['p95']:.1f} ms", "≤ 50 ms", summary(req["completion"])["p95"] <= 50),
        ("completion p95 (right after a keystroke)", f"{summary(req['completion_after_keystroke'])['p95']:.1f} ms", "≤ 50 ms",
         summary(req["completion_after_keystroke"])["p95"] <= 50),
        ("hover p95", f"{summary(req['hover'])['p95']:.1f} ms", "≤ 50 ms", summary(req["hover"])["p95"] <= 50),
        ("linear scaling (ms/kline ×max vs ×1)", f"{lin:.2f}×" if lin else "n/a", "≈ 1×", lin is not None and lin <= 1.5),
    ]
    print("\n## targets (figures from this run; informational, never asserted)")
    print(f"| {'measure':<42} | {'measured':>14} | {'target':>9} | |")
    print(f"|{'-' * 44}|{'-' * 16}|{'-' * 11}|---|")
    for name, value, target, ok in checks:
        mark = "-" if ok is None else ("ok" if ok else "over")
        print(f"| {name:<42} | {value:>14} | {target:>9} | {mark} |")
    results["targets"] = [{"measure": c[0], "value": c[1], "target": c[2], "ok": c[3]} for c in checks]
    name = "smoke.json" if smoke else f"full-{time.strftime('%Y%m%d-%H%M%S')}.json"
    (a.out / name).write_text(json.dumps(results, indent=1, default=str))
    print(f"\n({time.perf_counter() - t_start:.0f} s; raw figures in {a.out / name})")


if __name__ == "__main__":
    main()
