"""A deployed plan whose capacity fields do not fit (ninth adversary C6): `engine_version: "²"`,
a 5,000-digit version, `"١٧"` (Arabic-Indic digits), `storage_gb: true`. A record is evidence,
never an instruction: such a document is no plan (`PlanDocumentError`: exit 3 for `check
--deployed FILE`), a record holding it is skipped, and the refused-change checks never raise on
what they are given (runway_core.changes)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from runway_core.changes import _version, deployed_from_records, refused_changes, side_of_deployed, with_recorded_changes
from runway_core.plan_diff import PlanDocumentError, PlanSide, SideEnvironment, SideItem
from runway_core.planner import Plan, plan_json

from test_changes import RUNWAY, _analyse

#: (field, value) of prod's main-db capacity that no plan holds.
MALFORMED = [
    ("engine_version", "\u00b2"),
    ("engine_version", "1" * 5000),
    ("engine_version", "\u0661\u0667"),
    ("engine_version", 17),
    ("engine_version", ""),
    ("storage_gb", True),
    ("storage_gb", "250"),
    ("storage_gb", -1),
    ("storage_gb", float("nan")),
    ("flavor", 1),
]


def _record(an, field: str, value) -> dict:
    env_doc = plan_json(Plan("shop", "us-east-1", (an.plans["prod"],), an.catalog.origin))["environments"][0]
    (db,) = [i for i in env_doc["items"] if i["name"] == "main-db"]
    db["capacity"][field] = value
    return {"format_version": 1, "plan_digest": "ab" * 32, "env_values": "sha256",
            "plan": {"format_version": 1, "product": "shop", "region": "us-east-1", "environment": env_doc}}


@pytest.mark.parametrize(("field", "value"), MALFORMED, ids=[f"{f}={str(v)[:8]!r}" for f, v in MALFORMED])
def test_a_deployed_plan_with_a_malformed_capacity_field_is_no_plan(tmp_path, catalog, field, value):
    an = _analyse(tmp_path, RUNWAY, catalog)
    with pytest.raises(PlanDocumentError, match=rf"capacity\.{field}"):
        side_of_deployed(json.loads(json.dumps(_record(an, field, value)), parse_float=Decimal))


@pytest.mark.parametrize(("field", "value"), MALFORMED, ids=[f"{f}={str(v)[:8]!r}" for f, v in MALFORMED])
def test_a_record_holding_a_malformed_plan_is_skipped_never_raises(tmp_path, catalog, field, value):
    an = _analyse(tmp_path, RUNWAY, catalog)
    digest = "ab" * 32
    (tmp_path / ".runway/plans/prod").mkdir(parents=True)
    (tmp_path / f".runway/plans/prod/{digest}.json").write_text(json.dumps(_record(an, field, value)))
    (tmp_path / ".runway/receipts/prod").mkdir(parents=True)
    (tmp_path / ".runway/receipts/prod/20261130T091502.123456Z.json").write_text(
        json.dumps({"command": "up", "outcome": "succeeded", "plan_digest": digest}))
    assert deployed_from_records(str(tmp_path)) is None
    shrunk = _analyse(tmp_path, RUNWAY.replace("size: {prod: large, preview: large}", "size: {prod: medium, preview: large}"), catalog)
    with_recorded_changes(shrunk)
    assert not [d for d in shrunk.all_diagnostics() if d.code.startswith("RW19")]


def test_versions_are_ascii_digits_and_bounded():
    assert _version("16") == (16,) and _version("7.2") == (7, 2)
    for v in ("\u00b2", "\u0661\u0667", "\uff11\uff16", "1" * 5000, "1" * 10, "16\n", " 16", "1.2.3.4.5", "latest", "", None, True, 16):
        assert _version(v) is None, v


def test_refused_changes_never_raise_on_the_sides_they_are_given(tmp_path, catalog):
    """The checks themselves hold when a side was built without the document checks (a runway's
    own plan, a caller's side): a field that does not fit is not compared, never a crash."""
    an = _analyse(tmp_path, RUNWAY, catalog)
    for field, value in MALFORMED:
        item = next(i for i in an.plans["prod"].items if i.name == "main-db")
        cap = {**item.capacity, field: value}
        env = SideEnvironment("prod", None, Decimal("0.00"), "no-cap",
                              (SideItem("main-db", "postgres", "large", Decimal("0.00"), cap),))
        assert not [d for d in refused_changes(an, PlanSide("shop", "us-east-1", (env,)), "x") if d.code in ("RW191", "RW192")], field
