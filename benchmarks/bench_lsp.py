"""Server start-up, request latency and memory of runway-lsp on a large workspace.

Over a real stdio client (benchmarks/lspclient.py):

- **start**: spawn -> the ``initialize`` response, median of ``--starts`` fresh processes;
- **requests** on the generated ~3,200-line root (or ``--root``: any workspace, its text sent
  as on disk, CRLF kept), after its diagnostics are published: ``textDocument/hover`` (resource,
  workload and environment names, sizes), ``textDocument/completion`` (sizes, ``uses`` items,
  kinds), ``textDocument/codeLens`` and ``textDocument/inlayHint``, each ``--requests`` times,
  p50/p95 of send -> response. The places come from benchmarks/scan.py (block and flow styles,
  trailing comments, CRLF);
- **completion after a keystroke**: a ``didChange`` typing one character where a ``uses``
  item starts (where a size starts when the file has no ``uses`` list), immediately followed by
  a completion there (what an editor sends): the answer includes the analysis of the new text;
- **memory**: the server's VmRSS (/proc) after all of that.

A measure the file offers no place for prints ``not measured`` and a WARNING.

Run: ``.venv/bin/python benchmarks/bench_lsp.py [--scale 1] [--seed N] [--root PATH]
[--starts 10] [--requests 100] [--json F]``. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fmt, read_source, resolve_root, server_command, summary  # noqa: E402
from generate import DEFAULT_SEED, generate  # noqa: E402
from lspclient import LspClient  # noqa: E402
from scan import scan, u16  # noqa: E402

REQUEST_KINDS = ("hover", "completion", "completion_after_keystroke", "codeLens", "inlayHint")


BARE = Path(__file__).resolve().parent / "bare_server.py"
SMALL = "runway: 1\nproduct: small\nregion: us-east-1\nenvironments:\n  dev: {}\n"


async def _one_start(cmd: list[str], tmp: str, env: dict | None, diagnostics: bool) -> tuple[float, float | None]:
    """(spawn -> initialize response, spawn -> first diagnostics of a file opened right
    after ``initialized``) in ms; the second None when not asked or not a runway server."""
    client = LspClient(cmd, cwd=tmp, env=env)
    await client.start()
    try:
        init = await client.initialize(Path(tmp).as_uri()) * 1000
        first = None
        if diagnostics:
            uri = (Path(tmp) / "runway.yaml").as_uri()
            pub = client.wait_publish(lambda p: p.uri == uri)
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "runway", "version": 1, "text": SMALL}})
            got = await asyncio.wait_for(pub, 60)
            first = (got.at - client.spawned_at) * 1000
        return init, first
    finally:
        await client.stop()


async def measure_start(n: int, base_pythonpath: str | None = None) -> dict[str, list]:
    """``n`` fresh servers of each kind, interleaved (ours, the bare pygls floor, and with
    ``base_pythonpath`` ours from that tree): spawn -> initialize response (ms), and for the
    runway servers spawn -> the first diagnostics of a file opened after ``initialized``."""
    import os

    kinds: dict[str, tuple[list[str], dict | None, bool]] = {
        "runway": (server_command(), None, True),
        "bare": ([sys.executable, str(BARE)], None, False),
    }
    if base_pythonpath:
        kinds["base"] = (server_command(), {**os.environ, "PYTHONPATH": base_pythonpath}, True)
    out: dict[str, list] = {k: [] for k in kinds}
    out.update({f"{k}_first_diagnostics": [] for k in kinds})
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(n):
            for k, (cmd, env, diags) in kinds.items():
                init, first = await _one_start(cmd, tmp, env, diags)
                out[k].append(init)
                if first is not None:
                    out[f"{k}_first_diagnostics"].append(first)
    return out


def report_start(st: dict[str, list], out=sys.stdout) -> dict[str, Any]:
    """Print the start-up figures and the ratios of medians (same run, interleaved)."""
    import statistics

    figures: dict[str, Any] = {}
    for k, v in st.items():
        if v:
            figures[k] = summary(v)
            print(f"{'start ' + k:>30}: {fmt(summary(v), p95=False)}", file=out)
    ratio = statistics.median(st["runway"]) / statistics.median(st["bare"])
    figures["ratio_to_bare"] = ratio
    print(f"{'start ratio runway / bare':>30}: {ratio:.2f}x (target <= 1.15x)", file=out)
    if st.get("base"):
        moved = statistics.median(st["base"]) - statistics.median(st["runway"])
        slower = statistics.median(st["runway_first_diagnostics"]) - statistics.median(st["base_first_diagnostics"])
        figures["initialize_moved_ms"], figures["first_diagnostics_later_ms"] = moved, slower
        print(f"{'initialize earlier than base':>30}: {moved:.0f} ms; first diagnostics later by {slower:.0f} ms", file=out)
    return figures


def _positions(text: str) -> dict[str, list[tuple[int, int]]]:
    """Where to hover and complete, found in the text by benchmarks/scan.py (any runway: CRLF,
    comments, block and flow styles); columns in UTF-16 code units, as sent."""
    places = scan(text)
    lines = places.lines

    def at(line: int, col: int) -> tuple[int, int]:
        return line, u16(lines[line], col)

    hov = [at(sp.line, sp.start + 1) for sec in ("environments", "resources", "workloads") for sp in places.entries.get(sec, [])]
    hov += [at(sp.line, sp.start + 1) for sp in places.sizes]  # a size
    hov.sort()
    return {
        "hover": hov,
        "size": [at(sp.line, sp.end) for sp in places.sizes],  # after the size typed
        "size_start": [at(sp.line, sp.start) for sp in places.sizes],
        # where a list's first item starts (inside `[]` for an empty flow list)
        "uses": [at(line, col) for ul in places.uses for line, col in (ul.items[:1] or ([ul.close] if ul.close else []))],
        "kind": [at(sp.line, sp.end) for sp in places.kinds],
    }


def _spread(items: list, n: int) -> list:
    if not items:
        return []
    return [items[(i * 7919) % len(items)] for i in range(n)]


async def measure_requests(root: Path, n: int) -> dict[str, Any]:
    client = LspClient(server_command(), cwd=str(root.parent), settings={"runway": {}})
    await client.start()
    uri = root.as_uri()
    td = {"uri": uri}
    res: dict[str, Any] = {}
    try:
        await client.initialize(root.parent.as_uri())
        text = read_source(root)  # CRLF kept, as an editor sends it
        first = client.wait_publish(lambda p: p.uri == uri)
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "runway", "version": 0, "text": text}})
        await asyncio.wait_for(first, 60)
        await asyncio.sleep(0.5)
        pos = _positions(text)
        nlines = text.count("\n") + 1

        async def timed(method: str, params: dict) -> float:
            _r, dt = await client.timed_request(method, params)
            return dt * 1000

        hover = [await timed("textDocument/hover", {"textDocument": td, "position": {"line": l, "character": c}}) for l, c in _spread(pos["hover"], n)]
        res["hover"] = hover
        comp: list[float] = []
        kinds = [k for k in ("size", "uses", "kind") if pos[k]]
        res["completion_places"] = {k: len(pos[k]) for k in ("size", "uses", "kind")}
        for i in range(n if kinds else 0):
            l, c = _spread(pos[kinds[i % len(kinds)]], n)[i]
            comp.append(await timed("textDocument/completion", {"textDocument": td, "position": {"line": l, "character": c}}))
        res["completion"] = comp
        res["codeLens"] = [await timed("textDocument/codeLens", {"textDocument": td}) for _ in range(max(5, n // 4))]
        res["inlayHint"] = [await timed("textDocument/inlayHint", {"textDocument": td, "range": {"start": {"line": 0, "character": 0}, "end": {"line": min(nlines, 120), "character": 0}}})
                            for _ in range(max(5, n // 4))]
        # Completion right after a keystroke: didChange then completion at once (no wait): a
        # character typed where a `uses` item starts (else where a size starts).
        after: list[float] = []
        version = 0
        where = "uses" if pos["uses"] else "size_start" if pos["size_start"] else None
        res["after_keystroke_at"] = where
        targets = _spread(pos[where], n) if where else []
        for l, c in targets[: max(5, n // 2)]:
            version += 1
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"range": {"start": {"line": l, "character": c}, "end": {"line": l, "character": c}}, "text": "p"}]})
            after.append(await timed("textDocument/completion", {"textDocument": td, "position": {"line": l, "character": c + 1},
                                                                 "context": {"triggerKind": 1}}))
            version += 1
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"range": {"start": {"line": l, "character": c}, "end": {"line": l, "character": c + 1}}, "text": ""}]})
            await asyncio.sleep(0.15)  # typing pace: the next keystroke comes later
        res["completion_after_keystroke"] = after
        await asyncio.sleep(0.3)
        res["rss_mb"] = client.rss_mb()
    finally:
        await client.stop()
    return res


def report_requests(res: dict[str, Any], out=sys.stdout) -> list[str]:
    """Print the request figures of :func:`measure_requests`; returns the WARNING lines."""
    warnings = []
    if not res.get("hover"):
        warnings.append("WARNING: hover not measured: no entry name or size found in the file")
    if not res.get("completion"):
        warnings.append("WARNING: completion not measured: no size, `uses` item or kind found in the file")
    if not res.get("completion_after_keystroke"):
        warnings.append("WARNING: completion after a keystroke not measured: no `uses` item or size found in the file")
    elif res.get("after_keystroke_at") != "uses":
        warnings.append("WARNING: no `uses` list in the file: completion after a keystroke typed into sizes instead")
    for k in REQUEST_KINDS:
        print(f"{k:>30}: {fmt(summary(res.get(k, [])))}", file=out)
    places = res.get("completion_places")
    if places:
        print(f"{'(completion places found)':>30}: " + ", ".join(f"{v} {k}" for k, v in places.items()), file=out)
    for w in warnings:
        print(w, file=out)
    return warnings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=1, help="generated workspace scale (default 1: ~3,200-line root)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the generated workspace (default {DEFAULT_SEED})")
    ap.add_argument("--root", type=Path, default=None, help="measure on this workspace instead of a generated one: its root runway file or its folder")
    ap.add_argument("--starts", type=int, default=10, help="fresh servers of each kind started for the start-up time")
    ap.add_argument("--base-pythonpath", default=None, help="also start runway-lsp with this PYTHONPATH (an older tree), interleaved")
    ap.add_argument("--no-requests", action="store_true", help="start-up only")
    ap.add_argument("--requests", type=int, default=100, help="requests of each kind (code lens, inlay hints: a quarter; after a keystroke: half)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    a = ap.parse_args()
    out: dict[str, Any] = {}
    import os

    print(f"{'load average':>30}: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    starts = asyncio.run(measure_start(a.starts, a.base_pythonpath))
    out["start"] = report_start(starts)
    out["start_ms"] = out["start"]["runway"]
    if a.no_requests:
        if a.json:
            a.json.write_text(json.dumps(out, indent=1))
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = resolve_root(a.root) if a.root else generate(Path(tmp) / f"x{a.scale}", a.scale, a.seed)
        print(f"{'workspace':>30}: {root}")
        res = asyncio.run(measure_requests(root, a.requests))
    report_requests(res)
    if res.get("hover") and res.get("completion_after_keystroke"):
        ratio = summary(res["completion_after_keystroke"])["p95"] / summary(res["hover"])["p95"]
        out["completion_after_keystroke_p95_over_hover_p95"] = ratio
        print(f"{'after-keystroke p95 / hover p95':>30}: {ratio:.1f}x (target: after-keystroke p95 <= 50 ms)")
    for k in REQUEST_KINDS:
        out[k] = summary(res[k])
    out["rss_mb"] = res["rss_mb"]
    print(f"{'RSS after':>30}: {res['rss_mb']:.0f} MiB" if res["rss_mb"] else f"{'RSS after':>30}: not measured (no /proc)")
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
