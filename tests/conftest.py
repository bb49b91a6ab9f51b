"""Shared fixtures of every tier (paths of the examples, the packaged catalogue, the LSP
harness), and the ``e2e`` marker of the slow tier."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The LSP harness's fixtures (`client`: a real runway-lsp over stdio; `orders`: a private copy
# of examples/orders) for every end-to-end test module.
from lspclient import client, orders  # noqa: E402,F401

# A real moto_server on 127.0.0.1 (session-wide, stopped by PID): `moto_server.client("s3")`,
# `moto_server.bucket(object_lock=True)`, `moto_server.env()` (tests/motoserver.py).
from motoserver import moto_server  # noqa: E402,F401

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
#: The slow tier (docs/architecture.md, "Tests"): every test under tests/e2e/ carries the
#: ``e2e`` marker registered in pyproject.toml, so ``pytest -m "not e2e"`` runs the fast tiers
#: (tests/core, tests/lsp, tests/deploy) alone and plain ``pytest`` still runs everything.
E2E = Path(__file__).resolve().parent / "e2e"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.is_relative_to(E2E):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def catalog():
    from runway_core.catalog import load_catalog

    return load_catalog()


@pytest.fixture(scope="session")
def orders_root() -> Path:
    return EXAMPLES / "orders" / "runway.yaml"


@pytest.fixture(scope="session")
def python_exe() -> str:
    return sys.executable


def catalog_without(folder: Path, gaps: set[tuple[str, str]]):
    """The packaged catalogue written to ``folder`` without the prices ``{(key, region)}``
    (a row covering several regions keeps the others), loaded: a catalogue with known gaps,
    now that the packaged one prices every key in each of its regions (issue 13)."""
    import csv
    import io
    import shutil

    from runway_core.catalog import load_catalog

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "catalog" / "sizes.toml", folder / "sizes.toml")
    with (ROOT / "catalog" / "prices.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    for row in rows:
        regions = [r for r in row["region"].split(";") if (row["key"], r) not in gaps]
        if regions:
            out.append({**row, "region": ";".join(regions)})
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(out)
    (folder / "prices.csv").write_text(buf.getvalue(), encoding="utf-8")
    return load_catalog(folder)


@pytest.fixture
def account_checks_pass(monkeypatch):
    """For tests about the deploy's guards, credentials and receipts: the AWS account checks
    (network pre-flight, the SSM wait) pass; they run against moto_server in
    tests/deploy/test_preflight.py."""
    from deploy_engine import preflight

    monkeypatch.setattr(preflight, "network_problems", lambda *a, **k: preflight.NetworkReport())
    monkeypatch.setattr(preflight, "wait_for_parameters", lambda *a, **k: preflight.ParameterWait())
    monkeypatch.setattr(preflight, "pending_modifications", lambda *a, **k: [])
    from deploy_engine import engine_versions

    # Engine versions are resolved against a stubbed RDS in tests/deploy/test_engine_versions.py.
    monkeypatch.setattr(engine_versions, "resolve_all", lambda *a, **k: {})
    # No registry is reached from these tests (the image check runs against a fake OCI registry
    # in tests/deploy/test_image_platforms.py): every image reads as "not checked".
    from deploy_engine import images

    def offline(url, headers):
        raise images.RegistryUnreadable("no registry in these tests")

    monkeypatch.setattr(images, "http_fetch", offline)
