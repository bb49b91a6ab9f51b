"""Time the core analysis against ruamel's C composer, on generated workspaces ×1 to ×8 or on any workspace.

For each workspace (each scale of a generated one, or ``--root``: one existing workspace,
read as on disk, CRLF kept): lines of the root and of every file the analysis reads, then the
median and spread (min-max) of

- ``cold``: :func:`runway_core.analysis.analyze` (parse + model + rules + every environment's
  plan, root and members) with every cache emptied first (``clear_file_cache``,
  ``planner.clear_memos``): what ``runway-deploy check`` does;
- ``keystroke``: the language server's case: one size value of the root typed over (another
  entry each time, so that no text repeats), the previous analysis passed in, unchanged
  members and entries reused;
- ``compose``: ``YAML(typ="safe", pure=False).compose`` (ruamel's C composer, the parse floor
  named by the performance issue), with the cyclic garbage collector paused during the timed
  call as ``analyze()`` pauses it. Twice: of every file the analysis reads (``an.files``, their
  texts read from disk first: *the same text*) and of the root alone.

Their ratios: the issue's target, "analysis ≤ 2 × ruamel C compose of the same text", is
judged on ``cold / compose of every file read``; ``cold / compose of the root only`` is shown
beside it. Then ms per 1,000 lines read (flat when the analysis grows linearly: judged linear
when the largest workspace's figure is within 0.67-1.5× the smallest's, medians throughout).

Run: ``.venv/bin/python benchmarks/bench_analysis.py [--repeat N] [--scales 1,2,4,8] [--seed N]``
or ``... --root PATH`` (a root runway file or its folder). No timed asserts anywhere: this
prints figures.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: other code can be measured
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import read_source, resolve_root  # noqa: E402
from generate import DEFAULT_SEED, generate  # noqa: E402
from ruamel.yaml import YAML  # noqa: E402
from scan import scan  # noqa: E402

from runway_core import analysis as core  # noqa: E402
from runway_core import planner  # noqa: E402
from runway_core.catalog import load_catalog  # noqa: E402

try:
    from runway_core.workspace import read_disk  # noqa: E402
except ImportError:  # a revision before issue 11 (variants.py --base REV)
    read_disk = core.read_disk

TARGET_RATIO = 2.0  # issue 6: analysis ≤ 2 × ruamel C compose of the same text
LINEAR = (0.67, 1.5)  # ms per 1,000 lines, largest workspace / smallest: "linear" within this


def _times(fn: Callable[[], Any], repeat: int, before: Callable[[], None] | None = None) -> list[float]:
    if before:
        before()
    fn()  # warm-up
    out = []
    for _ in range(repeat):
        if before:
            before()
        gc.collect()  # each run starts from the same heap, not from the last run's garbage
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _gc_paused(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` with the cyclic GC paused while it runs, exactly as ``analyze()`` pauses it."""

    def run() -> Any:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return fn()
        finally:
            if enabled:
                gc.enable()

    return run


def _cold() -> None:
    # (getattr: the script also runs on older code, for before/after figures)
    getattr(core, "clear_file_cache", lambda: None)()
    getattr(planner, "clear_memos", lambda: None)()


def _spread(xs: list[float]) -> str:
    if not xs:
        return "not measured"
    return f"{statistics.median(xs):7.1f} ({min(xs):.1f}-{max(xs):.1f})"


def _lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def keystroke_texts(text: str, n: int) -> list[str]:
    """``n`` versions of ``text``, each with one more size value typed over (small -> medium ->
    large -> small), a different entry each time where the file has enough; [] without any
    size value. Positions from benchmarks/scan.py: CRLF, comments, flow maps, block maps."""
    spans = list({sp.line: sp for sp in reversed(scan(text).sizes)}.values())  # one per line
    if not spans:
        return []
    spans.sort(key=lambda sp: sp.line)
    lines = text.split("\n")
    current = {sp.line: sp.text for sp in spans}
    cycle = {"small": "medium", "medium": "large", "large": "small"}
    out = []
    for i in range(n):
        sp = spans[(i * 7919) % len(spans)]
        old = current[sp.line]
        new = cycle.get(old, "small")
        line = lines[sp.line]
        lines[sp.line] = line[: sp.start] + new + line[sp.start + len(old) :]
        current[sp.line] = new
        out.append("\n".join(lines))
    return out


