"""Keystroke latency: didChange -> publishDiagnostics, our server beside yaml-language-server.

A real LSP client over stdio (benchmarks/lspclient.py) opens the root runway of a generated
workspace (or ``--root`` of any workspace) and replays realistic incremental edits, one
``textDocument/didChange`` (one range edit, the way editors send keystrokes) at a time:

- typing a size character by character (backspaces over ``small``, then ``l``, ``la``, ...);
- editing a workload's ``uses`` list (typing ``, <resource name>`` key by key, then deleting it);
- adding a workload block line by line at the end of the ``workloads`` section.

For each edit it measures the time from writing the didChange to reading the first
``textDocument/publishDiagnostics`` of that document whose version is that edit's (or which
carries no version, as yaml-language-server's do), then waits ``--gap`` before the next
keystroke. The same replay then runs against yaml-language-server 1.25 (benchmarks/.peer,
``npm install yaml-language-server@1.25``) validating the same file with the JSON Schema
exported from our model, configured through ``workspace/configuration`` (``yaml.schemas``).
Both servers publish after a delay of their own (ours: ``DEBOUNCE_S``; theirs: 200 ms); it
is part of what a user waits for, so both are measured the same way, delay included.

Run: ``python benchmarks/bench_keystrokes.py [--scale 1] [--edits 210] [--rounds 2]
[--gap 0.05] [--no-peer] [--json FILE]``. Prints p50/p95 per server and the ratio; asserts
nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import export_schema, fmt, peer_command, peer_version, server_command, summary  # noqa: E402
from generate import generate  # noqa: E402
from lspclient import LspClient  # noqa: E402

# --- the edits ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """Replace [(l0, c0), (l1, c1)) with ``text`` (ASCII only: UTF-16 = code points)."""

    l0: int
    c0: int
    l1: int
    c1: int
    text: str
    kind: str  # size | uses | workload


class _Doc:
    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")

    def apply(self, e: Edit) -> None:
        before = self.lines[e.l0][: e.c0]
        after = self.lines[e.l1][e.c1 :]
        new = (before + e.text + after).split("\n")
        self.lines[e.l0 : e.l1 + 1] = new

    def text(self) -> str:
        return "\n".join(self.lines)


_SECTION = re.compile(r"^([A-Za-z_][\w-]*):")
_SIZE_LINE = re.compile(r"^(\s+)(?:size|[a-z][\w-]*): (small|medium|large|xlarge)\s*$")
_USES_LINE = re.compile(r"^(\s+)uses: \[(.*)\]\s*$")
_SIZES = ("small", "medium", "large")


def _sections(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Top-level key -> (first line, end line exclusive)."""
    starts = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _SECTION.match(line))]
    out = {}
    for j, (i, name) in enumerate(starts):
        out[name] = (i, starts[j + 1][0] if j + 1 < len(starts) else len(lines))
    return out


def _spread(items: list[Any], n: int) -> list[Any]:
    if n <= 0 or not items:
        return []
    if n >= len(items):
        return list(items)
    return [items[int(i * (len(items) - 1) / max(1, n - 1))] for i in range(n)]


