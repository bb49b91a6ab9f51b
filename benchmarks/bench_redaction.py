"""What the one redaction of every outgoing message costs per keystroke (issue 16 item 3).

On the generated workspace (benchmarks/generate.py, scale 1), the messages a keystroke in the
root makes the server send are built as the server builds them (runway_lsp.convert):
diagnostics of every file, code lenses, inlay hints and the outline of the root, and the
hovers of the root's first ``--hovers`` lines (default 1: a keystroke asks for one hover at
most). Two ways of redacting them are timed, interleaved with the analysis of the same
keystroke in the same run:

- **walk** (main before 2026-12-01 13:00): each message unstructured with pygls' converter and
  passed whole through ``runway_core.text.redact_doc`` with the server's ``_KEEP_VERBATIM``;
- **at the source** (what the server does now): the builders of diagnostics, lenses, hints and
  the outline redact their text fields (runway_lsp/convert/redacted.py), and
  ``RunwayProtocol._send_data`` walks only what is left of such a message (its id, a URI) and
  every other message (the hover) whole.

Reported per way (CPU time of the process, ``--wall`` for the wall clock): the redaction's time per keystroke (median of ``--repeat``; the first
keystroke, with the memo of clean strings empty, separately) and its ratio to the analysis.

    .venv/bin/python benchmarks/bench_redaction.py [--repeat 7] [--wall]
"""

from __future__ import annotations

import argparse
import gc
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
from runway_lsp.convert import redacted  # noqa: E402
from runway_lsp.convert.redacted import is_redacted  # noqa: E402
from runway_lsp.protocol import _KEEP_VERBATIM  # noqa: E402


HOVERS = 1

#: CPU time of this process (``--wall``: wall-clock): on a shared, loaded machine the wall
#: clock mostly measures the other processes.
_clock = time.process_time


def _symbol(s, lines):
    return navigation.document_symbol(s.name or "(empty)", navigation.symbol_kind(s.kind, navigation._BASE_KINDS), s.detail or None,
                                      to_range(s.range, lines, "utf-16"), to_range(s.selection_range, lines, "utf-16"),
                                      [_symbol(c, lines) for c in s.children] or None)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--debug", action="store_true")
    ap.add_argument("--hovers", type=int, default=1)
    ap.add_argument("--wall", action="store_true", help="time with the wall clock instead of this process's CPU time")
    args = ap.parse_args()
    global _clock
    if args.wall:
        _clock = time.perf_counter
    global HOVERS
    HOVERS = args.hovers
    conv = default_converter()
    catalog = load_catalog()
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp))
        root_file = str(root / "runway.yaml") if root.is_dir() else str(root)
        analyses: list[float] = []
        took: dict[str, list[float]] = {"walk": [], "source": []}
        # As in runway-lsp (runway_lsp/__main__.py): no automatic cyclic collection, which
        # would otherwise land in whichever timing is running; collected between keystrokes.
        gc.disable()
        for _ in range(args.repeat):
            gc.collect()
            t0 = _clock()
            an = analyze(root_file, catalog)
            analyses.append(_clock() - t0)
            f = an.root_file
            text = Path(f).read_text(encoding="utf-8")
            lines = LineIndex(text)
            uri = Path(f).as_uri()
            file_lines = {p: LineIndex(Path(p).read_text(encoding="utf-8")) if Path(p).is_file() else lines for p in an.diagnostics}

            def build():
                """The keystroke's messages as built before any redaction: per file its
                diagnostics, the root's lenses, hints, outline, and the hovers."""
                diags = {p: [diagnostics.to_diagnostic(d, file_lines[p], "utf-16") for d in ds] for p, ds in an.diagnostics.items()}
                lenses = [cost.to_code_lens(x, uri, lines, "utf-16", "runway.showCosts") for x in code_lenses(an, f)]
                hints = [cost.to_inlay_hint(h, lines, "utf-16") for h in inlay_hints(an, f)]
                hovers = [hover.to_hover(h, lines, "utf-16") for n in range(min(HOVERS, text.count("\n"))) if (h := hover_at(an, f, Position(n, 4))) is not None]
                outline = [_symbol(s, lines) for s in document_symbols(an, f)]
                return diags, lenses, hints, hovers, outline

            for way in ("walk", "source"):
                diags, lenses, hints, hovers, outline = build()
                if not took[way]:
                    text_module._CLEAN.clear()  # the first keystroke: nothing memoised yet
                if way == "walk":
                    out = [diagnostics.publish_params(Path(p).as_uri(), 1, ds) for p, ds in diags.items()] + lenses + hints + hovers
                    docs = [conv.unstructure(m) for m in out] + [{"result": [conv.unstructure(x) for x in outline]}]
                    t0 = _clock()
                    for d in docs:  # what RunwayProtocol._send_data did to each message
                        redact_doc(d, _KEEP_VERBATIM)
                    took[way].append(_clock() - t0)
                    del d  # (freeing the last message must not land in the next keystroke's timing)
                    continue
                # At the source: the builders' redaction, then what _send_data walks.
                t0 = _clock()
                pushed = [diagnostics.publish_params(Path(p).as_uri(), 1, redacted.diagnostics(ds)) for p, ds in diags.items()]
                results = [redacted.lenses(lenses), redacted.hints(hints), redacted.symbols(outline)]
                built = _clock() - t0
                messages = [("params", {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics"}, m) for m in pushed]
                messages += [("result", {"jsonrpc": "2.0", "id": n}, r) for n, r in enumerate(results + hovers)]
                docs = [(field, wrapper, value, {**wrapper, field: conv.unstructure(list(value) if isinstance(value, list) else value)})
                        for field, wrapper, value in messages]
                t0 = _clock()
                for field, _wrapper, value, doc in docs:  # RunwayProtocol._send_data
                    if is_redacted(value):
                        redact_doc({k: v for k, v in doc.items() if k != field}, _KEEP_VERBATIM)
                    else:
                        redact_doc(doc, _KEEP_VERBATIM)
                took[way].append(built + _clock() - t0)
                del field, _wrapper, value, doc  # (as above: the outline is freed here, untimed)
    a = statistics.median(analyses)
    print(f"files: {len(an.files)}, diagnostics {sum(len(v) for v in diags.values())}, lenses {len(lenses)}, hints {len(hints)}, "
          f"outline {len(outline)} top-level symbols")
    print(f"analysis per keystroke: {a * 1000:.1f} ms (median of {args.repeat}; {'wall clock' if args.wall else 'CPU time'})")
    for way, label in (("walk", "walk every message (before)"), ("source", "at the source (now)")):
        r = statistics.median(took[way][1:] or took[way])
        print(f"{label:>28}: first keystroke (memo empty) {took[way][0] * 1000:.2f} ms, ratio {took[way][0] / analyses[0]:.3f}; "
              f"per keystroke {r * 1000:.2f} ms (median), ratio to the analysis {r / a:.3f}")

if __name__ == "__main__":
    main()
