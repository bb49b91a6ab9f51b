"""What the one redaction of every outgoing message costs per keystroke (issue 16 item 3).

On the generated workspace (benchmarks/generate.py, scale 1), the messages a keystroke in the
root makes the server send are built as the server builds them (runway_lsp.convert):
diagnostics of every file, code lenses, inlay hints and the outline of the root, and the
hovers of the root's first ``--hovers`` lines (default 1: a keystroke asks for one hover at most). Each is unstructured with pygls' converter (what
``json.dumps`` would do anyway) and passed through ``runway_core.text.redact_doc`` with the
server's ``_KEEP_VERBATIM`` (what ``RunwayProtocol._send_data`` adds). Reported: the
redaction's time per keystroke (median of ``--repeat``; the first keystroke, with the memo of
clean strings empty, separately), and its ratio to the analysis of the same keystroke, measured
interleaved in the same run.

    .venv/bin/python benchmarks/bench_redaction.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pygls.protocol import default_converter  # noqa: E402

from benchmarks.generate import generate  # noqa: E402
from runway_core.analysis import analyze  # noqa: E402
from runway_core.catalog import load_catalog  # noqa: E402
from runway_core.ide.hover import hover_at  # noqa: E402
from runway_core.ide.lenses import code_lenses, inlay_hints  # noqa: E402
from runway_core.ide.navigation.outline import document_symbols  # noqa: E402
from runway_core.positions import LineIndex, Position  # noqa: E402
import json  # noqa: E402

from runway_core import text as text_module  # noqa: E402
from runway_core.text import redact_doc  # noqa: E402
from runway_lsp.convert import cost, diagnostics, hover, navigation, to_range  # noqa: E402
from runway_lsp.protocol import _KEEP_VERBATIM  # noqa: E402


HOVERS = 1


def _symbol(s, lines):
    return navigation.document_symbol(s.name or "(empty)", navigation.symbol_kind(s.kind, navigation._BASE_KINDS), s.detail or None,
                                      to_range(s.range, lines, "utf-16"), to_range(s.selection_range, lines, "utf-16"),
                                      [_symbol(c, lines) for c in s.children] or None)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--debug", action="store_true")
    ap.add_argument("--hovers", type=int, default=1)
    args = ap.parse_args()
    global HOVERS
    HOVERS = args.hovers
    conv = default_converter()
    catalog = load_catalog()
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp))
        root_file = str(root / "runway.yaml") if root.is_dir() else str(root)
        analyses, redactions, sizes = [], [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            an = analyze(root_file, catalog)
            analyses.append(time.perf_counter() - t0)
            f = an.root_file
            text = Path(f).read_text(encoding="utf-8")
            lines = LineIndex(text)
            out = []
            for path, ds in an.diagnostics.items():
                lx = LineIndex(Path(path).read_text(encoding="utf-8")) if Path(path).is_file() else lines
                out.append(diagnostics.publish_params(Path(path).as_uri(), 1, diagnostics.to_diagnostics(ds, lx, "utf-16")))
            out.extend(cost.to_code_lens(x, Path(f).as_uri(), lines, "utf-16", "runway.showCosts") for x in code_lenses(an, f))
            out.extend(cost.to_inlay_hint(h, lines, "utf-16") for h in inlay_hints(an, f))
            for n in range(min(HOVERS, text.count("\n"))):
                h = hover_at(an, f, Position(n, 4))
                if h is not None:
                    out.append(hover.to_hover(h, lines, "utf-16"))
            docs = [conv.unstructure(m) for m in out]
            # The outline as the server sends it (runway_lsp/navigation.py), when the editor asks.
            docs.append({"result": [conv.unstructure(_symbol(s, lines)) for s in document_symbols(an, f)]})
            if not redactions:
                text_module._CLEAN.clear()  # the first keystroke: nothing memoised yet
            t0 = time.perf_counter()
            walked = 0
            for d in docs:  # what RunwayProtocol._send_data does to each message
                if redact_doc(d, _KEEP_VERBATIM) is not d:
                    walked += 1
                    if walked == 1 and args.debug:
                        print(json.dumps(d)[:600])
            redactions.append(time.perf_counter() - t0)
            sizes.append(sum(len(str(d)) for d in docs))
    a, r = statistics.median(analyses), statistics.median(redactions[1:] or redactions)
    print(f"files: {len(an.files)}, messages: {len(docs)} ({walked} changed by the redaction), characters: {sizes[-1]:,}")
    print(f"first keystroke (memo empty): redaction {redactions[0] * 1000:.2f} ms, ratio to its analysis {redactions[0] / analyses[0]:.3f}")
    print(f"analysis per keystroke: {a * 1000:.1f} ms (median of {args.repeat})")
    print(f"redaction of every message of that keystroke: {r * 1000:.2f} ms (median), ratio to the analysis {r / a:.3f}")


if __name__ == "__main__":
    main()
