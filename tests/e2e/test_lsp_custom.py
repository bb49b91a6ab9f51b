"""End to end: the custom messages of the VS Code extension's cost views (docs/protocol.md):
``runway/costs``, ``runway/plan`` and the ``runway/costsChanged`` notification, through the
real runway-lsp over stdio (pytest-lsp). Await notifications; never sleep.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, did_change, did_open, files, init, line_of, neovim_caps, until, vscode_caps

COSTS_CHANGED = "runway/costsChanged"
CAPS = [vscode_caps, neovim_caps]
#: The initializationOptions by which a client (the VS Code extension) opts in to costsChanged.
OPT_IN = {"runwayCostNotifications": True}


def record_costs_changed(client: LanguageClient) -> list:
    """Keep every ``runway/costsChanged`` params the client receives (as plain JSON)."""
    seen: list = []

    @client.feature(COSTS_CHANGED)
    def _changed(params) -> None:
        seen.append(params)

    return seen


def as_json(value):
    """pygls hands an unknown method's params or result over as attribute objects or dicts."""
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return [as_json(v) for v in value]
    if hasattr(value, "_asdict"):
        return {k: as_json(v) for k, v in value._asdict().items()}
    if hasattr(value, "__dict__") and not isinstance(value, (str, int, float, bool)):
        return {k: as_json(v) for k, v in vars(value).items()}
    return value


async def request(client: LanguageClient, method: str, params: dict) -> dict:
    return as_json(await asyncio.wait_for(client.protocol.send_request_async(method, params), TIMEOUT))


async def wait_changed(client: LanguageClient, seen: list, count: int) -> None:
    async def loop() -> None:
        while len(seen) < count:
            await client.wait_for_notification(COSTS_CHANGED)

    await asyncio.wait_for(loop(), TIMEOUT)


@pytest.mark.parametrize("caps", CAPS)
async def test_costs_of_every_environment(client: LanguageClient, orders: Path, caps):
    root, checkout, _billing = files(orders)
    await init(client, caps(), orders)
    did_open(client, root)
    result = await request(client, "runway/costs", {"uri": root.as_uri()})
    assert result["environment"] == "dev"
    assert result["product"] == "orders"
    assert result["root_uri"] == root.as_uri()
    assert [(e["name"], e["total_monthly_usd"], e["cap_monthly_usd"], e["verdict"], e["percent"]) for e in result["environments"]] == [
        ("dev", 126.88, 150.0, "ok", 85),
        ("staging", 258.11, 500.0, "ok", 52),
        ("production", 828.03, 2500.0, "ok", 33),
    ]
    assert not any(e["missing_prices"] for e in result["environments"])
    assert (result["complete"], result["errors"]) == (True, 0)

    # An explicit environment selects it; an unknown one falls back to the first.
    assert (await request(client, "runway/costs", {"uri": root.as_uri(), "environment": "production"}))["environment"] == "production"
    assert (await request(client, "runway/costs", {"uri": root.as_uri(), "environment": "qa"}))["environment"] == "dev"

    # A member is priced with its root.
    did_open(client, checkout)
    member = await request(client, "runway/costs", {"uri": checkout.as_uri()})
    assert member["root_uri"] == root.as_uri()
    assert [e["name"] for e in member["environments"]] == ["dev", "staging", "production"]


async def test_costs_flag_an_incomplete_estimate(client: LanguageClient, orders: Path):
    """An error that drops an item (an unknown size) makes the totals lower bounds: complete false."""
    root, _checkout, _billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, root, text=root.read_text(encoding="utf-8").replace("      production: large", "      production: lage"))
    result = await request(client, "runway/costs", {"uri": root.as_uri()})
    assert [e["name"] for e in result["environments"]] == ["dev", "staging", "production"]
    assert (result["complete"], result["errors"]) == (False, 1)


async def test_costs_of_something_that_is_not_a_runway(client: LanguageClient, orders: Path):
    await init(client, vscode_caps(), orders)
    other = orders / "notes.yaml"
    other.write_text("a: 1\n", encoding="utf-8")
    assert (await request(client, "runway/costs", {"uri": other.as_uri()}))["environments"] == []
    with pytest.raises(JsonRpcInvalidParams):  # no uri: docs/protocol.md, "The `uri` of a custom request"
        await request(client, "runway/costs", {})
    assert (await request(client, "runway/plan", {"uri": other.as_uri()}))["environments"] == []


async def test_selected_environment_follows_the_inlay_hints_setting(client: LanguageClient, orders: Path):
    root, _checkout, _billing = files(orders)
    client.set_configuration({"inlayHints": {"environment": "staging"}}, section="runway")
    await init(client, vscode_caps(), orders, OPT_IN)
    did_open(client, root)
    seen = record_costs_changed(client)
    await wait_changed(client, seen, 1)  # published: the settings were pulled after initialized
    assert (await request(client, "runway/costs", {"uri": root.as_uri()}))["environment"] == "staging"
    assert (await request(client, "runway/costs", {"uri": root.as_uri(), "environment": "production"}))["environment"] == "production"


