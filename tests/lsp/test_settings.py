"""Settings: parsed once into one typed object (pure tests), and read end to end through
``workspace/configuration``, ``initializationOptions`` and ``didChangeConfiguration`` from the
real runway-lsp, with visible warnings for invalid settings.

Tests await responses and notifications (``window/showMessage``, publishes) and never sleep.
"""

from __future__ import annotations

import asyncio
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
import pytest_lsp
import pytest_lsp.protocol
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, codes, did_change, did_open, files, init, line_of, neovim_caps, pull, until, vscode_caps
from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
from runway_lsp.settings import Settings, parse_settings

CATALOG = Path(__file__).resolve().parents[2] / "catalog"
CAPS = [pytest.param(vscode_caps, id="vscode"), pytest.param(lambda: neovim_caps(utf8=True), id="neovim")]


# --- pure: parse_settings ---------------------------------------------------------------------


def test_nothing_configured_gives_the_defaults_silently():
    assert parse_settings(None) == (Settings(), [])
    assert parse_settings({}) == (Settings(), [])
    d = Settings()
    assert (d.catalog_path, d.inlay_hints_environment, d.inlay_hints_enabled, d.code_lens_enabled, d.cost_delta_enabled) == (None, None, True, True, True)


def test_nested_dotted_and_prefixed_keys_parse_to_one_object():
    nested = {"catalogPath": " /cat ", "inlayHints": {"environment": "production", "enabled": False}, "codeLens": {"enabled": False}, "costDelta": {"enabled": False}}
    expected = Settings(catalog_path="/cat", inlay_hints_environment="production", inlay_hints_enabled=False, code_lens_enabled=False, cost_delta_enabled=False)
    assert parse_settings(nested) == (expected, [])
    dotted = {"catalogPath": "/cat", "inlayHints.environment": "production", "inlayHints.enabled": False, "codeLens.enabled": False, "costDelta.enabled": False}
    assert parse_settings(dotted) == (expected, [])
    assert parse_settings({f"runway.{k}": v for k, v in dotted.items()}) == (expected, [])
    # Empty strings and nulls mean "not set".
    assert parse_settings({"catalogPath": "", "inlayHints": {"environment": None}, "codeLens": None}) == (Settings(), [])


def test_unknown_keys_and_invalid_values_are_named_and_fall_back():
    settings, problems = parse_settings(
        {"inlayHints": {"enabled": "yes", "environment": 3}, "codeLense": {"enabled": False}, "catalogPath": ["x"], "costDelta": True, "codeLens": {"enabled": False}}
    )
    assert settings == Settings(code_lens_enabled=False)  # the valid one is kept
    text = "\n".join(problems)
    assert '`runway.inlayHints.enabled` must be true or false, not "yes"; the default (true) is used' in text
    assert "`runway.inlayHints.environment` must be an environment name (a string) or null, not 3" in text
    assert "`runway.codeLense` is not a setting (did you mean `runway.codeLens.enabled`?); it is ignored" in text
    assert '`runway.catalogPath` must be a folder path (a string, not a URL) or null, not ["x"]' in text
    assert "`runway.costDelta` must be an object of settings, not true" in text
    assert len(problems) == 5
    assert parse_settings("on") == (Settings(), ["the `runway` settings must be an object, not \"on\"; the defaults are used"])


# --- end to end ---------------------------------------------------------------------------------


async def code_lenses(client: LanguageClient, path: Path) -> list[types.CodeLens]:
    result = await asyncio.wait_for(
        client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))), TIMEOUT
    )
    return list(result or [])


async def inlay_hints(client: LanguageClient, path: Path) -> list[types.InlayHint]:
    rng = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=10_000, character=0))
    result = await asyncio.wait_for(
        client.text_document_inlay_hint_async(types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()), range=rng)), TIMEOUT
    )
    return list(result or [])


def titles(lenses: list[types.CodeLens], line: int) -> list[str]:
    return [lens.command.title for lens in lenses if lens.range.start.line == line]


async def until_message(client: LanguageClient, predicate) -> types.ShowMessageParams:
    """Await window/showMessage notifications until one satisfies ``predicate``."""

    async def loop() -> types.ShowMessageParams:
        while True:
            for m in client.messages:
                if predicate(m):
                    return m
            await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)

    return await asyncio.wait_for(loop(), TIMEOUT)


def did_change_configuration(client: LanguageClient, settings=None) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


