"""Hostile runway files: build each case, run ``runway-deploy check --format json`` on it in a
child process, and report the outcome, the wall time and the child's peak memory.

The cases are shared with tests/e2e/test_hostile.py, which asserts each outcome (a positioned
diagnostic or a clear CLI error) and generous structural bounds (a subprocess timeout that
only detects a hang, a peak-RSS ceiling). This script prints the figures pasted into
docs/reliability.md. Run: ``.venv/bin/python benchmarks/hostile.py [--repeat N] [--markdown]``.
No timed asserts anywhere: this prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

DIGEST = "0123456789abcdef" * 4
HEAD = "runway: 1\nproduct: hostile\n"
ENVS = "environments:\n  dev: {}\n  staging: {}\n  production:\n    limits: { monthly: 2500 }\n"


def _write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="")
    else:
        path.write_bytes(data)
    return path


def _outside_fifo(folder: Path) -> Path:
    """A folder outside the product whose runway.yaml is a FIFO: opening it for reading would
    block forever, so a run that ends proves it was never opened."""
    outside = folder.parent / f"{folder.name}-outside"
    outside.mkdir(parents=True, exist_ok=True)
    fifo = outside / "runway.yaml"
    if not fifo.exists():
        os.mkfifo(fifo)
    return outside


# --- builders: each writes a product under ``folder`` and returns the PATH to check ----------


def alias_bomb(folder: Path) -> Path:
    lines = [HEAD.rstrip("\n"), 'x-a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    prev = "a"
    for name in "bcdefghi":
        lines.append(f"x-{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
        prev = name
    return _write(folder / "runway.yaml", "\n".join(lines) + "\n").parent


def ten_mb(folder: Path) -> Path:
    line = "# padding: generated data does not belong in a runway.............................\n"
    return _write(folder / "runway.yaml", HEAD + line * (10 * 1024 * 1024 // len(line))).parent


def ten_mb_member(folder: Path) -> Path:
    line = "# padding: generated data does not belong in a runway.............................\n"
    _write(folder / "services" / "huge" / "runway.yaml", "runway: 1\n" + line * (10 * 1024 * 1024 // len(line)))
    return _write(folder / "runway.yaml", HEAD + "members: [services/huge]\n").parent


def deep_flow(folder: Path) -> Path:
    return _write(folder / "runway.yaml", HEAD + "members: " + "[" * 10_000 + "]" * 10_000 + "\n").parent


def deep_block(folder: Path) -> Path:
    return _write(folder / "runway.yaml", HEAD + "members:\n  " + "- " * 10_000 + "services/x\n").parent


def long_scalar_line(folder: Path) -> Path:
    return _write(folder / "runway.yaml", "runway: 1\nproduct: \"" + "a" * 1_000_000 + "\"\n").parent


def long_flow_line(folder: Path) -> Path:
    items = ", ".join(["services/a"] * 85_000)  # ~1 MB on one line
    _write(folder / "services" / "a" / "runway.yaml", "runway: 1\n")
    return _write(folder / "runway.yaml", HEAD + "members: [" + items + "]\n").parent


def nul_in_text(folder: Path) -> Path:
    return _write(folder / "runway.yaml", "runway: 1\nproduct: sh\x00op\n").parent


def binary(folder: Path) -> Path:
    r = random.Random(7)
    return _write(folder / "runway.yaml", bytes(r.randrange(256) for _ in range(4096)) + b"\xff\xfe\x00").parent


def member_not_utf8(folder: Path) -> Path:
    _write(folder / "services" / "legacy" / "runway.yaml", b"runway: 1\n# \xc4nderung: latin-1\nuses: [db]\n")
    return _write(folder / "runway.yaml", HEAD + "members: [services/legacy]\n").parent


def bom(folder: Path) -> Path:
    return _write(folder / "runway.yaml", "\ufeff" + HEAD + ENVS).parent


def yaml12(folder: Path) -> Path:
    text = HEAD + (
        "environments:\n"
        "  on: {}                    # the string `on`, an environment name (YAML 1.1 would read true)\n"
        "  no: {}                    # the string `no`\n"
        "resources:\n"
        "  db:\n"
        "    kind: postgres\n"
        "    engine: { proxy: no, storage_gb: 1e3, backup_retention_days: 0755 }\n"
    )
    return _write(folder / "runway.yaml", text).parent


def merge_keys(folder: Path) -> Path:
    text = HEAD + ENVS + (
        "resources:\n"
        "  jobs: &queue\n"
        "    kind: queue\n"
        "  retries:\n"
        "    <<: *queue\n"
        "    size: medium\n"
        "workloads:\n"
        "  api:\n"
        f"    image: registry.example.com/api@sha256:{DIGEST}\n"
        "    port: 8080\n"
        "    health: { path: /health }\n"
        "    uses: &deps [jobs, retries]\n"
        "    reason: \"no-managed-fit: x\"\n"
        "  worker:\n"
        "    <<: *deps\n"
        f"    image: registry.example.com/worker@sha256:{DIGEST}\n"
        "    port: 9000\n"
        "    health: { path: /health }\n"
        "    reason: \"no-managed-fit: x\"\n"
    )
    return _write(folder / "runway.yaml", text).parent


def documents(folder: Path) -> Path:
    return _write(folder / "runway.yaml", HEAD + "---\nrunway: 2\n---\n- x\n").parent


def custom_tags(folder: Path) -> Path:
    return _write(folder / "runway.yaml", HEAD + "resources:\n  jobs:\n    kind: !Ref QueueKind\n  files: !!set { a }\n").parent


def escape_dotdot(folder: Path) -> Path:
    outside = _outside_fifo(folder)
    return _write(folder / "runway.yaml", HEAD + f"members: [../{outside.name}, ../.., services/../../{outside.name}]\n").parent


def escape_absolute(folder: Path) -> Path:
    outside = _outside_fifo(folder)
    return _write(folder / "runway.yaml", HEAD + f"members: [{outside}]\n").parent


def escape_tilde(folder: Path) -> Path:
    return _write(folder / "runway.yaml", HEAD + "members: [~/.ssh]\n").parent


def escape_symlink_folder(folder: Path) -> Path:
    outside = _outside_fifo(folder)
    (folder / "services").mkdir(parents=True, exist_ok=True)
    os.symlink(outside, folder / "services" / "escape", target_is_directory=True)
    return _write(folder / "runway.yaml", HEAD + "members: [services/escape]\n").parent


def escape_symlink_file(folder: Path) -> Path:
    outside = folder.parent / f"{folder.name}-outside-file"
    _write(outside / "secret.yaml", "runway: 1\nuses: [another-products-secret]\n")
    (folder / "services" / "api").mkdir(parents=True, exist_ok=True)
    os.symlink(outside / "secret.yaml", folder / "services" / "api" / "runway.yaml")
    (folder / "services" / "zero").mkdir(parents=True, exist_ok=True)
    os.symlink("/dev/zero", folder / "services" / "zero" / "runway.yaml")
    return _write(folder / "runway.yaml", HEAD + "members: [services/api, services/zero]\n").parent


def fifo_root(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / "runway.yaml")
    return folder


def fifo_member(folder: Path) -> Path:
    (folder / "services" / "pipe").mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / "services" / "pipe" / "runway.yaml")
    return _write(folder / "runway.yaml", HEAD + "members: [services/pipe]\n").parent


def long_key(folder: Path) -> Path:
    return _write(folder / "runway.yaml", "runway: 1\nproduct: shop\n" + "k" * 100_000 + ": 1\n").parent


# --- expectations ------------------------------------------------------------------------------


def _diags(doc: Any, file: str = "runway.yaml") -> list[tuple[str, int, int]]:
    return [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in doc["diagnostics"] if d["file"] == file]


def _codes(doc: Any, file: str = "runway.yaml") -> list[str]:
    return [c for c, _l, _ch in _diags(doc, file)]


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # the "input" column of docs/reliability.md
    build: Callable[[Path], Path]
    check: Callable[[int, Any, str], str]  # (exit code, JSON doc or None, stderr) -> outcome text; raises AssertionError


def _expect(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def c_alias_bomb(rc, doc, err):
    (d,) = [d for d in doc["diagnostics"] if d["code"] == "RW005"]
    _expect(rc == 1 and _codes(doc) == ["RW005"], f"{rc} {_codes(doc)}")
    return f"RW005 at {d['range']['start']['line'] + 1}:{d['range']['start']['character'] + 1} (the alias crossing 100,000 nodes), nothing else"


def c_ten_mb(rc, doc, err):
    _expect(rc == 1 and _diags(doc) == [("RW011", 0, 0)], f"{rc} {_diags(doc)}")
    _expect("10,485,7" in doc["diagnostics"][0]["message"], doc["diagnostics"][0]["message"])
    return "RW011 at 1:1 (size named; 1 MiB + 1 byte read)"


def c_ten_mb_member(rc, doc, err):
    _expect(rc == 1 and "RW151" in _codes(doc) and _diags(doc, "services/huge/runway.yaml") == [("RW011", 0, 0)], f"{rc} {doc['diagnostics']}")
    return "RW151 on the `members` entry, RW011 at 1:1 of the member; the rest analysed"


def c_deep(rc, doc, err):
    _expect(rc == 1 and "RW010" in _codes(doc), f"{rc} {_codes(doc)}")
    (line,) = {ln for c, ln, _ch in _diags(doc) if c == "RW010"}
    return f"RW010 at line {line + 1} (the 65th level), deeper levels read as null"


def c_long_scalar(rc, doc, err):
    _expect(rc == 1 and ("RW110", 1, 9) in _diags(doc), f"{rc} {_diags(doc)[:5]}")
    return "RW110 at 2:10 (product name too long); message does not echo the 1 MB value" if all(len(d["message"]) < 2000 for d in doc["diagnostics"]) else "RW110 at 2:10"


def c_long_flow(rc, doc, err):
    codes = _codes(doc)
    _expect(rc == 1 and len(codes) == 501 and codes[-1] == "RW012" and codes.count("RW151") == 499, f"{rc} {len(codes)} {codes[:3]}")
    more = doc["diagnostics"][-1]["message"].split()[0]
    return f"499 RW151 (the first read once, each repeat a warning at its own item), then RW012: {more} more not shown"


def c_nul(rc, doc, err):
    _expect(rc == 1 and _codes(doc) == ["RW001"] and _diags(doc)[0][1] == 1, f"{rc} {_diags(doc)}")
    (_c, line, ch) = _diags(doc)[0]
    return f"RW001 at {line + 1}:{ch + 1} (a control character YAML does not allow)"


def c_binary(rc, doc, err):
    _expect(rc == 1 and _diags(doc) == [("RW001", 0, 0)] and "not UTF-8" in doc["diagnostics"][0]["message"], f"{rc} {_diags(doc)}")
    return "RW001 at 1:1 (not UTF-8: not read at all)"


def c_member_not_utf8(rc, doc, err):
    _expect(rc == 1 and ("RW151", 2, 10) in _diags(doc) and _diags(doc, "services/legacy/runway.yaml") == [("RW001", 0, 0)], f"{rc} {doc['diagnostics']}")
    return "RW151 at 3:11 on the root, RW001 at 1:1 of the member (never half-read)"


def c_bom(rc, doc, err):
    _expect(("RW007", 0, 0) in _diags(doc) and "RW001" not in _codes(doc), f"{rc} {_diags(doc)}")
    return "RW007 warning at 1:1; the file is analysed"


def c_yaml12(rc, doc, err):
    msgs = {d["message"] for d in doc["diagnostics"] if d["code"] == "RW100"}
    _expect(any("engine.proxy" in m and "`no` is a string in YAML 1.2" in m for m in msgs), msgs)
    _expect(any("engine.storage_gb" in m and "float in YAML 1.2" in m for m in msgs), msgs)
    _expect(any("engine.backup_retention_days" in m and "35" in m for m in msgs), msgs)  # 0755 is 755, not octal 493
    _expect(not any(c in ("RW110", "RW131") for c in _codes(doc)), _codes(doc))  # `on`, `no`: environment names
    return "`on`/`no` are environment names; RW100 for `proxy: no` (a string), `storage_gb: 1e3` (a float), `backup_retention_days: 0755` (755 > 35)"


def c_merge(rc, doc, err):
    merges = [(ln, ch) for c, ln, ch in _diags(doc) if c == "RW100"]
    _expect(merges == [(21, 4)] and not any(c in ("RW101", "RW180") for c in _codes(doc)), f"{_diags(doc)}")
    return "merges applied (retries is a queue, used); RW100 at 22:5, the `<<` of an alias to a list (not at the anchor)"


def c_documents(rc, doc, err):
    _expect(rc == 1 and ("RW003", 2, 0) in _diags(doc), f"{rc} {_diags(doc)}")
    return "RW003 at 3:1; the second and third documents are ignored"


def c_tags(rc, doc, err):
    codes = _codes(doc)
    _expect(rc == 1 and codes.count("RW008") == 2 and "RW120" in codes, f"{rc} {codes}")
    return "RW008 at each tag (`!Ref`, `!!set`); the tagged value read as text (RW120 `QueueKind`)"


def c_escape(rc, doc, err):
    codes = _codes(doc)
    _expect(rc == 1 and codes.count("RW151") >= 1, f"{rc} {codes}")
    (d,) = [d for d in doc["diagnostics"] if d["code"] == "RW151"][:1]
    return f"RW151 at {d['range']['start']['line'] + 1}:{d['range']['start']['character'] + 1}, refused, never read (the target is a FIFO: opening it would hang)"


def c_escape_dotdot(rc, doc, err):
    _expect(rc == 1 and [c for c in _codes(doc) if c == "RW151"] == ["RW151"] * 3, f"{rc} {_diags(doc)}")
    where = ", ".join(f"{ln + 1}:{ch + 1}" for c, ln, ch in _diags(doc) if c == "RW151")
    return f"RW151 at each entry ({where}), refused, never read (the target is a FIFO: opening it would hang)"


def c_escape_tilde(rc, doc, err):
    _expect(rc == 1 and ("RW151", 2, 10) in _diags(doc), f"{rc} {_diags(doc)}")
    return "RW151 at 3:11, refused, never read"


def c_escape_file(rc, doc, err):
    rw151 = [d for d in doc["diagnostics"] if d["code"] == "RW151"]
    _expect(rc == 1 and len(rw151) == 2 and not any("another-products-secret" in d["message"] for d in doc["diagnostics"]), f"{rc} {doc['diagnostics']}")
    return "RW151 at 3:11 and 3:25 (symlinked runway.yaml to a file outside, and to /dev/zero), never read"


def c_fifo_root(rc, doc, err):
    _expect(rc == 3 and doc is None and "not a regular file (a FIFO)" in err, f"{rc} {err}")
    return "exit 3, `not a regular file (a FIFO)` (a runway is a regular file; never opened)"


def c_fifo_member(rc, doc, err):
    (d,) = [d for d in doc["diagnostics"] if d["code"] == "RW151"]
    _expect(rc == 1 and "not a regular file" in d["message"], f"{rc} {doc['diagnostics']}")
    return "RW151 at 3:11 (its runway.yaml is not a regular file), refused, never opened (opening a FIFO would hang)"


def c_long_key(rc, doc, err):
    _expect(rc == 1 and _diags(doc) == [("RW001", 2, 100_000)] and "at most 1,024 characters" in doc["diagnostics"][0]["message"], f"{rc} {_diags(doc)}")
    return "RW001 at 3:100001: a key of 100,000 characters, YAML allows at most 1,024 in an implicit key"


CASES: list[Case] = [
    Case("alias-bomb", "alias bomb (9 levels x 9 aliases, a billion nodes)", alias_bomb, c_alias_bomb),
    Case("ten-mb", "10 MB root runway", ten_mb, c_ten_mb),
    Case("ten-mb-member", "10 MB member runway", ten_mb_member, c_ten_mb_member),
    Case("deep-flow", "10,000-deep nesting, flow (`[[[...]]]`)", deep_flow, c_deep),
    Case("deep-block", "10,000-deep nesting, block (`- - - ...`)", deep_block, c_deep),
    Case("long-scalar", "1 MB single line (one scalar)", long_scalar_line, c_long_scalar),
    Case("long-flow", "1 MB single line (85,000 `members` items)", long_flow_line, c_long_flow),
    Case("nul", "NUL character in the text", nul_in_text, c_nul),
    Case("binary", "binary file (random bytes, not UTF-8)", binary, c_binary),
    Case("member-not-utf8", "invalid UTF-8 in a member file on disk", member_not_utf8, c_member_not_utf8),
    Case("bom", "byte-order mark", bom, c_bom),
    Case("yaml12", "`on`, `no`, `0755`, `1e3` (read as YAML 1.2)", yaml12, c_yaml12),
    Case("merge-keys", "merge keys (`<<`), one misused", merge_keys, c_merge),
    Case("documents", "several documents (`---`)", documents, c_documents),
    Case("custom-tags", "custom tags (`!Ref`, `!!set`)", custom_tags, c_tags),
    Case("escape-dotdot", "member paths `../outside`, `../..`, `services/../../outside`", escape_dotdot, c_escape_dotdot),
    Case("escape-absolute", "member path absolute", escape_absolute, c_escape),
    Case("escape-tilde", "member path `~/.ssh`", escape_tilde, c_escape_tilde),
    Case("escape-symlink-folder", "member folder symlinked out", escape_symlink_folder, c_escape),
    Case("escape-symlink-file", "member runway.yaml symlinked out (a file, /dev/zero)", escape_symlink_file, c_escape_file),
    Case("fifo-root", "runway.yaml is a FIFO", fifo_root, c_fifo_root),
    Case("fifo-member", "a member's runway.yaml is a FIFO", fifo_member, c_fifo_member),
    Case("long-key", "a 100,000-character key", long_key, c_long_key),
]


# --- running ------------------------------------------------------------------------------------


@dataclass
class Run:
    rc: int
    doc: Any
    stderr: str
    seconds: float
    max_rss_mb: float
    timed_out: bool


#: Runs ``runway-deploy`` (``deploy_engine.__main__``) and, at exit, writes the process's own
#: peak RSS (``VmHWM``) to stderr. ``wait4``'s ``ru_maxrss`` would not do: Linux carries the
#: parent's peak over ``fork``/``exec`` into the child's, so a big parent (pytest) inflates it.
WRAPPER = """
import atexit, runpy, sys
def _peak():
    try:
        with open("/proc/self/status") as fh:
            kb = next((line.split()[1] for line in fh if line.startswith("VmHWM:")), "")
        sys.stderr.write("\\nRUNWAY_PEAK_RSS_KB " + kb + "\\n")
    except OSError:
        pass
