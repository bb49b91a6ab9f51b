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

``--requests``: requests for open documents while the scan analyses a big product (issue 16
item 7). Over a real stdio client (benchmarks/lspclient.py), for each N of ``--members`` (default 300
and 1,000) and each scenario, ``--rounds`` server starts (the scenarios interleaved round by
round). The workspace is a product of N member runways (each member ``requires`` two kinds
and ``uses`` a resource, so that every member is parsed, validated and planned) plus a small
other product. Right after ``initialized`` (the scan starts) one document is opened:

- ``other``: the other product's runway (the scan's big product is not its own);
- ``member``: a member of the very product the scan is analysing.

Then a hover and a ``textDocument/documentSymbol`` (outline) of that document are sent in
turn, one every ~20 ms (each after the answer to the one before), until the scan's
work-done progress ``end`` arrives (**during**: every request sent before it),
and as many again once it has ended (**after**: the same requests of the same server, no
scan running). Reported: p50/p95 of each, and their ratio during/after, the scan's duration
(``initialized`` -> progress ``end``) and when the first answer about the opened document
came (``didOpen`` -> first answer).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_scan.py --requests [--members 300,1000]
[--rounds 2] [--json F]``; measure other code with ``PYTHONPATH=that/checkout``.
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

from common import fmt, pct, server_command, summary  # noqa: E402
from lspclient import LspClient, client_capabilities  # noqa: E402

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


OTHER_WITH_QUEUE = OTHER + "resources:\n  jobs: {kind: queue}\n"
KINDS = ("postgres", "queue", "topic", "cache", "bucket")
SCENARIOS = ("other", "member")
INTERVAL_S = 0.02
SCAN_TIMEOUT_S = 600.0


def make_workspace(ws: Path, n: int) -> tuple[Path, Path, Path]:
    """``ws/product/runway.yaml`` (product ``big``: 20 resources, 2 environments) listing
    ``n`` members ``services/svc-NNNNN`` (each requires two kinds and uses one resource), and
    ``ws/other/runway.yaml``. Returns (root, first member, other)."""
    root = ws / "product" / "runway.yaml"
    root.parent.mkdir(parents=True)
    resources = [f"{KINDS[i % 5]}-{i}" for i in range(20)]
    lines = ["runway: 1", "product: big", "region: us-east-1", "members:"]
    lines += [f"  - services/svc-{i:05d}" for i in range(n)]
    lines += ["environments:", "  dev: {}", "  production:", "    limits: {monthly: 100000}", "resources:"]
    lines += [f"  {name}: {{kind: {name.split('-')[0]}, size: {{production: medium}}}}" for name in resources]
    root.write_text("\n".join(lines) + "\n")
    for i in range(n):
        folder = root.parent / "services" / f"svc-{i:05d}"
        folder.mkdir(parents=True)
        (folder / "runway.yaml").write_text(
            f"runway: 1\nmember: svc-{i:05d}\nrequires: [{KINDS[i % 5]}, {KINDS[(i + 2) % 5]}]\nuses: [{resources[i % 20]}]\n")
    other = ws / "other" / "runway.yaml"
    other.parent.mkdir()
    other.write_text(OTHER_WITH_QUEUE)
    return root, root.parent / "services" / "svc-00000" / "runway.yaml", other