def make_edits(text: str, count: int = 210) -> list[Edit]:
    """At least ``count`` edits (fewer only if the file offers no place for them), in three
    scenarios interleaved: size typing, uses editing, a workload added line by line."""
    doc = _Doc(text)
    secs = _sections(doc.lines)
    res = secs.get("resources", (0, len(doc.lines)))
    wl = secs.get("workloads", (0, len(doc.lines)))
    names = [m.group(1) for line in doc.lines[res[0] : res[1]] if (m := re.match(r"^  ([a-z][\w-]*):\s*$", line))]
    size_lines = [i for i in range(*res) if _SIZE_LINE.match(doc.lines[i])]
    uses_lines = [i for i in range(*wl) if _USES_LINE.match(doc.lines[i])]
    n_rounds = max(1, count // 60 + 1)
    sizes = _spread(size_lines, 3 * n_rounds)
    uses = _spread(uses_lines, 2 * n_rounds)
    edits: list[Edit] = []
    added = 0

    def size_edit(line_no: int) -> None:
        line = doc.lines[line_no]
        m = _SIZE_LINE.match(line)
        if m is None:
            return
        old = m.group(2)
        new = _SIZES[(_SIZES.index(old) + 1) % 3] if old in _SIZES else "small"
        end = line.index(old) + len(old)
        for k in range(len(old)):  # backspaces
            e = Edit(line_no, end - k - 1, line_no, end - k, "", "size")
            doc.apply(e)
            edits.append(e)
        start = end - len(old)
        for k, ch in enumerate(new):
            e = Edit(line_no, start + k, line_no, start + k, ch, "size")
            doc.apply(e)
            edits.append(e)

    def uses_edit(line_no: int, j: int) -> None:
        line = doc.lines[line_no]
        if _USES_LINE.match(line) is None or not names:
            return
        col = line.rindex("]")
        word = ", " + names[(j * 37) % len(names)]
        for k, ch in enumerate(word):
            e = Edit(line_no, col + k, line_no, col + k, ch, "uses")
            doc.apply(e)
            edits.append(e)
        # then delete the added item with backspaces over the name, then the ", " (2 at a time)
        end = col + len(word)
        k = len(word)
        while k > 0:
            step = 1 if k > 2 else k
            e = Edit(line_no, end - step, line_no, end, "", "uses")
            doc.apply(e)
            edits.append(e)
            end -= step
            k -= step

    def workload_edit(j: int) -> int:
        # insert before the end of the workloads section (recomputed: earlier blocks moved it)
        s = _sections(doc.lines).get("workloads")
        at = s[1] if s else len(doc.lines)
        while at > 0 and doc.lines[at - 1].strip() == "":
            at -= 1
        name = f"bench-new-{j}"
        target = names[(j * 11) % len(names)] if names else "nothing"
        block = [
            f"  {name}:",
            f"    image: registry.example.com/{name}@sha256:{'ab' * 32}",
            "    port: 8080",
            "    health:",
            "      path: /healthz",
            "    env:",
            f"      APP_NAME: {name}",
            "    secrets: [API_TOKEN]",
            "    size:",
            "      production: medium",
            "    scale:",
            "      production: 2",
            f"    uses: [{target}]",
            "    expose: internal",
            '    reason: "residency: tenants in an in-country region keep data there"',
        ]
        for k, line in enumerate(block):
            e = Edit(at + k, 0, at + k, 0, line + "\n", "workload")
            doc.apply(e)
            edits.append(e)
        return len(block)

    i = 0
    while len(edits) < count:
        before = len(edits)
        # Blocks are appended at the end of `workloads`: lines above never move (uses lines,
        # resources written first); resources written after the workloads move down.
        for ln in sizes[3 * i : 3 * i + 3]:
            size_edit(ln + (added if res[0] > wl[0] else 0))
        for k, ln in enumerate(uses[2 * i : 2 * i + 2]):
            uses_edit(ln, 2 * i + k)
        added += workload_edit(i)
        i += 1
        if len(edits) == before or i > 1000:
            break
    return edits[:count]  # each edit applies to the text the previous ones left: a prefix is valid


def change_params(uri: str, version: int, e: Edit) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": {"start": {"line": e.l0, "character": e.c0}, "end": {"line": e.l1, "character": e.c1}}, "text": e.text}],
    }


# --- one replay ---------------------------------------------------------------------------


