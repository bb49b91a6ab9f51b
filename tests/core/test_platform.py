"""A workload's CPU architecture is a choice (issue 24): ``platform: linux/arm64`` (default) or
``linux/amd64``, priced with the matching Fargate rows of catalog/prices.csv in every region the
catalogue prices (the rows' own sources: AWS Price List AmazonECS ``Fargate-vCPU-Hours:perCPU``
for x86, ``Fargate-ARM-vCPU-Hours:perCPU`` for Graviton)."""

from __future__ import annotations

import csv
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

from runway_core.analysis import analyze

PRICES = Path(__file__).resolve().parents[2] / "catalog" / "prices.csv"
DIGEST = "@sha256:" + "ab" * 32


def _rows() -> dict[tuple[str, str], Decimal]:
    out = {}
    with PRICES.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["key"].startswith("fargate:"):
                assert row["source"].strip(), f"{row['key']} {row['region']}: a price without a source"
                for region in row["region"].split(";"):
                    out[(row["key"], region)] = Decimal(row["usd"])
    return out


def _regions() -> list[str]:
    return sorted({r for (_, r) in _rows()})


@pytest.mark.parametrize("region", _regions())
@pytest.mark.parametrize("platform, arch, key", [(None, "ARM64", "arm"), ("linux/arm64", "ARM64", "arm"), ("linux/amd64", "X86_64", "x86")])
def test_platform_is_priced_with_its_fargate_prices_in_every_catalogue_region(tmp_path, catalog, region, platform, arch, key):
    rows = _rows()
    for part in ("vcpu", "memory"):
        assert (f"fargate:{key}:{part}", region) in rows, "every catalogue region has both architectures"
    line = f"\n    platform: {platform}" if platform else ""
    (tmp_path / "runway.yaml").write_text(textwrap.dedent(f"""\
        runway: 1
        product: shop
        region: {region}
        workloads:
          api:
            image: example/api{DIGEST}
            reason: no-managed-fit
            port: 8080
            health: {{command: [/bin/ok]}}""") + line + "\n")
    an = analyze(str(tmp_path / "runway.yaml"), catalog)
    assert not an.has_errors(), an.all_diagnostics()
    item = an.plans["dev"].item("api")
    assert item.capacity["architecture"] == arch and item.capacity["platform"] == (platform or "linux/arm64")
    fargate = {li.price_key: li for li in item.line_items if li.price_key.startswith("fargate:")}
    assert set(fargate) == {f"fargate:{key}:vcpu", f"fargate:{key}:memory"}
    for k, li in fargate.items():
        assert li.unit_usd == rows[(k, region)]


def test_an_unknown_platform_is_a_model_error(tmp_path, catalog):
    (tmp_path / "runway.yaml").write_text(textwrap.dedent(f"""\
        runway: 1
        product: shop
        workloads:
          api:
            image: example/api{DIGEST}
            reason: no-managed-fit
            port: 8080
            health: {{command: [/bin/ok]}}
            platform: linux/riscv64
        """))
    an = analyze(str(tmp_path / "runway.yaml"), catalog)
    assert [d.code for d in an.all_diagnostics() if d.code == "RW100"]