class ScanClient(LspClient):
    """The benchmark client, told of the scan's work-done progress (``$/progress``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.progress_end: asyncio.Future | None = None
        self.progress_end_at = 0.0

    def _dispatch(self, msg: dict[str, Any], at: float) -> None:
        if msg.get("method") == "$/progress" and (msg.get("params") or {}).get("value", {}).get("kind") == "end":
            if self.progress_end is not None and not self.progress_end.done():
                self.progress_end_at = at
                self.progress_end.set_result(at)
        super()._dispatch(msg, at)


async def measure_requests(n: int, scenario: str, ws: Path, files: tuple[Path, Path, Path]) -> dict[str, Any]:
    root, member, other = files
    doc = other if scenario == "other" else member
    client = ScanClient(server_command(), cwd=str(ws))
    await client.start()
    res: dict[str, Any] = {"members": n, "scenario": scenario}
    try:
        client.progress_end = asyncio.get_running_loop().create_future()
        caps = client_capabilities()
        caps["window"] = {"workDoneProgress": True}
        await client.timed_request("initialize", {
            "processId": os.getpid(), "rootUri": ws.as_uri(), "workspaceFolders": [{"uri": ws.as_uri(), "name": "bench"}],
            "capabilities": caps, "clientInfo": {"name": "runway-bench", "version": "1"}})
        uri = doc.as_uri()
        # The server loads runway's modules right after answering initialize, before it
        # handles `initialized` (which starts the scan): wait for that load with a request
        # about a document not open, so that no figure below includes the start-up.
        await client.timed_request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
        started = client.notify("initialized", {})
        opened = client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "runway", "version": 1,
                                                                         "text": doc.read_text()}})
        hover = ("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 10}})
        outline = ("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        samples: dict[str, dict[str, list[float]]] = {"during": {"hover": [], "outline": []}, "after": {"hover": [], "outline": []}}
        first_answer = None
        i = 0
        while not client.progress_end.done():
            method, params = (hover, outline)[i % 2]
            _r, dt = await asyncio.wait_for(client.timed_request(method, params), SCAN_TIMEOUT_S)
            if first_answer is None:
                first_answer = client.last_response_at - opened
            # Sent before the end arrived: a request of the scan's time, however late answered
            # (a request the scan held up is answered after the end).
            if not client.progress_end.done() or client.last_response_at - dt < client.progress_end_at:
                samples["during"]["hover" if i % 2 == 0 else "outline"].append(dt * 1000)
            i += 1
            await asyncio.sleep(INTERVAL_S)
        res["scan_s"] = client.progress_end_at - started
        await asyncio.sleep(0.3)  # the scan's last publications
        count = max(20, len(samples["during"]["hover"]) + len(samples["during"]["outline"]))
        for j in range(count):
            method, params = (hover, outline)[j % 2]
            _r, dt = await client.timed_request(method, params)
            samples["after"]["hover" if j % 2 == 0 else "outline"].append(dt * 1000)
            await asyncio.sleep(INTERVAL_S)
        res["first_answer_ms"] = (first_answer or 0) * 1000
        res["samples"] = samples
        res["rss_mb"] = client.rss_mb()
    finally:
        await client.stop()
    return res


def ratio(during: list[float], after: list[float], p: float) -> float:
    a = pct(after, p)
    return pct(during, p) / a if during and a > 0 else float("nan")


def report_requests(n: int, scenario: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Pool the rounds of one (members, scenario): summaries and during/after ratios."""
    out: dict[str, Any] = {"members": n, "scenario": scenario, "rounds": len(runs),
                           "scan_s": [r["scan_s"] for r in runs], "first_answer_ms": [r["first_answer_ms"] for r in runs]}
    for kind in ("hover", "outline", "all"):
        pick = (lambda r, ph: r["samples"][ph]["hover"] + r["samples"][ph]["outline"]) if kind == "all" else (lambda r, ph, k=kind: r["samples"][ph][k])
        during = [x for r in runs for x in pick(r, "during")]
        after = [x for r in runs for x in pick(r, "after")]
        out[kind] = {"during": summary(during), "after": summary(after),
                     "ratio_p50": ratio(during, after, 50), "ratio_p95": ratio(during, after, 95)}
    return out


def main_requests(a: argparse.Namespace) -> None:
    load = os.getloadavg()
    print(f"code under test: PYTHONPATH={os.environ.get('PYTHONPATH', '')}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    results = []
    for n in (int(x) for x in (a.members or "300,1000").split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            files = make_workspace(Path(tmp), n)
            runs: dict[str, list[dict[str, Any]]] = {s: [] for s in a.scenarios.split(",")}
            for _round in range(a.rounds):
                for scenario in runs:
                    runs[scenario].append(asyncio.run(measure_requests(n, scenario, Path(tmp), files)))
        for scenario, rs in runs.items():
            r = report_requests(n, scenario, rs)
            results.append(r)
            print(f"{n:>5} members, open {scenario}: scan {', '.join(f'{s:.1f}' for s in r['scan_s'])} s; "
                  f"didOpen -> first answer {', '.join(f'{x:.0f}' for x in r['first_answer_ms'])} ms")
            for kind in ("hover", "outline", "all"):
                k = r[kind]
                print(f"      {kind:<7} during {fmt(k['during'])}\n              after  {fmt(k['after'])}\n"
                      f"              ratio during/after p50 {k['ratio_p50']:.2f}x, p95 {k['ratio_p95']:.2f}x")
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if a.json:
        a.json.write_text(json.dumps({"load_end": load, "results": results}, indent=1))



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", default=None, help="comma-separated product sizes (default 300,1000,2000,50000; with --requests 300,1000)")
    ap.add_argument("--requests", action="store_true", help="requests for open documents during the scan, against the same requests after it")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS), help="with --requests: other, member (comma-separated)")
    ap.add_argument("--rounds", type=int, default=2, help="with --requests: server starts per (size, scenario), interleaved")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    if a.requests:
        main_requests(a)
        return
    out = []
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    for n in (int(x) for x in (a.members or "300,1000,2000,50000").split(",")):
        r = asyncio.run(measure(n))
        out.append(r)
        print(f"{n:>6} members: open->hover {r['open_to_hover_ms']:.0f} ms, outline {r['outline_ms']:.0f} ms ({r['outline_symbols']} symbols), "
              f"hovers during the scan {fmt(r['during_scan_hover_ms'])}, RW155 {'yes' if r['rw155'] else 'no'}, RSS {r['rss_mb'] or 0:.0f} MiB")
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