@pytest.mark.parametrize("caps", CAPS)
async def test_settings_pulled_with_workspace_configuration(client: LanguageClient, orders: Path, caps):
    root, _checkout, _billing = files(orders)
    client.set_configuration({"inlayHints": {"enabled": False}, "codeLens": {"enabled": True}}, section="runway")
    await init(client, caps(), orders)
    did_open(client, root)
    assert await inlay_hints(client, root) == []
    assert titles(await code_lenses(client, root), line_of(root, "  dev:")[0]) == ["dev $126.88 / $150 · 85%"]
    assert client.messages == []  # valid settings: no warning


@pytest.mark.parametrize("caps", CAPS)
async def test_invalid_settings_warn_visibly_and_use_the_defaults(client: LanguageClient, orders: Path, caps):
    root, _checkout, _billing = files(orders)
    client.set_configuration({"inlayHints": {"enabled": "yes"}, "codeLense": {"enabled": False}}, section="runway")
    await init(client, caps(), orders)
    message = await until_message(client, lambda m: "runway.inlayHints.enabled" in m.message)
    assert message.type == types.MessageType.Warning
    assert "`runway.codeLense` is not a setting" in message.message
    did_open(client, root)
    # Defaults: hints and lenses on.
    staging_line, _ = line_of(root, "      staging: medium")
    assert [h.label for h in await inlay_hints(client, root) if h.position.line == staging_line] == ["≈ $139.47/mo"]
    assert await code_lenses(client, root)


async def test_initialization_options_when_the_client_cannot_be_asked(client: LanguageClient, orders: Path):
    root, _checkout, _billing = files(orders)
    caps = neovim_caps()
    caps.workspace.configuration = False
    await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=orders.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=orders.as_uri(), name=orders.name)],
            initialization_options={"runway": {"codeLens": {"enabled": False}, "inlayHints": {"environment": "production"}}},
        )
    )
    did_open(client, root)
    assert await code_lenses(client, root) == []
    single, _ = line_of(root, "    size: medium")
    assert [h.label for h in await inlay_hints(client, root) if h.position.line == single] == ["≈ $96.04/mo in production"]
    # A pushed didChangeConfiguration is read from its params.
    did_change_configuration(client, {"runway": {"codeLens": {"enabled": True}}})
    assert titles(await code_lenses(client, root), line_of(root, "  dev:")[0]) == ["dev $126.88 / $150 · 85%"]


async def init_neovim_07(client: LanguageClient, orders: Path, name: str | None = None, options=None) -> None:
    """Neovim 0.7's own capabilities (no ``workspace.configuration``, no dynamic registration);
    ``name`` is the ``clientInfo`` name (Neovim sends "Neovim")."""
    caps = pytest_lsp.client_capabilities("neovim@v0.7.0")
    assert caps.workspace.configuration is None and caps.workspace.did_change_configuration is None
    await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            client_info=types.ClientInfo(name=name, version="0.7.2") if name else None,
            root_uri=orders.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=orders.as_uri(), name=orders.name)],
            initialization_options=options,
        )
    )


def record_configuration(client: LanguageClient) -> list:
    """Answer ``workspace/configuration`` as the harness does, keeping each request."""
    asked: list = []

    def configuration(params: types.ConfigurationParams):
        asked.append([item.section for item in params.items])
        return [client.get_configuration(section=item.section, scope_uri=item.scope_uri) for item in params.items]

    client.protocol.fm.features[types.WORKSPACE_CONFIGURATION] = configuration  # replaces the harness' handler
    return asked


async def test_did_change_configuration_settings_for_a_client_that_cannot_be_asked(client: LanguageClient, orders: Path):
    """A Neovim-like client without ``workspace/configuration`` pushes its settings in
    ``didChangeConfiguration``: under ``runway``, or the section itself."""
    root, _checkout, _billing = files(orders)
    asked = record_configuration(client)
    await init_neovim_07(client, orders)
    did_open(client, root)
    dev_line, _ = line_of(root, "  dev:")
    single, _ = line_of(root, "    size: medium")
    assert titles(await code_lenses(client, root), dev_line) == ["dev $126.88 / $150 · 85%"]
    did_change_configuration(client, {"runway": {"codeLens": {"enabled": False}, "inlayHints": {"environment": "production"}}})
    assert await code_lenses(client, root) == []
    assert [h.label for h in await inlay_hints(client, root) if h.position.line == single] == ["≈ $96.04/mo in production"]
    did_change_configuration(client, {"codeLens": {"enabled": True}, "inlayHints.environment": "staging"})  # the section itself
    assert titles(await code_lenses(client, root), dev_line) == ["dev $126.88 / $150 · 85%"]
    assert [h.label for h in await inlay_hints(client, root) if h.position.line == single] == ["≈ $32.02/mo in staging"]
    did_change_configuration(client, {})  # nothing pushed: the initializationOptions (none): defaults
    assert [h.label for h in await inlay_hints(client, root) if h.position.line == single] == ["≈ $32.02/mo in dev"]
    assert client.messages == []  # all valid: no warning
    assert asked == []  # a client that does not declare workspace/configuration (and is not Neovim) is never asked


