"""Hostile files (issue 7; docs/reliability.md): each gets a positioned diagnostic or a clear
CLI error, in a child process whose time and memory are bounded structurally.

The cases live in benchmarks/hostile.py (which measures them for docs/reliability.md): alias
bombs, a 10 MB file, 10,000-deep nesting, 1 MB single lines, NUL and binary bytes, invalid
UTF-8 in a member, a BOM, YAML 1.1 look-alikes read as YAML 1.2, merge keys, several
documents, custom tags, member paths escaping the repository (``..``, absolute, ``~``, a
symlinked folder, a symlinked file, /dev/zero) and a FIFO as runway.yaml.

Bounds: a subprocess timeout that only detects a hang (an escape that opened its FIFO target
would block forever) and a ceiling on the child's peak RSS, both generous; time is measured by
the benchmark, not asserted. "Never read" is also proven in-process: an audit hook records
every file the analysis opens, and none lies outside the product.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import did_open, init, last_version, neovim_caps, until
from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
from runway_core.positions import LineIndex

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("runway_hostile_cases", REPO / "benchmarks" / "hostile.py")
hostile = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = hostile
_spec.loader.exec_module(hostile)

HANG = 120.0  # seconds: only a hung child gets near this
PEAK_RSS_MB = 400  # the largest case peaks near 110 MB (docs/reliability.md)


@pytest.mark.parametrize("case", hostile.CASES, ids=[c.name for c in hostile.CASES])
def test_hostile_file_gets_a_positioned_diagnostic_or_a_clear_error(case, tmp_path: Path):
    path = case.build(tmp_path.resolve() / "product")
    run = hostile.run_check(path, timeout=HANG)
    assert not run.timed_out, f"{case.name}: the check hung (killed after {HANG}s)"
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr[-3000:]
    case.check(run.rc, run.doc, run.stderr)  # raises AssertionError with what it got
    assert run.max_rss_mb < PEAK_RSS_MB, f"{case.name}: peak RSS {run.max_rss_mb:.0f} MB"
    if run.doc is not None:  # every range inside its file (UTF-16 units)
        for d in run.doc["diagnostics"]:
            target = path / d["file"]
            data = target.read_bytes() if target.is_file() else b""
            li = LineIndex(data.decode("utf-8", "replace"))
            for p in (d["range"]["start"], d["range"]["end"]):
                assert 0 <= p["line"] < li.line_count
                assert 0 <= p["character"] <= len(li.line_text(p["line"]).encode("utf-16-le")) // 2


ESCAPES = [c for c in hostile.CASES if c.name.startswith("escape-")]


@pytest.mark.parametrize("case", ESCAPES, ids=[c.name for c in ESCAPES])
def test_a_member_path_escaping_the_repository_is_never_opened(case, tmp_path: Path):
    product = case.build(tmp_path.resolve() / "product")
    opened: list[str] = []
    recording = [True]

    def hook(event: str, args: tuple) -> None:
        if recording[0] and event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            opened.append(os.fsdecode(args[0]))

    sys.addaudithook(hook)  # permanent for the process; inert once ``recording`` is off
    try:
        an = analyze(str(product / "runway.yaml"), load_catalog())
    finally:
        recording[0] = False
    assert any(d.code == "RW151" for d in an.diagnostics[str(product / "runway.yaml")])
    inside = str(product) + os.sep
    for path in opened:
        real = os.path.realpath(path)
        if real.startswith(str(tmp_path.resolve()) + os.sep):
            assert real.startswith(inside), f"{case.name}: opened {path} outside the product"
        assert not real.startswith("/dev/") and ".ssh" not in real, f"{case.name}: opened {path}"
    assert len(an.files) == 1  # no member file was read


TEXT_CASES = ["alias-bomb", "ten-mb", "deep-flow", "deep-block", "long-scalar", "long-key", "nul", "bom", "yaml12", "merge-keys", "documents", "custom-tags"]


async def test_hostile_buffers_in_the_editor_get_diagnostics_in_bounds(client: LanguageClient, tmp_path: Path):
    """The same texts as unsaved editor buffers (one server, one after another): diagnostics
    arrive for each, inside the text, and the server keeps answering."""
    await init(client, neovim_caps(), tmp_path.resolve())
    by_name = {c.name: c for c in hostile.CASES}
    for n, name in enumerate(TEXT_CASES):
        built = by_name[name].build(tmp_path.resolve() / f"built-{n}")
        text = (built / "runway.yaml").read_text(encoding="utf-8")
        path = tmp_path.resolve() / f"buffer-{n}" / "runway.yaml"  # not on disk: the buffer only
        did_open(client, path, text)
        await until(client, lambda: last_version(client, path) == 1)
        li = LineIndex(text)
        diags = client.diagnostics[path.as_uri()]
        assert diags, name
        for d in diags:
            for p in (d.range.start, d.range.end):
                assert 0 <= p.line < li.line_count, (name, d)
                assert 0 <= p.character <= len(li.line_text(p.line).encode("utf-16-le")) // 2, (name, d)
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=1, character=3)))
        assert hover is None or hover.contents
        if name == "ten-mb":
            assert [d.code for d in diags] == ["RW011"] and "characters" in diags[0].message
