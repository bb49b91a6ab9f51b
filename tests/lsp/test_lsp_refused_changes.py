"""The editor shows the changes AWS refuses against the deployed plan (issue 24, RW190-RW193):
a real runway-lsp over stdio, a product whose `.runway/` records hold a succeeded `up` and the
reviewed plan under its digest (docs/deploy.md, "The reviewed plan")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import did_change, did_open, init, line_of, neovim_caps, until
from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
from runway_core.planner import environment_json, plan_digest


def _deployed(root: Path) -> None:
    """Records of the runway as it is now: a succeeded `up` of production and its plan."""
    an = analyze(str(root), load_catalog())
    plan = an.plans["production"]
    digest = plan_digest(plan, an.spec.product, an.spec.region)
    record = {"format_version": 1, "plan_digest": digest, "env_values": "sha256",
              "plan": {"format_version": 1, "product": an.spec.product, "region": an.spec.region, "environment": environment_json(plan)}}
    (root.parent / ".runway/plans/production").mkdir(parents=True)
    (root.parent / f".runway/plans/production/{digest}.json").write_text(json.dumps(record))
    (root.parent / ".runway/receipts/production").mkdir(parents=True)
    (root.parent / ".runway/receipts/production/20261130T091502.123456Z.json").write_text(
        json.dumps({"command": "up", "outcome": "succeeded", "plan_digest": digest}))


async def test_a_storage_shrink_against_the_deployed_plan_is_an_error_on_the_resource(client: LanguageClient, orders: Path):
    root = orders / "runway.yaml"
    _deployed(root)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: root.as_uri() in client.diagnostics)
    assert not [d for d in client.diagnostics[root.as_uri()] if str(d.code).startswith("RW19")]
    # main-db's size for production: large -> medium (the first `production: large` of the file).
    line_no, line = line_of(root, "      production: large")
    start = line.index("large")
    did_change(client, root, 2, (line_no, start), (line_no, start + len("large")), "medium")
    await until(client, lambda: any(d.code == "RW191" for d in client.diagnostics.get(root.as_uri(), [])))
    (d,) = [d for d in client.diagnostics[root.as_uri()] if d.code == "RW191"]
    line_no, line = line_of(root, "  main-db:")
    assert (d.range.start.line, d.range.start.character) == (line_no, 2)
    assert d.severity == types.DiagnosticSeverity.Error and "250 -> 100 GB" in d.message


def _deployed_malformed(root: Path, field: str, value) -> None:
    """Records of a succeeded `up` of production whose plan's main-db capacity holds ``value``
    at ``field``, which no plan holds (ninth adversary C6): a pull request can commit both."""
    an = analyze(str(root), load_catalog())
    env = environment_json(an.plans["production"])
    for item in env["items"]:
        if item["name"] == "main-db":
            item["capacity"][field] = value
    digest = "a" * 64
    record = {"format_version": 1, "plan_digest": digest, "env_values": "sha256",
              "plan": {"format_version": 1, "product": an.spec.product, "region": an.spec.region, "environment": env}}
    (root.parent / ".runway/plans/production").mkdir(parents=True)
    (root.parent / f".runway/plans/production/{digest}.json").write_text(json.dumps(record))
    (root.parent / ".runway/receipts/production").mkdir(parents=True)
    (root.parent / ".runway/receipts/production/20261130T091502.123456Z.json").write_text(
        json.dumps({"command": "up", "outcome": "succeeded", "plan_digest": digest}))


@pytest.mark.parametrize(("field", "value"), [("engine_version", "\u00b2"), ("engine_version", "1" * 5000), ("storage_gb", True)],
                         ids=["superscript", "5000-digits", "storage-true"])
async def test_a_malformed_deployed_record_is_skipped_and_the_server_answers(client: LanguageClient, orders: Path, field, value):
    root = orders / "runway.yaml"
    _deployed_malformed(root, field, value)
    await init(client, neovim_caps(), orders)
    did_open(client, root)
    await until(client, lambda: root.as_uri() in client.diagnostics)
    line_no, line = line_of(root, "      production: large")
    start = line.index("large")
    did_change(client, root, 2, (line_no, start), (line_no, start + len("large")), "medium")
    await until(client, lambda: any(p.version == 2 for p in client.published if p.uri == root.as_uri()))
    assert not [d for d in client.diagnostics[root.as_uri()] if str(d.code).startswith("RW19")]
    # The server goes on: a hover of the resource is answered.
    db_line, db = line_of(root, "  main-db:")
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(root.as_uri()), types.Position(db_line, db.index("main-db") + 1)))
    assert hover is not None and "main-db" in str(hover.contents)


async def test_a_malformed_record_of_a_big_product_is_skipped_on_the_analysis_thread(client: LanguageClient, tmp_path: Path):
    """The same through the analysis thread (a root listing BIG_PRODUCT_FILES members:
    runway_lsp/analysis_thread.py calls with_recorded_changes there): published, never silent."""
    from runway_lsp.analysis_thread import BIG_PRODUCT_FILES

    product = tmp_path.resolve() / "big"
    product.mkdir()
    lines = ["runway: 1", "product: big", "region: us-east-1", "members:"]
    lines += [f"  - services/svc-{i:04d}" for i in range(BIG_PRODUCT_FILES)]
    lines += ["environments:", "  dev: {}", "resources:", "  main-db: {kind: postgres, size: {dev: small}}"]
    root = product / "runway.yaml"
    root.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for i in range(BIG_PRODUCT_FILES):
        member = product / "services" / f"svc-{i:04d}" / "runway.yaml"
        member.parent.mkdir(parents=True)
        member.write_text(f"runway: 1\nmember: svc-{i:04d}\nuses: [main-db]\n", encoding="utf-8")
    an = analyze(str(root), load_catalog())
    env = environment_json(an.plans["dev"])
    next(i for i in env["items"] if i["name"] == "main-db")["capacity"]["engine_version"] = "\u00b2"
    digest = "b" * 64
    (product / ".runway/plans/dev").mkdir(parents=True)
    (product / f".runway/plans/dev/{digest}.json").write_text(json.dumps(
        {"format_version": 1, "plan_digest": digest, "plan": {"format_version": 1, "product": "big", "region": "us-east-1", "environment": env}}))
    (product / ".runway/receipts/dev").mkdir(parents=True)
    (product / ".runway/receipts/dev/20261130T091502.123456Z.json").write_text(
        json.dumps({"command": "up", "outcome": "succeeded", "plan_digest": digest}))
    await init(client, neovim_caps(), product)
    did_open(client, root)
    await until(client, lambda: root.as_uri() in client.diagnostics)
    assert not [d for d in client.diagnostics[root.as_uri()] if str(d.code).startswith("RW19")]
    db_line, db = line_of(root, "  main-db:")
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(root.as_uri()), types.Position(db_line, db.index("main-db") + 1)))
    assert hover is not None and "main-db" in str(hover.contents)