async def test_plan_of_every_environment(client: LanguageClient, orders: Path):
    root, checkout, billing = files(orders)
    await init(client, vscode_caps(), orders)
    did_open(client, checkout)
    plan = await request(client, "runway/plan", {"uri": checkout.as_uri()})
    assert plan["format_version"] == 1 and plan["product"] == "orders" and plan["region"] == "us-east-1"
    assert plan["root_uri"] == root.as_uri()
    assert set(plan["uris"]) == {root.as_uri(), checkout.as_uri(), billing.as_uri()}
    assert plan["environment"] == "dev"
    assert plan["diagnostics"]["error"] == 1  # the example's metabase digest (RW140)
    assert [e["name"] for e in plan["environments"]] == ["dev", "staging", "production"]
    for env in plan["environments"]:
        names = [i["name"] for i in env["items"]]
        assert "main-db" in names and "shared-cache" in names
        assert "checkout" in next(i for i in env["items"] if i["name"] == "shared-cache")["consumers"]  # members are consumers
        assert round(sum(i["monthly_usd"] for i in env["items"]), 2) == env["total_monthly_usd"]
        main_db = next(i for i in env["items"] if i["name"] == "main-db")
        assert main_db["kind"] == "postgres" and main_db["line_items"]


@pytest.mark.parametrize("caps", CAPS)
async def test_costs_changed_after_publishing_only_when_costs_change(client: LanguageClient, orders: Path, caps):
    root, checkout, billing = files(orders)
    seen = record_costs_changed(client)
    await init(client, caps(), orders, OPT_IN)
    did_open(client, root)
    await wait_changed(client, seen, 1)
    first = as_json(seen[0])
    assert first["uri"] == root.as_uri()
    assert set(first["uris"]) == {root.as_uri(), checkout.as_uri(), billing.as_uri()}

    # An edit that changes no cost: diagnostics are published, no notification.
    client.published.clear()  # type: ignore[attr-defined]
    did_change(client, root, 2, (0, 0), (0, 0), "# a comment\n")
    if caps is neovim_caps:
        await until(client, lambda: any(p.uri == root.as_uri() and p.version == 2 for p in client.published))  # type: ignore[attr-defined]
    else:
        # VS Code pulls its open documents: a pull after the edit answers once the flush ran.
        await asyncio.wait_for(client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=root.as_uri()))), TIMEOUT)

    # An edit that changes dev's total: one more notification, and the new total.
    line_no, _line = line_of(root, "      staging: medium")  # main-db's size map (on disk: no comment line)
    did_change(client, root, 3, (line_no + 1, 0), (line_no + 1, 0), "      dev: medium\n")
    await wait_changed(client, seen, 2)
    dev = (await request(client, "runway/costs", {"uri": root.as_uri()}))["environments"][0]
    assert dev["name"] == "dev" and dev["total_monthly_usd"] > 150 and dev["verdict"] == "over-cap" and dev["percent"] > 100
    assert len(seen) == 2  # the comment edit sent none (messages arrive in order)


async def test_a_member_edit_notifies_the_group(client: LanguageClient, orders: Path):
    root, checkout, _billing = files(orders)
    seen = record_costs_changed(client)
    await init(client, neovim_caps(), orders, OPT_IN)
    did_open(client, checkout)
    await wait_changed(client, seen, 1)
    # checkout stops requiring the shared cache: shared-cache leaves every plan.
    line_no, line = line_of(checkout, "requires: [queue, cache]")
    did_change(client, checkout, 2, (line_no, 0), (line_no, len(line)), "requires: [queue]")
    await wait_changed(client, seen, 2)
    assert as_json(seen[1])["uri"] == root.as_uri()


@pytest.mark.parametrize("options", [None, {"runwayCostNotifications": False}, {"runway": {"codeLens": {"enabled": True}}}])
async def test_no_costs_changed_to_a_client_that_did_not_opt_in(client: LanguageClient, orders: Path, options):
    """Only a client that asked (initializationOptions ``runwayCostNotifications: true``) gets
    the custom notification: Neovim, for one, logs every notification it does not know."""
    root, _checkout, _billing = files(orders)
    seen = record_costs_changed(client)
    await init(client, neovim_caps(), orders, options)
    did_open(client, root)
    await until(client, lambda: any(p.uri == root.as_uri() and p.version == 1 for p in client.published))  # type: ignore[attr-defined]
    line_no, _line = line_of(root, "      staging: medium")
    did_change(client, root, 2, (line_no + 1, 0), (line_no + 1, 0), "      dev: medium\n")
    await until(client, lambda: any(p.uri == root.as_uri() and p.version == 2 for p in client.published))  # type: ignore[attr-defined]
    # The notification would have been sent right after that publish, before this answer.
    assert (await request(client, "runway/costs", {"uri": root.as_uri()}))["environments"][0]["verdict"] == "over-cap"
    assert seen == []