def measure(root: Path, repeat: int, catalog: Any, yaml: YAML, label: str, scale: int | None = None) -> dict[str, Any]:
    """The figures of one workspace (see the module docstring)."""
    path = str(root)
    text = read_source(root)
    cold = _times(lambda: core.analyze(path, catalog), repeat, before=_cold)
    result = core.analyze(path, catalog)
    # The same text: every file the analysis read, as on disk.
    texts: dict[str, str] = {}
    skipped: list[str] = []
    for f in result.files:
        try:
            t = read_source(f)
            yaml.compose(t)  # (once, untimed: a file ruamel cannot compose is left out, and said so)
            texts[f] = t
        except Exception as exc:  # noqa: BLE001
            skipped.append(f"{f}: {type(exc).__name__}")
    all_texts = list(texts.values())
    # Keystroke: the root's text typed over, one size value at a time, never the same text twice.
    versions = keystroke_texts(text, repeat + 1)
    keys: list[float] = []
    if versions:
        state = {"i": 0, "prev": result}
        reuse = "previous" in inspect.signature(core.analyze).parameters

        def keystroke() -> None:
            t = versions[state["i"] % len(versions)]
            state["i"] += 1
            extra = {"previous": state["prev"]} if reuse else {}
            state["prev"] = core.analyze(path, catalog, lambda p, t=t: t if p == path else read_disk(p), **extra)

        keys = _times(keystroke, repeat)
    comp_root = _times(_gc_paused(lambda: yaml.compose(text)), repeat)
    comp_all = _times(_gc_paused(lambda: [yaml.compose(t) for t in all_texts]), repeat)
    m_cold, m_comp_root, m_comp_all = statistics.median(cold), statistics.median(comp_root), statistics.median(comp_all)
    m_keys = statistics.median(keys) if keys else None
    lines_read = sum(_lines(t) for t in all_texts)
    entries = len(result.spec.entries) if result.spec else 0
    return {
        "scale": scale, "label": label, "root": path, "crlf": "\r\n" in text,
        "lines": _lines(text), "files": len(result.files), "files_composed": len(all_texts), "lines_read": lines_read,
        "compose_skipped": skipped,
        "cold_ms": cold, "keystroke_ms": keys, "compose_root_ms": comp_root, "compose_all_ms": comp_all,
        "cold_over_compose_all": m_cold / m_comp_all, "cold_over_compose_root": m_cold / m_comp_root,
        "keystroke_over_compose_all": m_keys / m_comp_all if m_keys is not None else None,
        "cold_ms_per_kline": m_cold / lines_read * 1000 if lines_read else float("nan"),
        "entries": entries, "environments": len(result.plans), "diagnostics": len(result.all_diagnostics()),
    }