async def replay(cmd: list[str], root: Path, edits: list[Edit], *, language_id: str, settings: dict[str, Any],
                 gap: float, timeout: float = 10.0, stderr_path: str | None = None, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Start ``cmd``, open ``root``, replay ``edits``; latencies in ms and RSS after."""
    client = LspClient(cmd, cwd=str(root.parent), settings=settings, stderr_path=stderr_path, env=env)
    await client.start()
    uri = root.as_uri()
    out: dict[str, Any] = {"cmd": " ".join(cmd), "latencies": [], "missed": 0, "diag_counts": []}
    lens_requests: list[asyncio.Task] = []

    def lens_refresh(_params: Any) -> None:
        # As VS Code does: a code lens refresh makes the editor ask for the lenses again.
        lens_requests.append(asyncio.get_running_loop().create_task(client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})))

    client.on_request["workspace/codeLens/refresh"] = lens_refresh
    try:
        # The cost notifications the VS Code extension opts in to (runway/costsChanged): the
        # replay runs with the server's whole per-keystroke feature set.
        out["start_s"] = await client.initialize(root.parent.as_uri(), initialization_options={"runwayCostNotifications": True})
        text = root.read_text()
        first = client.wait_publish(lambda p: p.uri == uri)
        t0 = client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language_id, "version": 0, "text": text}})
        pub = await asyncio.wait_for(first, 60)
        out["open_ms"] = (pub.at - t0) * 1000
        out["open_diagnostics"] = pub.count
        try:  # an editor shows the lenses once open (and again on every refresh)
            await asyncio.wait_for(client.request("textDocument/codeLens", {"textDocument": {"uri": uri}}), 30)
        except Exception:  # noqa: BLE001 - a server without code lenses
            pass
        await asyncio.sleep(0.5)  # let the initial scan and first refreshes settle
        cpu0 = client.cpu_s()
        for v, e in enumerate(edits, start=1):
            fut = client.wait_publish(lambda p, v=v: p.uri == uri and (p.version is None or p.version == v))
            sent = client.notify("textDocument/didChange", change_params(uri, v, e))
            try:
                pub = await asyncio.wait_for(fut, timeout)
            except asyncio.TimeoutError:
                out["missed"] += 1
                continue
            out["latencies"].append((pub.at - sent) * 1000)
            out["diag_counts"].append(pub.count)
            if gap > 0:
                await asyncio.sleep(gap)
        await asyncio.sleep(0.2)
        cpu1 = client.cpu_s()
        if cpu0 is not None and cpu1 is not None and edits:
            out["cpu_ms_per_edit"] = (cpu1 - cpu0) * 1000 / len(edits)
        out["rss_mb"] = client.rss_mb()
        out["server_requests"] = dict(client.server_requests)
        for task in lens_requests:
            task.cancel()
    finally:
        await client.stop()
    return out


def ours_settings() -> dict[str, Any]:
    return {"runway": {}}


def peer_settings(schema_path: Path) -> dict[str, Any]:
    yaml = {
        "validate": True,
        "hover": True,
        "completion": True,
        "format": {"enable": False},
        "schemaStore": {"enable": False},  # no network: only our schema
        "schemas": {schema_path.as_uri(): ["runway.yaml", "**/runway.yaml"]},
    }
    return {"yaml": yaml, "http": {}, "[yaml]": {}, "editor": {}, "files": {}}


async def run(root: Path, edits: list[Edit], rounds: int, gap: float, peer: bool, schema_dir: Path, log_dir: Path | None = None) -> dict[str, Any]:
    """``rounds`` alternating replays (ours, then the peer's) on the same file."""
    results: dict[str, Any] = {"ours": [], "peer": [], "edits": len(edits)}
    peer_cmd = peer_command() if peer else None
    if peer and peer_cmd is None:
        results["peer_note"] = "yaml-language-server is not installed in benchmarks/.peer (npm install yaml-language-server@1.25 there): peer skipped"
    schema = schema_dir / "runway.schema.json"
    if peer_cmd is not None:
        results["schema_from"] = export_schema(schema)
        results["peer_version"] = peer_version()
    for r in range(rounds):
        results["ours"].append(await replay(server_command(), root, edits, language_id="runway", settings=ours_settings(), gap=gap,
                                            stderr_path=str(log_dir / f"ours-{r}.log") if log_dir else None))
        if peer_cmd is not None:
            results["peer"].append(await replay(peer_cmd, root, edits, language_id="yaml", settings=peer_settings(schema), gap=gap,
                                                stderr_path=str(log_dir / f"peer-{r}.log") if log_dir else None))
    return results


def report(results: dict[str, Any], out=sys.stdout) -> dict[str, Any]:
    """Print the figures; returns the summary (per server: all edits pooled, per-round medians)."""
    summ: dict[str, Any] = {"edits": results["edits"]}
    for who in ("ours", "peer"):
        runs = results[who]
        if not runs:
            continue
        pooled = [x for r in runs for x in r["latencies"]]
        s = summary(pooled)
        rounds = [summary(r["latencies"]) for r in runs]
        summ[who] = {
            "pooled": s,
            "round_p50": [x["median"] for x in rounds],
            "round_p95": [x["p95"] for x in rounds],
            "missed": sum(r["missed"] for r in runs),
            "rss_mb": [r.get("rss_mb") for r in runs],
            "cpu_ms_per_edit": [r.get("cpu_ms_per_edit") for r in runs],
            "open_ms": [r.get("open_ms") for r in runs],
            "start_s": [r.get("start_s") for r in runs],
            "publishes_with_diagnostics": sum(1 for r in runs for c in r["diag_counts"] if c),
            "open_diagnostics": [r.get("open_diagnostics") for r in runs],
        }
        name = "runway-lsp" if who == "ours" else f"yaml-language-server {results.get('peer_version')}"
        print(f"{name:>28}: didChange->publishDiagnostics {fmt(s)}; per-round p50 "
              + ", ".join(f"{x:.1f}" for x in summ[who]["round_p50"]) + " ms; p95 " + ", ".join(f"{x:.1f}" for x in summ[who]["round_p95"])
              + f" ms; missed {summ[who]['missed']}; RSS after " + ", ".join(f"{x:.0f}" for x in summ[who]["rss_mb"] if x) + " MiB"
              + "; server CPU per edit " + ", ".join(f"{x:.1f}" for x in summ[who]["cpu_ms_per_edit"] if x is not None) + " ms", file=out)
    if "ours" in summ and "peer" in summ:
        ratio = summ["ours"]["pooled"]["median"] / summ["peer"]["pooled"]["median"]
        summ["ratio_p50"] = ratio
        summ["ratio_p95"] = summ["ours"]["pooled"]["p95"] / summ["peer"]["pooled"]["p95"]
        print(f"{'ratio ours/peer':>28}: p50 {ratio:.2f}, p95 {summ['ratio_p95']:.2f} (schema from {results.get('schema_from')}; "
              f"peer publishes with diagnostics: {summ['peer']['publishes_with_diagnostics']} of {len(results['peer']) * results['edits']})", file=out)
    elif results.get("peer_note"):
        print(f"{'peer':>28}: {results['peer_note']}", file=out)
    else:
        print(f"{'peer':>28}: yaml-language-server not run (--no-peer)", file=out)
    return summ


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=1, help="generated workspace scale (default 1: ~3,200-line root)")
    ap.add_argument("--root", type=Path, default=None, help="replay on this root runway instead of a generated one (edits are made on a copy in memory only)")
    ap.add_argument("--edits", type=int, default=210)
    ap.add_argument("--rounds", type=int, default=2, help="replays per server, alternating ours and the peer's")
    ap.add_argument("--gap", type=float, default=0.05, help="seconds between a publish and the next keystroke")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--json", type=Path, default=None, help="also write the raw figures here")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = a.root.resolve() if a.root else generate(Path(tmp) / f"x{a.scale}", a.scale)
        text = root.read_text()
        edits = make_edits(text, a.edits)
        kinds = {k: sum(1 for e in edits if e.kind == k) for k in ("size", "uses", "workload")}
        print(f"{root} ({text.count(chr(10))} lines): {len(edits)} edits ({', '.join(f'{v} {k}' for k, v in kinds.items())}), gap {a.gap * 1000:.0f} ms, {a.rounds} round(s)")
        t0 = time.perf_counter()
        results = asyncio.run(run(root, edits, a.rounds, a.gap, not a.no_peer, Path(tmp)))
        summ = report(results)
        print(f"({time.perf_counter() - t0:.0f} s)")
        if a.json:
            a.json.write_text(json.dumps({"summary": summ, "raw": results}, indent=1, default=str))


if __name__ == "__main__":
    main()
