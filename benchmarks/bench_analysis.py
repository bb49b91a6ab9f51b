"""Time the core analysis of a generated ~3,000-line workspace against ruamel's C composer.

Prints, for each scale: lines of the root, the median and spread of ``analyze`` (parse +
model + rules + every environment's plan, root and 20 members) and of
``YAML(typ="safe", pure=False).compose`` on the same root text (the parse floor named by the
performance issue), and their ratio. Run: ``python benchmarks/bench_analysis.py [--repeat N]
[--scales 1,2,4,8]``. No timed asserts anywhere: this prints figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate  # noqa: E402
from ruamel.yaml import YAML  # noqa: E402

from runway_core.analysis import analyze  # noqa: E402
from runway_core.catalog import load_catalog  # noqa: E402


def _times(fn, repeat: int) -> list[float]:
    fn()  # warm-up
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--scales", default="1,2,4,8")
    a = ap.parse_args()
    catalog = load_catalog()
    yaml = YAML(typ="safe", pure=False)
    print(f"{'scale':>5} {'lines':>6} {'analyze ms (median, min-max)':>30} {'C compose ms':>22} {'ratio':>6} {'ms/kline':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for scale in [int(s) for s in a.scales.split(",")]:
            root = generate(Path(tmp) / f"x{scale}", scale)
            text = root.read_text()
            nlines = text.count("\n")
            an = _times(lambda: analyze(str(root), catalog), a.repeat)
            co = _times(lambda: yaml.compose(text), a.repeat)
            m_an, m_co = statistics.median(an), statistics.median(co)
            print(
                f"{scale:>5} {nlines:>6} {m_an:>12.1f} ({min(an):.1f}-{max(an):.1f}){'':>6} "
                f"{m_co:>9.1f} ({min(co):.1f}-{max(co):.1f}) {m_an / m_co:>6.2f} {m_an / nlines * 1000:>9.2f}"
            )
            result = analyze(str(root), catalog)
            entries = len(result.spec.entries) if result.spec else 0
            print(f"{'':>12}{len(result.files)} files, {entries} entries, {len(result.plans)} environments, "
                  f"{len(result.all_diagnostics())} diagnostics")


if __name__ == "__main__":
    main()