def linearity(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Cold ms per 1,000 lines read (medians) per workspace, smallest to largest, and the
    largest's over the smallest's: linear when within :data:`LINEAR`. None for one workspace."""
    if len(rows) < 2:
        return None
    rs = sorted(rows, key=lambda r: r["lines_read"])
    ratio = rs[-1]["cold_ms_per_kline"] / rs[0]["cold_ms_per_kline"]
    return {"series": [(r["label"], r["lines_read"], r["cold_ms_per_kline"]) for r in rs], "ratio": ratio,
            "linear": LINEAR[0] <= ratio <= LINEAR[1], "smallest": rs[0]["label"], "largest": rs[-1]["label"]}


def _ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def run(scales: list[int], repeat: int, out=sys.stdout, root: Path | None = None, seed: int = DEFAULT_SEED) -> list[dict]:
    """Measure the generated workspaces of ``scales`` (seed ``seed``), or the one at ``root``."""
    catalog = load_catalog()
    yaml = YAML(typ="safe", pure=False)
    rows = []
    print(f"{'scale':>5} {'root lines':>10} {'files':>5} {'lines read':>10} {'cold ms (median, min-max)':>26} {'keystroke ms':>20} "
          f"{'compose root ms':>20} {'compose all ms':>20} {'cold/compose':>12} {'(root only)':>11} {'keys/compose':>12} {'cold ms/kline':>13}", file=out)
    with tempfile.TemporaryDirectory() as tmp:
        targets = [(resolve_root(root), "root", None)] if root is not None else \
            [(generate(Path(tmp) / f"x{s}", s, seed), f"×{s}", s) for s in scales]
        for path, label, scale in targets:
            row = measure(path, repeat, catalog, yaml, label, scale)
            rows.append(row)
            print(f"{label:>5} {row['lines']:>10} {row['files']:>5} {row['lines_read']:>10} {_spread(row['cold_ms']):>26} {_spread(row['keystroke_ms']):>20} "
                  f"{_spread(row['compose_root_ms']):>20} {_spread(row['compose_all_ms']):>20} {row['cold_over_compose_all']:>12.2f} "
                  f"{row['cold_over_compose_root']:>11.2f} {_ratio(row['keystroke_over_compose_all']):>12} {row['cold_ms_per_kline']:>13.2f}", file=out)
            print(f"{'':>6}{path} ({'CRLF' if row['crlf'] else 'LF'}): {row['files']} files, {row['entries']} entries, "
                  f"{row['environments']} environments, {row['diagnostics']} diagnostics", file=out)
            if not row["keystroke_ms"]:
                print(f"{'':>6}WARNING: keystroke not measured: no size value found in the root to type over", file=out)
            for s in row["compose_skipped"]:
                print(f"{'':>6}WARNING: left out of 'compose all' (ruamel cannot compose it): {s}", file=out)
    print("cold/compose: cold analysis over C compose of every file the analysis reads (the same text); (root only): over C compose "
          "of the root alone; compose with the cyclic GC paused, as analyze() pauses it", file=out)
    first = rows[0]
    verdict = "ok" if first["cold_over_compose_all"] <= TARGET_RATIO else "over"
    print(f"target (issue 6): analysis ≤ {TARGET_RATIO:g} × ruamel C compose of the same text: {first['label']} cold / compose of all "
          f"{first['files_composed']} files read = {first['cold_over_compose_all']:.2f}× ({verdict}); root only: "
          f"{first['cold_over_compose_root']:.2f}×", file=out)
    lin = linearity(rows)
    if lin is not None:
        series = ", ".join(f"{label} {ms:.2f}" for label, _n, ms in lin["series"])
        print(f"scaling: cold ms per 1,000 lines read: {series}; {lin['largest']} / {lin['smallest']} = {lin['ratio']:.2f}× "
              f"({'linear' if lin['linear'] else 'not linear'}: linear within {LINEAR[0]}-{LINEAR[1]}×)", file=out)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15, help="timed runs of each figure (medians; default 15)")
    ap.add_argument("--scales", default=None, help="generated workspace scales, comma-separated (default 1,2,4,8)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the generated workspaces (default {DEFAULT_SEED})")
    ap.add_argument("--root", type=Path, default=None,
                    help="analyse this existing workspace instead (its root runway file or its folder; one row, no scales)")
    ap.add_argument("--json", type=Path, default=None, help="also write the raw figures here")
    a = ap.parse_args()
    if a.root is not None and a.scales is not None:
        ap.error("--root and --scales exclude each other: --root measures one existing workspace")
    rows = run([int(s) for s in (a.scales or "1,2,4,8").split(",")], a.repeat, root=a.root, seed=a.seed)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
