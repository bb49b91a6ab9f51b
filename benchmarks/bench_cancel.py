"""Cancellation on a big root (issue 16, item 6): ten ``textDocument/codeLens`` requests on a
root of ``--workloads`` workloads (default 5,000) written at once, nine of them cancelled
right after; then a lens request followed by an edit of its document (superseded).

Prints how many answered RequestCancelled (-32800), ContentModified (-32801) or lenses, and
the time from the write to the last answer, beside the time of one lens request alone (the
floor: what the one request that is not cancelled costs). Asserts nothing.

Run: ``.venv/bin/python benchmarks/bench_cancel.py [--workloads 5000]``.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import server_command  # noqa: E402
from lspclient import LspClient, LspError  # noqa: E402


def big_root(workloads: int) -> str:
    lines = ["runway: 1", "product: big", "region: us-east-1", "environments:", "  dev:", "    limits: {monthly: 100000000}", "workloads:"]
    for i in range(workloads):
        lines += [f"  w{i}:", f"    image: ghcr.io/acme/w{i}:1.0.0", "    port: 8080", "    health: {path: /health}",
                  "    expose: internal", "    reason: \"no-managed-fit: a service of ours\""]
    return "\n".join(lines) + "\n"


async def outcome(fut) -> str:
    try:
        result = await fut
    except LspError as exc:
        return {-32800: "RequestCancelled", -32801: "ContentModified"}.get(json.loads(str(exc)).get("code"), str(exc))
    return f"{len(result or [])} lenses"


async def main_async(workloads: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "runway.yaml"
        text = big_root(workloads)
        root.write_text(text)
        client = LspClient(server_command(), cwd=tmp)
        await client.start()
        try:
            await client.initialize(Path(tmp).as_uri())
            first = client.wait_publish(lambda p: p.uri == root.as_uri())
            client.notify("textDocument/didOpen", {"textDocument": {"uri": root.as_uri(), "languageId": "runway", "version": 1, "text": text}})
            await asyncio.wait_for(first, 600)
            td = {"textDocument": {"uri": root.as_uri()}}
            t = time.perf_counter()
            alone = await outcome(client.request("textDocument/codeLens", td))
            one_s = time.perf_counter() - t
            t = time.perf_counter()
            futs = [asyncio.ensure_future(client.request("textDocument/codeLens", td)) for _ in range(10)]
            await asyncio.sleep(0)
            first_id = client._next_id - 9  # the ten ids just sent
            for i in range(9):
                client.notify("$/cancelRequest", {"id": first_id - 1 + i})
            outs = [await outcome(f) for f in futs]
            ten_s = time.perf_counter() - t
            stale = asyncio.ensure_future(client.request("textDocument/codeLens", td))
            await asyncio.sleep(0)
            client.notify("textDocument/didChange", {"textDocument": {"uri": root.as_uri(), "version": 2}, "contentChanges": [{"text": text + "# edited\n"}]})
            stale_out = await outcome(stale)
        finally:
            await client.stop()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{workloads} workloads: one lens request alone {one_s:.2f} s ({alone})")
    print(f"ten sent, nine cancelled: {ten_s:.2f} s to the last answer ({ten_s / one_s:.2f}x one request); answers: "
          + ", ".join(f"{outs.count(o)} {o}" for o in dict.fromkeys(outs)))
    print(f"a lens request then an edit of its document: {stale_out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", type=int, default=5000)
    asyncio.run(main_async(ap.parse_args().workloads))


if __name__ == "__main__":
    main()
