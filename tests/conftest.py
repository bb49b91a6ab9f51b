"""Shared fixtures: paths of the examples and the packaged catalogue."""

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


@pytest.fixture
def account_checks_pass(monkeypatch):
    """For tests about the deploy's guards, credentials and receipts: the AWS account checks
    (network pre-flight, the SSM wait) pass; they run against moto_server in
    tests/test_preflight.py."""
    from deploy_engine import preflight

    monkeypatch.setattr(preflight, "network_problems", lambda *a, **k: preflight.NetworkReport())
    monkeypatch.setattr(preflight, "wait_for_parameters", lambda *a, **k: preflight.ParameterWait())
