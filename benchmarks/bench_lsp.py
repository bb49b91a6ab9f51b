"""Server start-up, request latency and memory of runway-lsp on a large workspace.

Over a real stdio client (benchmarks/lspclient.py):

- **start**: spawn -> the ``initialize`` response, median of ``--starts`` fresh processes;
- **requests** on the generated ~3,200-line root (or ``--root``), after its diagnostics are
  published: ``textDocument/hover`` (resource and workload names, sizes, environments),
  ``textDocument/completion`` (sizes, ``uses`` items, kinds), ``textDocument/codeLens`` and
  ``textDocument/inlayHint``, each ``--requests`` times, p50/p95 of send -> response;
- **completion after a keystroke**: a ``didChange`` typing one character into a ``uses`` list,
  immediately followed by a completion there (what an editor sends): the answer includes the
  analysis of the new text;
- **memory**: the server's VmRSS (/proc) after all of that.

Run: ``python benchmarks/bench_lsp.py [--scale 1] [--starts 10] [--requests 100] [--json F]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fmt, server_command, summary  # noqa: E402
from generate import generate  # noqa: E402
from lspclient import LspClient  # noqa: E402


async def measure_start(n: int) -> list[float]:
    """Seconds from spawn to the initialize response, ``n`` fresh servers (ms)."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(n):
            client = LspClient(server_command(), cwd=tmp)
            await client.start()
            try:
                out.append(await client.initialize(Path(tmp).as_uri()) * 1000)
            finally:
                await client.stop()
    return out


def _positions(text: str) -> dict[str, list[tuple[int, int]]]:
    """Where to hover and complete, found in the text (works on any runway)."""
    lines = text.split("\n")
    hov: list[tuple[int, int]] = []
    comp_size: list[tuple[int, int]] = []
    comp_uses: list[tuple[int, int]] = []
    comp_kind: list[tuple[int, int]] = []
    section = None
    for i, line in enumerate(lines):
        if m := re.match(r"^([a-z][\w-]*):", line):
            section = m.group(1)
            continue
        if section in ("resources", "workloads", "environments") and (m := re.match(r"^  ([a-z][\w-]*):\s*$", line)):
            hov.append((i, 3))  # an entry or environment name
        if m := re.match(r"^(\s+[a-z][\w-]*: )(small|medium|large)\s*$", line):
            hov.append((i, len(m.group(1)) + 1))  # a size
            comp_size.append((i, len(m.group(1)) + len(m.group(2))))
        if m := re.match(r"^(\s+uses: \[)", line):
            comp_uses.append((i, len(m.group(1))))
        if m := re.match(r"^(\s+kind: )\w+\s*$", line):
            comp_kind.append((i, len(line.rstrip())))
    return {"hover": hov, "size": comp_size, "uses": comp_uses, "kind": comp_kind}


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
        text = root.read_text()
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
        for i in range(n):
            l, c = _spread(pos[kinds[i % len(kinds)]], n)[i]
            comp.append(await timed("textDocument/completion", {"textDocument": td, "position": {"line": l, "character": c}}))
        res["completion"] = comp
        res["codeLens"] = [await timed("textDocument/codeLens", {"textDocument": td}) for _ in range(max(5, n // 4))]
        res["inlayHint"] = [await timed("textDocument/inlayHint", {"textDocument": td, "range": {"start": {"line": 0, "character": 0}, "end": {"line": min(nlines, 120), "character": 0}}})
                            for _ in range(max(5, n // 4))]
        # Completion right after a keystroke: didChange then completion at once (no wait).
        after: list[float] = []
        version = 0
        targets = _spread(pos["uses"], n) if pos["uses"] else []
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--requests", type=int, default=100)
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    out: dict[str, Any] = {}
    starts = asyncio.run(measure_start(a.starts))
    out["start_ms"] = summary(starts)
    print(f"{'start (spawn->initialize)':>30}: {fmt(summary(starts), p95=False)}")
    with tempfile.TemporaryDirectory() as tmp:
        root = a.root.resolve() if a.root else generate(Path(tmp) / f"x{a.scale}", a.scale)
        res = asyncio.run(measure_requests(root, a.requests))
    for k in ("hover", "completion", "completion_after_keystroke", "codeLens", "inlayHint"):
        out[k] = summary(res[k])
        print(f"{k:>30}: {fmt(out[k])}")
    out["rss_mb"] = res["rss_mb"]
    print(f"{'RSS after':>30}: {res['rss_mb']:.0f} MiB" if res["rss_mb"] else "RSS: n/a")
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
