"""Keystroke latency: didChange -> publishDiagnostics, our server beside yaml-language-server.

A real LSP client over stdio (benchmarks/lspclient.py) opens the root runway of a generated
workspace (or ``--root`` of any workspace; its text sent as on disk, CRLF kept) and replays
realistic incremental edits, one ``textDocument/didChange`` (one range edit, the way editors
send keystrokes) at a time:

- typing a size character by character (backspaces over ``small``, then ``m``, ``me``, ...):
  scalar sizes, block maps and flow maps (``size: {dev: small, production: large}``), trailing
  comments or not;
- editing a workload's ``uses`` list: flow (``, <resource name>`` typed key by key before the
  ``]``, then deleted) or block (Enter after the last item, ``- <name>`` typed, then deleted);
- adding a workload block line by line at the end of the ``workloads`` section.

The places are found by benchmarks/scan.py on any runway; the edit mix is printed, with a
WARNING for a kind of edit the file offers no place for. For each edit it measures the time
from writing the didChange to reading the first ``textDocument/publishDiagnostics`` of that
document whose version is that edit's (or which carries no version, as yaml-language-server's
do), then waits ``--gap`` before the next keystroke. The same replay then runs against
yaml-language-server 1.25 (benchmarks/.peer, ``npm install yaml-language-server@1.25``)
validating the same file with the JSON Schema exported from our model, configured through
``workspace/configuration`` (``yaml.schemas``). Both servers publish after a delay of their
own (ours: ``DEBOUNCE_S``; theirs: 200 ms); it is part of what a user waits for, so both are
measured the same way, delay included.

Run: ``.venv/bin/python benchmarks/bench_keystrokes.py [--scale 1] [--seed N] [--root PATH]
[--edits 210] [--rounds 2] [--gap 0.05] [--no-peer] [--json FILE]``. Prints p50/p95 per
server and the ratio; asserts nothing.
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

from common import export_schema, fmt, peer_command, peer_version, read_source, resolve_root, server_command, summary  # noqa: E402
from generate import DEFAULT_SEED, generate  # noqa: E402
from lspclient import LspClient  # noqa: E402
from scan import SIZE_NAMES, Span, UsesList, body, from_u16, scan, section_insert_line, u16  # noqa: E402

# --- the edits ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """Replace [(l0, c0), (l1, c1)) with ``text``; columns in UTF-16 code units, as sent."""

    l0: int
    c0: int
    l1: int
    c1: int
    text: str
    kind: str  # size | uses | workload


EDIT_KINDS = ("size", "uses", "workload")


class _Doc:
    """The text as the server holds it, edit after edit (lines keep a CRLF file's ``\\r``)."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")

    def apply(self, e: Edit) -> None:
        before = self.lines[e.l0][: from_u16(self.lines[e.l0], e.c0)]
        after = self.lines[e.l1][from_u16(self.lines[e.l1], e.c1) :]
        new = (before + e.text + after).split("\n")
        self.lines[e.l0 : e.l1 + 1] = new

    def text(self) -> str:
        return "\n".join(self.lines)


_SIZE_AT = re.compile("|".join(sorted(SIZE_NAMES, key=len, reverse=True)))
_SIZES = ("small", "medium", "large")


def _spread(items: list[Any], n: int) -> list[Any]:
    if n <= 0 or not items:
        return []
    if n >= len(items):
        return list(items)
    return [items[int(i * (len(items) - 1) / max(1, n - 1))] for i in range(n)]


def make_edits(text: str, count: int = 210) -> list[Edit]:
    """At least ``count`` edits (fewer only if the file offers no place for them), in three
    scenarios interleaved: size typing, uses editing, a workload added line by line.

    The places come from :func:`scan.scan` (CRLF, comments, block and flow styles); a kind of
    edit the file offers no place for is left out (:func:`mix_warnings` says so)."""
    places = scan(text)
    doc = _Doc(text)
    eol = places.eol
    names = [sp.text for sp in places.entries.get("resources", [])]
    envs = [sp.text for sp in places.entries.get("environments", [])]
    env = "production" if "production" in envs or not envs else envs[0]
    # New workloads go at the end of a block-style `workloads:` section (not `workloads: {}`).
    ins0 = None if "workloads" in places.inline_sections else section_insert_line(places.lines, places.sections, "workloads")
    one_per_line: dict[int, Span] = {}
    for sp in places.sizes:  # a flow map's later values move when an earlier one changes length
        one_per_line.setdefault(sp.line, sp)
    n_rounds = max(1, count // 60 + 1)
    sizes = _spread(list(one_per_line.values()), 3 * n_rounds)
    uses = _spread([u for u in places.uses if names], 2 * n_rounds)
    edits: list[Edit] = []
    added = 0  # lines the workload blocks added at ins0: lines from ins0 on moved down by it

    def moved(line: int) -> int:
        return line + added if ins0 is not None and line >= ins0 else line

    def push(l0: int, c0: int, l1: int, c1: int, new: str, kind: str) -> None:
        """An edit given in code points of the current text (converted to UTF-16)."""
        e = Edit(l0, u16(doc.lines[l0], c0), l1, u16(doc.lines[l1], c1), new, kind)
        doc.apply(e)
        edits.append(e)

    def size_edit(sp: Span) -> None:
        ln = moved(sp.line)
        m = _SIZE_AT.match(doc.lines[ln], sp.start)
        if m is None:
            return
        old = m.group(0)
        new = _SIZES[(_SIZES.index(old) + 1) % 3] if old in _SIZES else "small"
        end = m.end()
        for k in range(len(old)):  # backspaces
            push(ln, end - k - 1, ln, end - k, "", "size")
        for k, ch in enumerate(new):
            push(ln, sp.start + k, ln, sp.start + k, ch, "size")

    def uses_edit(ul: UsesList, j: int) -> None:
        name = names[(j * 37) % len(names)]
        if ul.style == "flow" and ul.close is not None:
            ln, col = moved(ul.close[0]), ul.close[1]
            if body(doc.lines[ln])[col : col + 1] != "]":
                return
            prefix = ", " if ul.items else ""
            word = prefix + name
            for k, ch in enumerate(word):  # typed key by key before the `]`
                push(ln, col + k, ln, col + k, ch, "uses")
            # then deleted: backspaces over the name, then the ", " at once
            end, k = col + len(word), len(word)
            while k > 0:
                step = k if prefix and k <= len(prefix) else 1
                push(ln, end - step, ln, end, "", "uses")
                end -= step
                k -= step
        elif ul.style == "block" and ul.last_line >= 0:
            ln = moved(ul.last_line)
            end = len(body(doc.lines[ln]))
            ind = ul.item_indent
            push(ln, end, ln, end, eol + " " * ind, "uses")  # Enter after the last item (auto-indented)
            for k, ch in enumerate("- " + name):
                push(ln + 1, ind + k, ln + 1, ind + k, ch, "uses")
            col = ind + 2 + len(name)
            for k in range(len(name)):  # backspaces over the name
                push(ln + 1, col - k - 1, ln + 1, col - k, "", "uses")
            push(ln + 1, ind, ln + 1, ind + 2, "", "uses")  # the "- "
            push(ln, end, ln + 1, ind, "", "uses")  # and the line break
        # (each uses edit leaves the text as it found it: no line moves)

    ent, prop = places.entry_indent.get("workloads", (2, 4))
    prop = prop if prop > ent else ent + 2
    sub = prop + (prop - ent)

    def workload_edit(j: int) -> int:
        # New blocks go one after the other at the end of the workloads section.
        if ins0 is None:
            return 0
        at = ins0 + added
        name = f"bench-new-{j}"
        target = names[(j * 11) % len(names)] if names else "nothing"
        p, q = " " * prop, " " * sub
        block = [
            f"{' ' * ent}{name}:",
            f"{p}image: registry.example.com/{name}@sha256:{'ab' * 32}",
            f"{p}port: 8080",
            f"{p}health:",
            f"{q}path: /healthz",
            f"{p}env:",
            f"{q}APP_NAME: {name}",
            f"{p}secrets: [API_TOKEN]",
            f"{p}size:",
            f"{q}{env}: medium",
            f"{p}scale:",
            f"{q}{env}: 2",
            f"{p}uses: [{target}]",
            f"{p}expose: internal",
            f'{p}reason: "residency: tenants in an in-country region keep data there"',
        ]
        for k, line in enumerate(block):
            if at + k < len(doc.lines):  # a new line typed before the line at `at + k`
                push(at + k, 0, at + k, 0, line + eol, "workload")
            else:  # the file ends without a line break: a line break, then the line
                last = len(doc.lines) - 1
                end = len(body(doc.lines[last]))
                push(last, end, last, end, eol + line, "workload")
        return len(block)

    # Rounds of: a size, a uses edit, a workload block, a size, a uses edit, a size; each
    # scenario starts early, so that a short replay (--edits 40) already holds all three.
    i = 0
    while len(edits) < count:
        before = len(edits)
        sz, us = sizes[3 * i : 3 * i + 3], uses[2 * i : 2 * i + 2]
        for step in ("size", "uses", "workload", "size", "uses", "size"):
            if step == "size" and sz:
                size_edit(sz.pop(0))
            elif step == "uses" and us:
                uses_edit(us.pop(0), 2 * i + (1 if len(us) == 0 else 0))
            elif step == "workload" and ins0 is not None:
                added += workload_edit(i)
        i += 1
        if len(edits) == before or i > 1000:
            break
    return edits[:count]  # each edit applies to the text the previous ones left: a prefix is valid


def edit_mix(edits: list[Edit]) -> dict[str, int]:
    return {k: sum(1 for e in edits if e.kind == k) for k in EDIT_KINDS}


def mix_warnings(edits: list[Edit], text: str) -> list[str]:
    """A WARNING line per kind of edit missing from the replay of ``text`` (none: empty)."""
    mix = edit_mix(edits)
    missing = [k for k, v in mix.items() if v == 0]
    if not missing:
        return []
    places = scan(text)
    has = {"size": bool(places.sizes), "uses": bool(places.uses) and bool(places.entries.get("resources")),
           "workload": "workloads" in places.sections and "workloads" not in places.inline_sections}
    why = {"size": "no size value (scalar, block map or flow map) under resources/workloads",
           "uses": "no `uses` list (flow or block) under workloads, or no resource to name",
           "workload": "no block-style top-level `workloads:` section to add a block to"}
    mix_s = ", ".join(f"{v} {k}" for k, v in mix.items())
    found = ", ".join(f"{v} {n}" for n, v in places.kinds_found().items())
    return [f"WARNING: no {k} edits in this replay ("
            + (why[k] if not has[k] else f"the {len(edits)} edits ended before the first: raise --edits")
            + f"); the mix is {mix_s}; the file has {found}" for k in missing]


def describe(edits: list[Edit]) -> str:
    """``210 edits (75 size, 105 uses, 30 workload)``."""
    return f"{len(edits)} edits ({', '.join(f'{v} {k}' for k, v in edit_mix(edits).items())})"


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
        text = read_source(root)  # CRLF kept, as an editor sends it
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
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the generated workspace (default {DEFAULT_SEED})")
    ap.add_argument("--root", type=Path, default=None,
                    help="replay on this workspace instead of a generated one: its root runway file or its folder (edits are sent to the servers only, never written)")
    ap.add_argument("--edits", type=int, default=210, help="didChange edits to replay (default 210; ~40 or more hold all three kinds)")
    ap.add_argument("--rounds", type=int, default=2, help="replays per server, alternating ours and the peer's")
    ap.add_argument("--gap", type=float, default=0.05, help="seconds between a publish and the next keystroke")
    ap.add_argument("--no-peer", action="store_true", help="skip yaml-language-server even when installed")
    ap.add_argument("--json", type=Path, default=None, help="also write the raw figures here")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = resolve_root(a.root) if a.root else generate(Path(tmp) / f"x{a.scale}", a.scale, a.seed)
        text = read_source(root)
        edits = make_edits(text, a.edits)
        eol = "CRLF" if "\r\n" in text else "LF"
        print(f"{root} ({text.count(chr(10))} lines, {eol}): {describe(edits)}, gap {a.gap * 1000:.0f} ms, {a.rounds} round(s)")
        for w in mix_warnings(edits, text):
            print(w)
        t0 = time.perf_counter()
        results = asyncio.run(run(root, edits, a.rounds, a.gap, not a.no_peer, Path(tmp)))
        results["mix"] = edit_mix(edits)
        summ = report(results)
        print(f"({time.perf_counter() - t0:.0f} s)")
        if a.json:
            a.json.write_text(json.dumps({"summary": summ, "raw": results}, indent=1, default=str))


if __name__ == "__main__":
    main()
