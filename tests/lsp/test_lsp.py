"""End to end: the real runway-lsp over stdio, driven by pytest-lsp.

Every test works on a temporary copy of the example (tmp_path), so examples/ is never
modified. Tests await notifications and never sleep. Two capability sets matter:

- VS Code-like: pulls diagnostics (``textDocument.diagnostic``) and accepts
  ``workspace/diagnostic/refresh``; utf-16 positions only.
- Neovim-like (0.9): push diagnostics only; optionally offers utf-8 positions.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from lspclient import EXAMPLES, TIMEOUT, codes, did_change, did_close, did_open, files, init, last_version, line_of, neovim_caps, pull, span, until, vscode_caps
from pytest_lsp import LanguageClient
from mdtables import flat


# --- push diagnostics ---------------------------------------------------------------------------


async def test_open_root_publishes_root_and_members(client: LanguageClient, orders: Path):
    root, checkout, billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: all(p.as_uri() in client.diagnostics for p in (root, checkout, billing)))

    rw140 = [d for d in client.diagnostics[root.as_uri()] if d.code == "RW140"]
    assert len(rw140) == 1
    d = rw140[0]
    # The metabase image value: line 48 (0-based), utf-16 characters 11 up to the line's end (99).
    line_no, line = line_of(root, "image: metabase/")
    assert span(d) == (48, 11, 48, 99) == (line_no, line.index("metabase/"), line_no, len(line))
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.source == "runway"
    assert "digest" in d.message
    assert last_version(client, root) == 1  # the open document's version
    assert codes(client, checkout) == [] and codes(client, billing) == []
    assert last_version(client, checkout) is None  # not open: no version


async def test_member_edit_reports_rw152_and_refreshes_the_root(client: LanguageClient, orders: Path):
    root, checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, checkout)
    await until(client, lambda: checkout.as_uri() in client.diagnostics and root.as_uri() in client.diagnostics)
    assert "RW180" not in codes(client, root)

    line_no, line = line_of(checkout, "uses: [main-db, order-events]")
    did_change(client, checkout, 2, (line_no, 0), (line_no, len(line)), "uses: [main-db, nope]")
    await until(client, lambda: "RW152" in codes(client, checkout) and "RW180" in codes(client, root))

    rw152 = next(d for d in client.diagnostics[checkout.as_uri()] if d.code == "RW152")
    assert span(rw152) == (line_no, 16, line_no, 20)  # `nope`
    assert rw152.data["name"] == "nope"  # the core's data passes through
    assert last_version(client, checkout) == 2
    # order-events lost its only consumer: RW180 in the root, tagged unnecessary.
    rw180 = next(d for d in client.diagnostics[root.as_uri()] if d.code == "RW180")
    key_line, key_text = line_of(root, "  order-events:")
    assert span(rw180) == (key_line, 2, key_line, 2 + len("order-events"))
    assert list(rw180.tags) == [types.DiagnosticTag.Unnecessary]
    assert rw180.severity == types.DiagnosticSeverity.Hint


async def test_root_edit_refreshes_an_open_member(client: LanguageClient, orders: Path):
    root, checkout, billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    did_open(client, checkout)
    await until(client, lambda: checkout.as_uri() in client.diagnostics and billing.as_uri() in client.diagnostics)
    line_no, line = line_of(root, "  main-db:")
    did_change(client, root, 2, (line_no, 2), (line_no, 9), "primary-db")
    await until(client, lambda: "RW152" in codes(client, checkout) and "RW152" in codes(client, billing))
    assert last_version(client, checkout) == 1  # published for the open member's own version


async def test_a_member_the_root_drops_is_analysed_alone(client: LanguageClient, orders: Path):
    root, checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    did_open(client, checkout)
    await until(client, lambda: last_version(client, checkout) == 1 and "RW140" in codes(client, root))
    line_no, line = line_of(root, "- services/checkout")
    did_change(client, root, 2, (line_no, 0), (line_no + 1, 0), "")
    # The root no longer lists it: checkout stands alone, checked as a member and told so
    # (RW154), and the topic only checkout used is now unused in the root.
    await until(client, lambda: "RW154" in codes(client, checkout) and "RW180" in codes(client, root))
    assert "RW101" not in codes(client, checkout)
    assert last_version(client, checkout) == 1


async def test_newest_version_wins_after_a_burst(client: LanguageClient, orders: Path):
    root, checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, checkout)
    await until(client, lambda: last_version(client, checkout) == 1)

    line_no, line = line_of(checkout, "uses: [main-db, order-events]")
    texts = {1: line}
    current = line
    for version in range(2, 12):
        # Odd versions name a resource that does not exist; the last (11) does too.
        new = f"uses: [main-db, nope{version}]" if version % 2 else "uses: [main-db, order-events]"
        did_change(client, checkout, version, (line_no, 0), (line_no, len(current)), new)
        texts[version] = current = new
    # The typed line's RW152 waits for the pause (issue 15, tests/lsp/test_lsp_quiet_typing.py).
    await until(client, lambda: last_version(client, checkout) == 11 and "RW152" in codes(client, checkout))

    publishes = [p for p in client.published if p.uri == checkout.as_uri()]  # type: ignore[attr-defined]
    versions = [p.version for p in publishes]
    assert versions == sorted(versions)
    for p in publishes:  # no publish carries a diagnostic of another version's text
        expected = ["RW152"] if "nope" in texts[p.version] else []
        assert [d.code for d in p.diagnostics] in (expected, []), p.version
        assert all(texts[p.version].split("[")[1].split("]")[0].split(", ")[1] in d.message for d in p.diagnostics), p.version
    assert "nope11" in client.diagnostics[checkout.as_uri()][0].message


async def test_close_republishes_related_files_from_disk(client: LanguageClient, orders: Path):
    root, checkout, billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    did_open(client, checkout)
    await until(client, lambda: last_version(client, checkout) == 1 and "RW140" in codes(client, root))

    # An unsaved edit, then close: the member falls back to its file on disk.
    line_no, line = line_of(checkout, "uses: [main-db, order-events]")
    did_change(client, checkout, 2, (line_no, 0), (line_no, len(line)), "uses: [main-db, nope]")
    await until(client, lambda: "RW152" in codes(client, checkout))
    did_close(client, checkout)
    await until(client, lambda: last_version(client, checkout) is None and codes(client, checkout) == [])
    assert "RW180" not in codes(client, root) and "RW140" in codes(client, root)

    # Nothing related open any more: in the workspace mode (the default) every file keeps the
    # problems of its text on disk (docs/reliability.md "Close"; openFilesOnly clears them).
    did_close(client, root)
    await until(client, lambda: last_version(client, root) is None and "RW140" in codes(client, root))
    assert codes(client, billing) == []


# --- pull diagnostics (VS Code) -----------------------------------------------------------------


async def test_pull_client_gets_no_push_for_open_documents_and_a_refresh(client: LanguageClient, orders: Path):
    root, checkout, billing = files(orders)
    result = await init(client, vscode_caps(), orders)
    assert result.capabilities.diagnostic_provider.inter_file_dependencies is True
    assert result.capabilities.position_encoding == "utf-16"
    did_open(client, root)
    items = await pull(client, root)
    rw140 = next(d for d in items if d.code == "RW140")
    assert span(rw140) == (48, 11, 48, 99)
    # Members (not open) are pushed; the open root is not (no duplicates in VS Code).
    await until(client, lambda: checkout.as_uri() in client.diagnostics and billing.as_uri() in client.diagnostics)
    assert root.as_uri() not in client.diagnostics

    did_open(client, checkout)
    assert [d.code for d in await pull(client, checkout)] == []
    refreshes = client.diagnostic_refresh_count
    client.refreshed.clear()  # type: ignore[attr-defined]
    line_no, line = line_of(checkout, "uses: [main-db, order-events]")
    did_change(client, checkout, 2, (line_no, 0), (line_no, len(line)), "uses: [main-db]")
    # The root's diagnostics changed through a member: the server asks for a re-pull.
    await asyncio.wait_for(client.refreshed.wait(), TIMEOUT)  # type: ignore[attr-defined]
    assert client.diagnostic_refresh_count == refreshes + 1
    assert "RW180" in [d.code for d in await pull(client, root)]
    assert codes(client, checkout) == []
    assert root.as_uri() not in client.diagnostics


# --- hover --------------------------------------------------------------------------------------


async def test_hover_over_a_resource_shows_costs_per_environment(client: LanguageClient, orders: Path):
    root, _checkout, _billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    line_no, line = line_of(root, "  main-db:")
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()), position=types.Position(line=line_no, character=4))
        ),
        TIMEOUT,
    )
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "| monthly | $36.28 | $139.47 | $325.81 |" in flat(hover.contents.value)
    assert "metabase, zitadel, checkout, billing" in hover.contents.value
    assert (hover.range.start.line, hover.range.start.character, hover.range.end.character) == (line_no, 2, 9)


# --- position encodings -------------------------------------------------------------------------

EMOJI_RUNWAY = (
    "runway: 1\n"
    "product: shop\n"
    "workloads:\n"
    '  web: { reason: "🚀 on-prem-parity", image: "nginx:latest", port: 80, health: { path: / } }\n'
)


@pytest.mark.parametrize(
    ("caps", "encoding"),
    [(neovim_caps(utf8=True), "utf-8"), (neovim_caps(), "utf-16")],
    ids=["utf-8", "utf-16"],
)
async def test_position_encodings_count_an_emoji_differently(client: LanguageClient, tmp_path: Path, caps, encoding):
    f = tmp_path.resolve() / "runway.yaml"
    f.write_text(EMOJI_RUNWAY, encoding="utf-8")
    result = await init(client, caps, tmp_path)
    assert result.capabilities.position_encoding == encoding

    line = EMOJI_RUNWAY.splitlines()[3]
    cp = line.index('"nginx')
    unit = len(line[:cp].encode("utf-8")) if encoding == "utf-8" else len(line[:cp].encode("utf-16-le")) // 2
    assert unit == cp + (3 if encoding == "utf-8" else 1)  # the emoji: 4 bytes, 2 utf-16 units, 1 code point
    end = unit + len('"nginx:latest"')

    did_open(client, f)
    await until(client, lambda: "RW140" in codes(client, f))
    d = next(d for d in client.diagnostics[f.as_uri()] if d.code == "RW140")
    assert span(d) == (3, unit, 3, end)

    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=f.as_uri()), position=types.Position(line=3, character=unit + 1))
    )
    assert "workloads.web.image" in hover.contents.value
    assert (hover.range.start.character, hover.range.end.character) == (unit, end)

    # A received range is decoded in the same encoding: pin the image by digest.
    did_change(client, f, 2, (3, unit), (3, end), '"nginx@sha256:' + "ab" * 32 + '"')
    await until(client, lambda: last_version(client, f) == 2)
    assert "RW140" not in codes(client, f)


# --- robustness ---------------------------------------------------------------------------------


async def test_hostile_input_never_crashes_the_server(client: LanguageClient, tmp_path: Path):
    await init(client, neovim_caps(), tmp_path)
    f = tmp_path.resolve() / "runway.yaml"
    texts = ["runway: [\n", "\t- x\n", "a: &a [*a]\n", "[" * 200, "runway: 1\nproduct: x\nresources:\n  db: {kind: kafka}\n", "\x00\x01garbage\n"]
    did_open(client, f, texts[0])
    for version, text in enumerate(texts[1:], start=2):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=f.as_uri(), version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    await until(client, lambda: last_version(client, f) == len(texts))
    assert all(d.source == "runway" for d in client.diagnostics[f.as_uri()])
    # Out-of-range positions, an unopened document, a change to an unopened document.
    did_change(client, tmp_path / "ghost.yaml", 3, (0, 0), (0, 0), "x")
    for uri, pos in ((f.as_uri(), (9999, 9999)), ((tmp_path / "ghost.yaml").as_uri(), (0, 0))):
        hover = await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=pos[0], character=pos[1]))
        )
        assert hover is None or hover.contents.value
    did_change(client, f, 99, (0, 0), (0, 0), "runway: 1\nproduct: fine\n")
    await until(client, lambda: last_version(client, f) == 99)


async def test_broken_example(client: LanguageClient, tmp_path: Path):
    broken = EXAMPLES / "broken"
    if not (broken / "runway.yaml").is_file():
        pytest.skip("examples/broken/runway.yaml does not exist yet")
    dst = tmp_path.resolve() / "broken"
    shutil.copytree(broken, dst)
    root = dst / "runway.yaml"
    await init(client, vscode_caps(), dst)
    did_open(client, root)
    items = await pull(client, root)
    assert items, "the broken example should have diagnostics"
    assert all(d.source == "runway" and str(d.code).startswith("RW") for d in items)
    # Members with loader faults are not open: they are pushed.
    members = sorted(p for p in dst.glob("services/*/runway.y*ml"))
    await until(client, lambda: all(m.as_uri() in client.diagnostics for m in members))
    assert any(codes(client, m) for m in members)
    text = root.read_text(encoding="utf-8").splitlines()
    for line_no, line in enumerate(text):
        hover = await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()), position=types.Position(line=line_no, character=min(4, len(line))))
        )
        assert hover is None or hover.contents.value


async def test_lone_member_is_analysed_alone(client: LanguageClient, tmp_path: Path):
    f = tmp_path.resolve() / "svc" / "runway.yaml"
    f.parent.mkdir()
    f.write_text("runway: 1\nmember: svc\nuses: [db]\n")
    await init(client, neovim_caps(), tmp_path)
    did_open(client, f)
    await until(client, lambda: last_version(client, f) == 1)
    # Checked as a member, and told that no root lists it: no misleading "missing product".
    assert codes(client, f) == ["RW154"]


# --- process interface --------------------------------------------------------------------------


def test_server_never_imports_pulumi_or_deploy_engine():
    code = (
        "import sys, runway_lsp.server, runway_lsp.__main__\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pulumi', 'pulumi_aws', 'deploy_engine')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_version_flag_and_exit_codes():
    ok = subprocess.run([sys.executable, "-m", "runway_lsp", "--version"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.startswith("runway-lsp ") and ok.stderr == ""
    bad = subprocess.run([sys.executable, "-m", "runway_lsp", "--log-level", "LOUD"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and ok.stdout and "invalid choice" in bad.stderr and bad.stdout == ""


async def test_every_diagnostic_links_to_its_entry_in_docs_diagnostics_md(client: LanguageClient, orders: Path):
    """codeDescription.href: the code's heading in the docs folder (this checkout's docs/ when
    RUNWAY_DOCS_URL is not set), GitHub's anchor of ``### RW140 — image not pinned by digest``."""
    root, _checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: root.as_uri() in client.diagnostics)
    docs = Path(__file__).resolve().parents[2] / "docs"
    for d in client.diagnostics[root.as_uri()]:
        assert d.code_description is not None, d
    rw140 = next(d for d in client.diagnostics[root.as_uri()] if d.code == "RW140")
    assert rw140.code_description.href == f"{docs.as_uri()}/diagnostics.md#rw140--image-not-pinned-by-digest"
    heading = "### RW140 — image not pinned by digest"
    assert heading in (docs / "diagnostics.md").read_text(encoding="utf-8").splitlines()