async def test_neovim_07_start_client_settings_are_asked_for(client: LanguageClient, orders: Path, monkeypatch):
    """Neovim 0.7 answers ``workspace/configuration`` from ``start_client{ settings = ... }``
    (runtime/lua/vim/lsp/handlers.lua) but neither declares it nor pushes those settings: the
    server asks a client named Neovim anyway. A null answer keeps the initializationOptions."""
    # This test client plays Neovim 0.7: it answers the request it did not declare.
    monkeypatch.setattr(pytest_lsp.protocol, "check_params_against_client_capabilities", lambda *args: None)
    root, _checkout, _billing = files(orders)
    asked = record_configuration(client)
    client.set_configuration({"inlayHints": {"environment": "production"}}, section="runway")
    await init_neovim_07(client, orders, name="Neovim", options={"runway": {"codeLens": {"enabled": False}}})
    did_open(client, root)
    single, _ = line_of(root, "    size: medium")
    assert [h.label for h in await inlay_hints(client, root) if h.position.line == single] == ["≈ $96.04/mo in production"]
    assert titles(await code_lenses(client, root), line_of(root, "  dev:")[0]) == ["dev $126.88 / $150 · 85%"]  # settings win
    assert asked == [["runway"]]


async def test_neovim_07_without_runway_settings_keeps_its_initialization_options(client: LanguageClient, orders: Path, monkeypatch):
    monkeypatch.setattr(pytest_lsp.protocol, "check_params_against_client_capabilities", lambda *args: None)
    root, _checkout, _billing = files(orders)
    asked = record_configuration(client)
    await init_neovim_07(client, orders, name="Neovim", options={"runway": {"codeLens": {"enabled": False}}})
    did_open(client, root)
    assert await code_lenses(client, root) == []  # the answer was null: init_options hold
    assert asked == [["runway"]] and client.messages == []


@pytest.mark.parametrize("caps", CAPS)
async def test_did_change_configuration_pulls_again(client: LanguageClient, orders: Path, caps):
    root, _checkout, _billing = files(orders)
    await init(client, caps(), orders)
    did_open(client, root)
    assert await code_lenses(client, root)
    if caps().workspace.did_change_configuration is not None:
        # VS Code allows dynamic registration: the server registers for the notification.
        assert types.CLIENT_REGISTER_CAPABILITY in client.requests  # type: ignore[attr-defined]
    client.set_configuration({"codeLens": {"enabled": False}, "inlayHints": {"enabled": False}}, section="runway")
    did_change_configuration(client)
    assert await code_lenses(client, root) == []
    assert await inlay_hints(client, root) == []
    client.set_configuration({}, section="runway")
    did_change_configuration(client)
    assert await code_lenses(client, root)


@pytest.mark.parametrize("caps", CAPS)
async def test_unknown_inlay_environment_warns_and_uses_the_first(client: LanguageClient, orders: Path, caps):
    root, _checkout, _billing = files(orders)
    client.set_configuration({"inlayHints": {"environment": "qa"}}, section="runway")
    await init(client, caps(), orders)
    did_open(client, root)
    single, _ = line_of(root, "    size: medium")
    assert [h.label for h in await inlay_hints(client, root) if h.position.line == single] == ["≈ $32.02/mo in dev"]
    message = await until_message(client, lambda m: "runway.inlayHints.environment" in m.message)
    assert message.type == types.MessageType.Warning and "'qa'" in message.message and "use dev" in message.message
    await inlay_hints(client, root)
    assert len([m for m in client.messages if "runway.inlayHints.environment" in m.message]) == 1  # warned once


@pytest.mark.parametrize("caps", CAPS)
async def test_cost_delta_setting_turns_deltas_off(client: LanguageClient, orders: Path, caps):
    root, _checkout, _billing = files(orders)
    client.set_configuration({"costDelta": {"enabled": False}}, section="runway")
    await init(client, caps(), orders)
    did_open(client, root)
    line_no, line = line_of(root, "      staging: medium")
    did_change(client, root, 2, (line_no, 15), (line_no, len(line)), "large")
    assert titles(await code_lenses(client, root), line_of(root, "  staging:")[0]) == ["staging $444.45 / $500 · 89%"]