atexit.register(_peak)
sys.argv = ["runway-deploy", *sys.argv[1:]]
runpy.run_module("deploy_engine", run_name="__main__", alter_sys=True)
"""


def run_check(path: Path, timeout: float = 60.0, python: str = sys.executable, args: tuple[str, ...] = ("--format", "json")) -> Run:
    """``runway-deploy check PATH --format json`` in a child; its exit code, JSON, stderr,
    wall time and peak RSS (the child's own ``VmHWM``). The timeout only detects a hang (the
    child is killed and ``timed_out`` set)."""
    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(repo) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([python, "-c", WRAPPER, "check", str(path), *args], stdout=out, stderr=err, env=env,
                                stdin=subprocess.DEVNULL)
        fired = threading.Event()

        def kill() -> None:
            fired.set()
            proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _pid, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        raw = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    try:
        doc = json.loads(raw) if raw.strip() else None
    except ValueError:
        doc = None
    peak = [line.split()[1] for line in stderr.splitlines() if line.startswith("RUNWAY_PEAK_RSS_KB ") and len(line.split()) == 2]
    stderr = "\n".join(line for line in stderr.splitlines() if not line.startswith("RUNWAY_PEAK_RSS_KB"))
    rss_mb = int(peak[-1]) / 1024 if peak else usage.ru_maxrss / 1024
    return Run(proc.returncode, doc, stderr, seconds, rss_mb, fired.is_set())


def measure(repeat: int) -> list[tuple[Case, str, list[Run]]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            path = case.build(Path(tmp) / case.name / "product")
            runs = [run_check(path) for _ in range(repeat)]
            try:
                outcome = case.check(runs[0].rc, runs[0].doc, runs[0].stderr)
            except AssertionError as exc:
                outcome = f"UNEXPECTED: {exc}"
            rows.append((case, outcome, runs))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    baseline = None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "baseline"
        _write(folder / "runway.yaml", HEAD + ENVS)
        baseline = [run_check(folder) for _ in range(a.repeat)]
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; `runway-deploy check PATH --format json` in a child process, "
          f"median of {a.repeat} runs (wall time includes interpreter start-up); peak RSS of the child.\n")
    print("| input | outcome | exit | time (s) | peak RSS (MB) |")
    print("|---|---|---|---:|---:|")
    b_t = statistics.median(r.seconds for r in baseline)
    b_m = max(r.max_rss_mb for r in baseline)
    print(f"| a valid 7-line runway (baseline) | no error | {baseline[0].rc} | {b_t:.2f} | {b_m:.0f} |")
    for case, outcome, runs in measure(a.repeat):
        t = statistics.median(r.seconds for r in runs)
        m = max(r.max_rss_mb for r in runs)
        flag = " (TIMED OUT)" if any(r.timed_out for r in runs) else ""
        print(f"| {case.kind} | {outcome}{flag} | {runs[0].rc} | {t:.2f} | {m:.0f} |")


if __name__ == "__main__":
    main()
