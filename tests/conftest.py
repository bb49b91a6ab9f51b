"""Shared fixtures: paths of the examples and the packaged catalogue."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

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
