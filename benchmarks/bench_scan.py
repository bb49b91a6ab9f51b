"""The workspace scan at scale: a product of N member runways, the server started on its folder.

Over a real stdio client (benchmarks/lspclient.py), for each N of ``--members`` (default
300, 1,000, 2,000, 50,000):

- **open → hover**: right after ``initialized`` (the scan starts), one member is opened and
  hovered: milliseconds from its ``didOpen`` to the hover's answer (the product's analysis is
  part of it: the member's answers need it);
- **outline of the root**: ``textDocument/documentSymbol`` of the root, opened after the
  member: milliseconds to the answer (with 50,000 members the issue's server gave none in 60 s);
- **during the scan**: a small other product is opened first, then hovered every 20 ms
  until the scan has published the big product: p50/p95 of those hovers (the target is
  ≤ 100 ms p95: requests for open documents are served between the scan's steps);
- **RW155**: whether the root got the member cap's diagnostic (past 1,000 members).

Run: ``.venv/bin/python benchmarks/bench_scan.py [--members 300,1000,2000,50000] [--json F]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fmt, server_command, summary  # noqa: E402
from lspclient import LspClient  # noqa: E402

OTHER = "runway: 1\nproduct: other\nregion: us-east-1\nenvironments:\n  dev: {}\n"


def make_product(ws: Path, n: int) -> tuple[Path, Path]:
    """``ws/product/runway.yaml`` listing ``n`` members (each a one-line member runway) and
    ``ws/other/runway.yaml``; returns (root, first member)."""
    root = ws / "product" / "runway.yaml"
    root.parent.mkdir(parents=True)
    lines = ["runway: 1", "product: big", "region: us-east-1", "members:"]
    for i in range(n):
        lines.append(f"  - services/svc-{i:05d}")
        folder = root.parent / "services" / f"svc-{i:05d}"
        folder.mkdir(parents=True)
        (folder / "runway.yaml").write_text(f"runway: 1\nmember: svc-{i:05d}\n")
    lines += ["environments:", "  dev: {}", "resources:", "  main-db: {kind: postgres}"]
    root.write_text("\n".join(lines) + "\n")
    (ws / "other").mkdir()
    (ws / "other" / "runway.yaml").write_text(OTHER)
    return root, root.parent / "services" / "svc-00000" / "runway.yaml"


async def measure(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        t0 = time.perf_counter()
        root, member = make_product(ws, n)
        made_s = time.perf_counter() - t0
        client = LspClient(server_command(), cwd=tmp)
        await client.start()
        res: dict[str, Any] = {"members": n, "generate_s": made_s}
        try:
            big_published = client.wait_publish(lambda p: p.uri == root.as_uri())
            await client.initialize(ws.as_uri())
            other = (ws / "other" / "runway.yaml").as_uri()
            client.notify("textDocument/didOpen", {"textDocument": {"uri": other, "languageId": "runway", "version": 1, "text": OTHER}})
            # The member, right after initialized: open -> hover.
            sent = client.notify("textDocument/didOpen", {"textDocument": {"uri": member.as_uri(), "languageId": "runway", "version": 1,
                                                                           "text": member.read_text()}})
            during: list[float] = []

            async def hover_other() -> None:
                while not big_published.done():
                    _r, dt = await client.timed_request("textDocument/hover", {"textDocument": {"uri": other}, "position": {"line": 1, "character": 10}})
                    during.append(dt * 1000)
                    await asyncio.sleep(0.02)

            poller = asyncio.create_task(hover_other())
            await client.timed_request("textDocument/hover", {"textDocument": {"uri": member.as_uri()}, "position": {"line": 1, "character": 9}})
            res["open_to_hover_ms"] = (client.last_response_at - sent) * 1000
            text = root.read_text()
            client.notify("textDocument/didOpen", {"textDocument": {"uri": root.as_uri(), "languageId": "runway", "version": 1, "text": text}})
            _r, dt = await asyncio.wait_for(client.timed_request("textDocument/documentSymbol", {"textDocument": {"uri": root.as_uri()}}), 300)
            res["outline_ms"] = dt * 1000
            res["outline_symbols"] = len(_r or [])
            pub = await asyncio.wait_for(big_published, 300)
            await poller
            res["during_scan_hover_ms"] = summary(during)
            res["rw155"] = any(d.get("code") == "RW155" for p in client.publishes if p.uri == root.as_uri() for d in p.diagnostics)
            res["root_diagnostics"] = pub.count
            res["rss_mb"] = client.rss_mb()
        finally:
            await client.stop()
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", default="300,1000,2000,50000", help="comma-separated product sizes")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    out = []
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    for n in (int(x) for x in a.members.split(",")):
        r = asyncio.run(measure(n))
        out.append(r)
        print(f"{n:>6} members: open->hover {r['open_to_hover_ms']:.0f} ms, outline {r['outline_ms']:.0f} ms ({r['outline_symbols']} symbols), "
              f"hovers during the scan {fmt(r['during_scan_hover_ms'])}, RW155 {'yes' if r['rw155'] else 'no'}, RSS {r['rss_mb'] or 0:.0f} MiB")
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
