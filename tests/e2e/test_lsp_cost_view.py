"""End to end: code lenses, inlay hints and cost deltas from the real runway-lsp over stdio.

Each test runs on a private copy of examples/orders (or a file it writes) with a VS Code-like
and Neovim-like capability set and, where positions matter, both position encodings. Tests
await responses and notifications and never sleep. Whole-dollar figures in resource lenses
are rounded half up (runway_core.ide.lenses states the conventions).
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from mdtables import flat
from pytest_lsp import LanguageClient

from lspclient import EXAMPLES, TIMEOUT, codes, did_change, did_open, files, init, line_of, neovim_caps, pull_until, until, vscode_caps

CAPS = [
    pytest.param(vscode_caps, "utf-16", id="vscode"),
    pytest.param(lambda: neovim_caps(), "utf-16", id="neovim-utf16"),
    pytest.param(lambda: neovim_caps(utf8=True), "utf-8", id="neovim-utf8"),
]
HAS_GIT = shutil.which("git") is not None


# --- helpers ----------------------------------------------------------------------------------


async def code_lenses(client: LanguageClient, path: Path) -> list[types.CodeLens]:
    result = await asyncio.wait_for(
        client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))), TIMEOUT
    )
    return list(result or [])


async def inlay_hints(client: LanguageClient, path: Path, start: tuple[int, int] = (0, 0), end: tuple[int, int] = (10_000, 0)) -> list[types.InlayHint]:
    rng = types.Range(start=types.Position(line=start[0], character=start[1]), end=types.Position(line=end[0], character=end[1]))
    result = await asyncio.wait_for(
        client.text_document_inlay_hint_async(types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()), range=rng)), TIMEOUT
    )
    return list(result or [])


def titles(lenses: list[types.CodeLens], line: int) -> list[str]:
    return [lens.command.title for lens in lenses if lens.range.start.line == line]


def did_save(client: LanguageClient, path: Path) -> None:
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri())))


async def until_request(client: LanguageClient, method: str, count: int = 1) -> None:
    """Await until the server has sent ``count`` requests of ``method`` (recorded by the harness)."""

    async def loop() -> None:
        while client.requests.count(method) < count:  # type: ignore[attr-defined]
            client.requested.clear()  # type: ignore[attr-defined]
            await client.requested.wait()  # type: ignore[attr-defined]

    await asyncio.wait_for(loop(), TIMEOUT)


def replace_line(client: LanguageClient, path: Path, text: str, version: int, old: str, new: str) -> str:
    """Send an edit of the line holding ``old`` (ASCII, so both encodings agree); return the
    new text the server now holds."""
    lines = text.split("\n")
    i = next(n for n, line in enumerate(lines) if old in line)
    col = lines[i].index(old)
    did_change(client, path, version, (i, col), (i, col + len(old)), new)
    lines[i] = lines[i][:col] + new + lines[i][col + len(old) :]
    return "\n".join(lines)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=cwd, check=True, capture_output=True,
    )


# --- lenses and hints on the example ------------------------------------------------------------


@pytest.mark.parametrize(("caps", "encoding"), CAPS)
async def test_code_lenses_on_the_orders_example(client: LanguageClient, orders: Path, caps, encoding):
    root, _checkout, _billing = files(orders)
    result = await init(client, caps(), orders)
    assert result.capabilities.position_encoding == encoding
    assert result.capabilities.code_lens_provider.resolve_provider is False
    assert "runway.showCost" in result.capabilities.execute_command_provider.commands
    did_open(client, root)
    lenses = await code_lenses(client, root)

    dev_line, _ = line_of(root, "  dev:")
    assert titles(lenses, dev_line) == ["dev $126.88 / $150 · 85%"]
    dev = next(lens for lens in lenses if lens.range.start.line == dev_line)
    assert (dev.range.start.character, dev.range.end.line, dev.range.end.character) == (2, dev_line, 5)
    assert dev.command.command == "runway.showCost" and list(dev.command.arguments) == [root.as_uri(), {"env": "dev"}]
    assert titles(lenses, line_of(root, "  staging:")[0]) == ["staging $258.11 / $500 · 52%"]
    assert titles(lenses, line_of(root, "  production:")[0]) == ["production $828.03 / $2,500 · 33%"]
    db_line, _ = line_of(root, "  main-db:")
    assert titles(lenses, db_line) == ["dev $36.28 · staging $139 · production $326", "used by 4"]
    assert titles(lenses, line_of(root, "  zitadel:")[0]) == ["dev $8.01 · staging $8.01 · production $96.04"]

    # The lens command changes nothing: it answers with the environment's plan JSON.
    plan = await asyncio.wait_for(
        client.workspace_execute_command_async(types.ExecuteCommandParams(command=dev.command.command, arguments=list(dev.command.arguments))), TIMEOUT
    )
    assert plan["name"] == "dev" and plan["total_monthly_usd"] == 126.88 and plan["cap_monthly_usd"] == 150
    item = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="runway.showCost", arguments=[root.as_uri(), {"name": "main-db"}]))
    assert item["environments"]["production"]["monthly_usd"] == 325.81
    assert await client.workspace_execute_command_async(types.ExecuteCommandParams(command="runway.showCost", arguments=["nonsense"])) is None


@pytest.mark.parametrize(("caps", "encoding"), CAPS)
async def test_inlay_hints_after_size_values(client: LanguageClient, orders: Path, caps, encoding):
    root, checkout, _billing = files(orders)
    await init(client, caps(), orders)
    did_open(client, root)
    hints = await inlay_hints(client, root)
    staging_line, staging = line_of(root, "      staging: medium")
    hint = next(h for h in hints if h.position.line == staging_line)
    assert hint.label == "≈ $139.47/mo"
    assert hint.position.character == len(staging)
    assert hint.padding_left is True
    assert hint.tooltip == "main-db in staging: medium, $139.47 per month"
    assert [h.label for h in hints if h.position.line == line_of(root, "monthly: 500")[0]] == ["≈ 52% used"]
    assert [h.label for h in hints if h.position.line == line_of(root, "    size: medium")[0]] == ["≈ $32.02/mo in dev"]
    # Only the requested range; in a member, what its `requires` cost (issue 15).
    only = await inlay_hints(client, root, (staging_line, 0), (staging_line + 1, 0))
    assert [h.label for h in only] == ["≈ $139.47/mo"]
    did_open(client, checkout)
    assert [h.label for h in await inlay_hints(client, checkout)] == ["≈ $0.40/mo in dev", "≈ $9.34/mo in dev"]
    assert [lens.command.title for lens in await code_lenses(client, checkout)] == [
        "shared-queue: dev $0.40 · staging $0.40 · production $10.00", "used by 2", "shared-cache: dev $9.34 · staging $37.38 · production $185", "used by 1",
    ]


EMOJI_RUNWAY = (
    "runway: 1\n"
    "product: shop\n"
    "workloads:\n"
    '  web: { reason: "🚀 on-prem-parity", image: "nginx@sha256:' + "ab" * 32 + '", port: 80, health: { path: / }, size: medium }\n'
)


@pytest.mark.parametrize(("caps", "encoding"), CAPS)
async def test_hint_positions_count_an_emoji_in_the_negotiated_encoding(client: LanguageClient, tmp_path: Path, caps, encoding):
    f = tmp_path.resolve() / "runway.yaml"
    f.write_text(EMOJI_RUNWAY, encoding="utf-8")
    await init(client, caps(), tmp_path)
    did_open(client, f)
    line = EMOJI_RUNWAY.splitlines()[3]
    end_cp = line.index("medium") + len("medium")
    unit = len(line[:end_cp].encode("utf-8")) if encoding == "utf-8" else len(line[:end_cp].encode("utf-16-le")) // 2
    assert unit == end_cp + (3 if encoding == "utf-8" else 1)  # the emoji: 4 bytes, 2 utf-16 units, 1 code point
    hints = await inlay_hints(client, f)
    assert [(h.position.line, h.position.character, h.label) for h in hints] == [(3, unit, "≈ $32.02/mo in dev")]
    # A range ending just before the hint (in the same units) excludes it.
    assert await inlay_hints(client, f, (3, 0), (3, unit - 1)) == []
    lenses = await code_lenses(client, f)
    assert titles(lenses, 3) == ["dev $32.02 · staging $32.02 · production $32.02"]
    assert (lenses[-1].range.start.character, lenses[-1].range.end.character) == (2, 5)


# --- edits, saves and refreshes ------------------------------------------------------------------


@pytest.mark.parametrize(("caps", "encoding"), CAPS)
async def test_editing_a_size_changes_the_lenses_and_the_delta_since_save(client: LanguageClient, orders: Path, caps, encoding):
    root, _checkout, _billing = files(orders)
    await init(client, caps(), orders)
    text = root.read_text(encoding="utf-8")
    did_open(client, root, text)
    assert titles(await code_lenses(client, root), line_of(root, "  staging:")[0]) == ["staging $258.11 / $500 · 52%"]

    text = replace_line(client, root, text, 2, "staging: medium", "staging: large")
    lenses = await code_lenses(client, root)
    assert titles(lenses, line_of(root, "  main-db:")[0]) == ["dev $36.28 · staging $326 · production $326", "used by 4"]
    # The disk (the last save) still says medium: the change since save is in the lens.
    assert titles(lenses, line_of(root, "  staging:")[0]) == ["staging $444.45 / $500 · 89% · +$186.34/mo since save"]
    staging_line, _ = line_of(root, "      staging: medium")
    assert [h.label for h in await inlay_hints(client, root) if h.position.line == staging_line] == ["≈ $325.81/mo"]

    # Save: the delta is gone (a client with refresh support is asked to refresh).
    root.write_text(text, encoding="utf-8")
    did_save(client, root)
    if caps().workspace.code_lens is not None:
        await until_request(client, types.WORKSPACE_CODE_LENS_REFRESH)
    assert titles(await code_lenses(client, root), line_of(root, "  staging:")[0]) == ["staging $444.45 / $500 · 89%"]

    # Another edit after the save: only its own change shows.
    text = replace_line(client, root, text, 3, "production: large", "production: medium")
    lenses = await code_lenses(client, root)
    assert titles(lenses, line_of(root, "  production:")[0]) == ["production $641.69 / $2,500 · 26% · −$186.34/mo since save"]
    assert titles(lenses, line_of(root, "  staging:")[0]) == ["staging $444.45 / $500 · 89%"]


async def test_a_member_edit_refreshes_the_root_lenses(client: LanguageClient, orders: Path):
    root, checkout, _billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    did_open(client, checkout)
    events_line, _ = line_of(root, "  order-events:")
    assert titles(await code_lenses(client, root), events_line)[1] == "used by 1"
    before = client.requests.count(types.WORKSPACE_CODE_LENS_REFRESH)  # type: ignore[attr-defined]

    line_no, line = line_of(checkout, "uses: [main-db, order-events]")
    did_change(client, checkout, 2, (line_no, 0), (line_no, len(line)), "uses: [main-db]")
    await until_request(client, types.WORKSPACE_CODE_LENS_REFRESH, before + 1)
    assert titles(await code_lenses(client, root), events_line)[1] == "unused"


async def test_no_refresh_request_to_a_client_without_refresh_support(client: LanguageClient, orders: Path):
    root, checkout, _billing = files(orders)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    did_open(client, checkout)
    await code_lenses(client, root)
    line_no, line = line_of(checkout, "uses: [main-db, order-events]")
    did_change(client, checkout, 2, (line_no, 0), (line_no, len(line)), "uses: [main-db]")
    await until(client, lambda: "RW180" in codes(client, root))
    events_line, _ = line_of(root, "  order-events:")
    assert titles(await code_lenses(client, root), events_line)[1] == "unused"
    assert types.WORKSPACE_CODE_LENS_REFRESH not in client.requests  # type: ignore[attr-defined]
    assert types.WORKSPACE_INLAY_HINT_REFRESH not in client.requests  # type: ignore[attr-defined]


# --- while the YAML does not parse ----------------------------------------------------------------


async def hover_at(client: LanguageClient, path: Path, line: int, character: int) -> types.Hover | None:
    return await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=line, character=character))
        ),
        TIMEOUT,
    )


async def real_codes(client: LanguageClient, path: Path, caps) -> list[str]:
    """The diagnostic codes of ``path`` for the current text (pulled, or awaited when pushed)."""
    if caps().text_document.diagnostic is not None:
        return [d.code for d in await pull_until(client, path, lambda items: "RW001" in [d.code for d in items])]
    await until(client, lambda: "RW001" in codes(client, path))
    return codes(client, path)


def shown(lenses: list[types.CodeLens]) -> list[tuple]:
    return [(lens.range.start.line, lens.range.start.character, lens.range.end.character, lens.command.title) for lens in lenses]


@pytest.mark.parametrize(("caps", "encoding"), CAPS)
async def test_costs_stay_in_view_while_a_key_is_half_typed(client: LanguageClient, orders: Path, caps, encoding):
    """`  new-wl` (no colon yet) appended to the workloads breaks the YAML: the diagnostics say
    so (RW001, from the real text), while lenses, hints and hovers keep their costs (from the
    same text with that line blanked)."""
    root, _checkout, _billing = files(orders)
    await init(client, caps(), orders)
    text = root.read_text(encoding="utf-8")
    did_open(client, root, text)
    lenses, hints = shown(await code_lenses(client, root)), await inlay_hints(client, root)
    assert lenses and hints
    last = text.count("\n")  # the empty line after the final line break
    did_change(client, root, 2, (last, 0), (last, 0), "  new-wl")
    assert "RW001" in await real_codes(client, root, caps)
    assert shown(await code_lenses(client, root)) == lenses
    assert [(h.position, h.label) for h in await inlay_hints(client, root)] == [(h.position, h.label) for h in hints]
    db_line, _ = line_of(root, "  main-db:")
    assert "| monthly | $36.28 | $139.47 | $325.81 |" in flat((await hover_at(client, root, db_line, 4)).contents.value)
    staging_line, staging = line_of(root, "      staging: medium")
    assert "main-db in staging: medium, $139.47/month" in (await hover_at(client, root, staging_line, len(staging) - 2)).contents.value

    # An unclosed quote no blanking repairs: the last analysis that parsed, its lines mapped
    # onto the current text (a line inserted above shifts them all).
    version_line, version = line_of(root, 'version: "16"')
    did_change(client, root, 3, (version_line, len(version) - 1), (version_line, len(version)), "")
    did_change(client, root, 4, (last, 0), (last, len("  new-wl")), "")
    did_change(client, root, 5, (0, 0), (0, 0), "# a comment above\n")
    assert "RW001" in await real_codes(client, root, caps)
    # ... the environment totals marked stale, as the status bar and the plan view say (issue 26)
    env_titles = {t for _l, _a, _b, t in lenses if re.match(r"(dev|staging|production) \$[\d,.]+ (/ |· no cap)", t)}  # not an item's "dev $36.28 · staging …"
    assert env_titles
    assert shown(await code_lenses(client, root)) == [(line + 1, a, b, f"{title} · stale" if title in env_titles else title) for line, a, b, title in lenses]
    assert "| monthly | $36.28 | $139.47 | $325.81 |" in flat((await hover_at(client, root, db_line + 1, 4)).contents.value)


@pytest.mark.parametrize(("caps", "encoding"), CAPS)
async def test_a_lone_surrogate_in_the_text_breaks_no_feature(client: LanguageClient, orders: Path, caps, encoding):
    """JSON may carry a lone surrogate (``"\\ud800"``), which no UTF-8 holds: the server keeps
    U+FFFD in its place (one code point, one UTF-16 unit: positions hold)."""
    root, _checkout, _billing = files(orders)
    await init(client, caps(), orders)
    text = root.read_text(encoding="utf-8").replace("# Root runway", "# Root \ud800 runway", 1)
    did_open(client, root, text)
    expected = [(line, title) for line, _a, _b, title in shown(await code_lenses(client, root))]
    assert expected and ("dev $126.88 / $150 · 85%" in [t for _l, t in expected])
    product_line, product = line_of(root, "product: orders")
    did_change(client, root, 2, (product_line, len(product)), (product_line, len(product)), "  # \udc00")
    assert [(line, title) for line, _a, _b, title in shown(await code_lenses(client, root))] == expected
    db_line, _ = line_of(root, "  main-db:")
    assert "$139.47" in (await hover_at(client, root, db_line, 4)).contents.value
    kind_line, kind = line_of(root, "    kind: postgres")
    items = await asyncio.wait_for(
        client.text_document_completion_async(
            types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()), position=types.Position(line=kind_line, character=len(kind)))
        ),
        TIMEOUT,
    )
    assert "queue" in [i.label for i in (items.items if isinstance(items, types.CompletionList) else items)]
    assert [h.label for h in await inlay_hints(client, root) if h.position.line == line_of(root, "      staging: medium")[0]] == ["≈ $139.47/mo"]


# --- git HEAD -------------------------------------------------------------------------------------


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
@pytest.mark.parametrize(("caps", "encoding"), CAPS)
async def test_delta_against_git_head_in_lens_and_hover(client: LanguageClient, tmp_path: Path, caps, encoding):
    repo = tmp_path.resolve() / "repo"
    shutil.copytree(EXAMPLES / "orders", repo / "orders")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "orders")
    root = repo / "orders" / "runway.yaml"
    await init(client, caps(), repo)
    text = root.read_text(encoding="utf-8")
    did_open(client, root, text)
    staging_line, _ = line_of(root, "  staging:")
    assert titles(await code_lenses(client, root), staging_line) == ["staging $258.11 / $500 · 52%"]

    text = replace_line(client, root, text, 2, "staging: medium", "staging: large")
    assert titles(await code_lenses(client, root), staging_line) == ["staging $444.45 / $500 · 89% · +$186.34/mo vs HEAD · +$186.34/mo since save"]
    hover = await asyncio.wait_for(
        client.text_document_hover_async(types.HoverParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()), position=types.Position(line=staging_line, character=4))),
        TIMEOUT,
    )
    assert "+$186.34/mo vs HEAD · +$186.34/mo since save" in hover.contents.value

    # Saved: only HEAD differs. Committed: nothing differs (HEAD moved; no editor event needed).
    root.write_text(text, encoding="utf-8")
    did_save(client, root)
    assert titles(await code_lenses(client, root), staging_line) == ["staging $444.45 / $500 · 89% · +$186.34/mo vs HEAD"]
    git(repo, "commit", "-q", "-am", "bigger staging database")
    assert titles(await code_lenses(client, root), staging_line) == ["staging $444.45 / $500 · 89%"]