def slow_catalog(folder: Path) -> Path:
    """A copy of the packaged catalogue with 1460-hour months: every hourly price doubles."""
    shutil.copytree(CATALOG, folder, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    sizes = folder / "sizes.toml"
    sizes.write_text(sizes.read_text(encoding="utf-8").replace("hours_per_month = 730", "hours_per_month = 1460"), encoding="utf-8")
    return folder


async def test_catalog_path_reloads_the_catalogue_and_republishes(client: LanguageClient, orders: Path):
    root, _checkout, _billing = files(orders)
    slow_catalog(orders / "my-catalog")
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: "RW140" in codes(client, root))
    assert "RW170" not in codes(client, root)

    # Relative to the workspace folder.
    client.set_configuration({"catalogPath": "my-catalog"}, section="runway")
    did_change_configuration(client)
    await until(client, lambda: "RW170" in codes(client, root))  # dev is now over its cap
    expected = analyze(str(root), load_catalog(orders / "my-catalog")).plans["dev"].total
    assert expected > Decimal(150)
    over = expected - 150
    pct = int((expected * 100 / 150).quantize(Decimal(1), rounding="ROUND_HALF_UP"))
    assert titles(await code_lenses(client, root), line_of(root, "  dev:")[0]) == [f"dev ${expected:,.2f} / $150 · {pct}% · over cap by ${over:,.2f}"]

    # Back to the packaged catalogue.
    client.set_configuration({}, section="runway")
    did_change_configuration(client)
    await until(client, lambda: "RW170" not in codes(client, root))
    assert titles(await code_lenses(client, root), line_of(root, "  dev:")[0]) == ["dev $126.88 / $150 · 85%"]


async def test_catalog_change_asks_a_pull_client_to_pull_again(client: LanguageClient, orders: Path):
    root, _checkout, _billing = files(orders)
    slow_catalog(orders.parent / "cat")
    await init(client, vscode_caps(), orders)
    did_open(client, root)
    assert "RW170" not in [d.code for d in await pull(client, root)]
    client.refreshed.clear()  # type: ignore[attr-defined]
    client.set_configuration({"catalogPath": str(orders.parent / "cat")}, section="runway")
    did_change_configuration(client)
    await asyncio.wait_for(client.refreshed.wait(), TIMEOUT)  # type: ignore[attr-defined]
    assert "RW170" in [d.code for d in await pull(client, root)]


@pytest.mark.parametrize("caps", CAPS)
async def test_an_unloadable_catalog_path_warns_and_keeps_the_packaged_one(client: LanguageClient, orders: Path, caps):
    root, _checkout, _billing = files(orders)
    (orders / "half").mkdir()
    (orders / "half" / "sizes.toml").write_text("hours_per_month = 730\n")
    client.set_configuration({"catalogPath": str(orders / "half")}, section="runway")
    await init(client, caps(), orders)
    message = await until_message(client, lambda m: "runway.catalogPath" in m.message)
    assert message.type == types.MessageType.Warning and "packaged catalogue is used" in message.message
    did_open(client, root)
    assert titles(await code_lenses(client, root), line_of(root, "  dev:")[0]) == ["dev $126.88 / $150 · 85%"]


def test_usage_path_is_a_setting() -> None:
    # runway.usagePath (docs/features.md): a path relative to each root's folder, or null.
    assert parse_settings({"usagePath": " usage/prod.yaml "}) == (Settings(usage_path="usage/prod.yaml"), [])
    settings, problems = parse_settings({"usagePath": 3})
    assert settings.usage_path is None and len(problems) == 1 and "usagePath" in problems[0]


def test_a_setting_value_is_redacted_before_it_is_cut_to_60_characters():
    """Issue 23 item 6: cut first, a URL password before its `@` (or a JWT before its second dot)
    no longer had the shape the send-time redaction knows, and the message quoted its start."""
    pg = "postgres://app:Zm9vYmFyYmF6" + "a" * 40 + "@db.internal:5432/app"
    _settings, problems = parse_settings({"catalogPath": [pg], "inlayHints": {"environment": {"url": pg}}})
    text = "\n".join(problems)
    assert len(problems) == 2 and "Zm9vYmFy" not in text, text
