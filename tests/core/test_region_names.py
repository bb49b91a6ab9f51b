"""``region:`` is checked against every AWS region (catalog/aws_regions.json, generated from
botocore's endpoint data): a name that is no AWS region is RW164 at the value, with the
lower-case name or the closest region suggested and a quick fix; a valid AWS region the
catalogue does not price stays RW160 (with the refresh command, no other region suggested)
and fails closed through RW162/RW163 (docs/diagnostics.md)."""

from __future__ import annotations

import pytest

from runway_core.catalog import aws_regions
from runway_core.ide.fixes import fixes_for
from tests.core.test_fixes import ROOT, analyse, apply_edits, diags


def runway(region: str) -> str:
    return (
        "runway: 1\nproduct: shop\n"
        f"region: {region}\n"
        "environments:\n  dev: {}\n"
        "resources:\n  jobs:\n    kind: queue\n"
    )


def test_the_region_list_holds_every_partition():
    regions = aws_regions()
    assert regions["us-east-1"] == "aws" and regions["eu-west-1"] == "aws"
    assert regions["cn-north-1"] == "aws-cn" and regions["us-gov-west-1"] == "aws-us-gov"
    assert all(r == r.lower() and r.count("-") >= 2 for r in regions)
    assert len([r for r, p in regions.items() if p == "aws"]) >= 30


@pytest.mark.parametrize(
    ("region", "suggestion"),
    [
        ("EU-WEST-1", "eu-west-1"),  # wrong case
        ("Us-East-1", "us-east-1"),
        ("eu-west1", "eu-west-1"),  # a near miss
        ("us-east1", "us-east-1"),
        ("euwest-2", "eu-west-2"),  # an unpriced region is suggested too
    ],
)
def test_not_an_aws_region_is_rw164_with_the_closest_name(catalog, region, suggestion):
    an = analyse(runway(region), catalog)
    (d,) = diags(an, "RW164")
    assert d.severity.name == "ERROR"
    # At the value of `region` (line 2, after "region: ").
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (2, 8, 8 + len(region))
    assert f"`{region}` is not an AWS region; did you mean `{suggestion}`?" in d.message
    assert d.data == {"region": region, "suggestion": suggestion}
    # The consequences are not reported as if the region existed; the plan stays refused.
    assert not [x for x in an.all_diagnostics() if x.code in ("RW160", "RW161", "RW162", "RW163")]
    assert an.plans["dev"].verdict == "unpriced"
    # The quick fix writes the suggestion, and the fixed runway has no RW164.
    (fix,) = fixes_for(an, ROOT, [d])
    assert fix.title == f"Change region to `{suggestion}`" and fix.is_preferred
    fixed = apply_edits(runway(region), fix.edits[ROOT])
    assert fixed == runway(suggestion)
    assert not diags(analyse(fixed, catalog), "RW164")


def test_a_name_like_a_region_gets_a_region_suggested(catalog):
    (d,) = diags(analyse(runway("us-east-9"), catalog), "RW164")
    # us-east-1 and us-east-2 are as close: the priced one is suggested.
    assert d.data["suggestion"] == "us-east-1"


def test_a_name_far_from_any_region_gets_no_suggestion(catalog):
    (d,) = diags(analyse(runway("mars"), catalog), "RW164")
    assert d.data["suggestion"] is None and "did you mean" not in d.message


@pytest.mark.parametrize(("region", "partition"), [("eu-west-2", "an AWS region"), ("ap-southeast-2", "an AWS region"),
                                                   ("cn-north-1", "an AWS region of the aws-cn partition")])
def test_a_valid_region_without_prices_is_rw160_and_fails_closed(catalog, region, partition):
    an = analyse(runway(region), catalog)
    assert not diags(an, "RW164")
    (d,) = diags(an, "RW160")
    assert f"region `{region}` has no prices in the catalogue ({partition};" in d.message
    assert f"runway-deploy catalog refresh --region {region}" in d.message
    assert "did you mean" not in d.message  # a valid region is what was meant
    assert diags(an, "RW162") and an.plans["dev"].verdict == "unpriced"


def test_priced_regions_pass(catalog):
    for region in sorted(catalog.regions):
        an = analyse(runway(region), catalog)
        assert not [d for d in an.all_diagnostics() if d.code in ("RW160", "RW164")], region


def test_a_catalogue_that_prices_a_region_botocore_does_not_know_is_trusted(catalog, tmp_path):
    """A --catalog folder refreshed for a region newer than the packaged list: no RW164."""
    import csv
    import io

    from runway_core.catalog import load_catalog
    from importlib import resources

    folder = tmp_path / "cat"
    folder.mkdir()
    root = resources.files("catalog")
    (folder / "sizes.toml").write_bytes(root.joinpath("sizes.toml").read_bytes())
    rows = list(csv.DictReader(io.StringIO(root.joinpath("prices.csv").read_text(encoding="utf-8"))))
    extra = [dict(r, region="zz-newplace-1") for r in rows if r["key"] and "us-east-1" in r["region"].split(";")]
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows + extra)
    (folder / "prices.csv").write_text(out.getvalue(), encoding="utf-8")
    cat = load_catalog(folder)
    assert "zz-newplace-1" in cat.regions and "zz-newplace-1" not in aws_regions()
    an = analyse(runway("zz-newplace-1"), cat)
    assert not [d for d in an.all_diagnostics() if d.code in ("RW160", "RW164")]
