"""Time the core analysis of a generated workspace against ruamel's C composer, ×1 to ×8.

For each scale: lines of the root, then the median and spread (min-max) of

- ``cold``: :func:`runway_core.analysis.analyze` (parse + model + rules + every environment's
  plan, root and members) with every cache emptied first: what ``runway-deploy check`` does;
- ``keystroke``: the language server's case: one character of the root changed (a size typed
  over), the previous analysis passed in, unchanged members and entries reused;
- ``compose``: ``YAML(typ="safe", pure=False).compose`` of the same root text (the parse floor
  named by the performance issue);

their ratios, and ms per 1,000 lines of the root (flat when the analysis grows linearly).
Run: ``python benchmarks/bench_analysis.py [--repeat N] [--scales 1,2,4,8]``. No timed asserts
anywhere: this prints figures.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: other code can be measured
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate  # noqa: E402
from ruamel.yaml import YAML  # noqa: E402

from runway_core import analysis as core  # noqa: E402
from runway_core import planner  # noqa: E402
from runway_core.catalog import load_catalog  # noqa: E402


def _times(fn, repeat: int, before=None) -> list[float]:
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


def _cold() -> None:
    # (getattr: the script also runs on older code, for before/after figures)
    getattr(core, "clear_file_cache", lambda: None)()
    getattr(planner, "clear_memos", lambda: None)()


def _spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):7.1f} ({min(xs):.1f}-{max(xs):.1f})"


def run(scales: list[int], repeat: int, out=sys.stdout) -> list[dict]:
    catalog = load_catalog()
    yaml = YAML(typ="safe", pure=False)
    rows = []
    print(f"{'scale':>5} {'lines':>6} {'cold ms (median, min-max)':>28} {'keystroke ms':>22} {'C compose ms':>22} "
          f"{'cold/compose':>12} {'keys/compose':>12} {'cold ms/kline':>13}", file=out)
    with tempfile.TemporaryDirectory() as tmp:
        for scale in scales:
            root = generate(Path(tmp) / f"x{scale}", scale)
            text = root.read_text()
            nlines = text.count("\n")
            path = str(root)
            cold = _times(lambda: core.analyze(path, catalog), repeat, before=_cold)
            # Keystroke: the text alternates between two versions one character apart.
            m = re.search(r"(?m)^(\s+production: )(small|medium|large)$", text)
            other = text if m is None else text[: m.start(2)] + ("large" if m.group(2) != "large" else "small") + text[m.end(2):]
            texts = [text, other]
            state = {"i": 0, "prev": core.analyze(path, catalog)}
            reuse = "previous" in inspect.signature(core.analyze).parameters

            def keystroke():
                state["i"] += 1
                t = texts[state["i"] % 2]
                extra = {"previous": state["prev"]} if reuse else {}
                state["prev"] = core.analyze(path, catalog, lambda p, t=t: t if p == path else core.read_disk(p), **extra)

            keys = _times(keystroke, repeat)
            comp = _times(lambda: yaml.compose(text), repeat)
            m_cold, m_keys, m_comp = statistics.median(cold), statistics.median(keys), statistics.median(comp)
            row = {
                "scale": scale, "lines": nlines, "cold_ms": cold, "keystroke_ms": keys, "compose_ms": comp,
                "cold_over_compose": m_cold / m_comp, "keystroke_over_compose": m_keys / m_comp, "cold_ms_per_kline": m_cold / nlines * 1000,
            }
            rows.append(row)
            print(f"{scale:>5} {nlines:>6} {_spread(cold):>28} {_spread(keys):>22} {_spread(comp):>22} "
                  f"{row['cold_over_compose']:>12.2f} {row['keystroke_over_compose']:>12.2f} {row['cold_ms_per_kline']:>13.2f}", file=out)
            result = core.analyze(path, catalog)
            entries = len(result.spec.entries) if result.spec else 0
            print(f"{'':>12}{len(result.files)} files, {entries} entries, {len(result.plans)} environments, "
                  f"{len(result.all_diagnostics())} diagnostics", file=out)
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        growth = statistics.median(last["cold_ms"]) / statistics.median(first["cold_ms"])
        print(f"scaling: ×{last['scale'] // first['scale']} the lines -> ×{growth:.2f} the cold analysis time "
              f"({first['cold_ms_per_kline']:.2f} -> {last['cold_ms_per_kline']:.2f} ms per 1,000 lines)", file=out)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--scales", default="1,2,4,8")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    rows = run([int(s) for s in a.scales.split(",")], a.repeat)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
