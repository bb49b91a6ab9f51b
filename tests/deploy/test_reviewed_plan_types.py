"""Reviewed-plan records are type-checked field by field (issue 23).

``preview`` stores the plan it shows under its digest (``plans/<product>/<env>/<digest>.json``,
docs/deploy.md "The reviewed plan"); ``up --plan-digest D`` reads it back to say what changed
when today's plan is another. The state bucket is shared, so that record is input someone else
may have written: a field of the wrong JSON type (a string where a number is, ``true`` as a
number, a list where an object is) made ``plan_changes`` raise (``AttributeError``,
``TypeError``, ``ValueError``: exit 70) or print nonsense (``true`` as ``$1.00``). It is now a
clear message naming the field, and the refusal keeps its documented exit code: 8, the plan is
not the one reviewed (docs/cli.md, "Exit codes").
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from deploy_engine.records import open_store
from deploy_engine.reviewed import StoredPlanInvalid, load_reviewed_plan, plan_document, plan_key, reviewed_plan_problem
from test_deploy_cli import deploy, orders  # noqa: F401

DIGEST = "ab" * 32


@pytest.fixture(scope="module")
def good_plan(tmp_path_factory, catalog) -> dict:
    from runway_core.analysis.run import analyze

    root = orders(tmp_path_factory.mktemp("reviewed"))
    an = analyze(str(root / "runway.yaml"), catalog)
    assert an.spec is not None
    return plan_document(an.plans["dev"], an.spec.product, an.spec.region)


def _item(plan: dict, with_capacity: bool = False) -> dict:
    items = plan["environment"]["items"]
    return next(i for i in items if (i.get("capacity") if with_capacity else True))


# (what is changed, how): each a field of the wrong JSON type.
MISTYPED = [
    ("plan.environment: a list", lambda p: p.__setitem__("environment", [p["environment"]]), "plan.environment"),
    ("plan.environment: a string", lambda p: p.__setitem__("environment", "dev"), "plan.environment"),
    ("plan.region: a number", lambda p: p.__setitem__("region", 7), "plan.region"),
    ("plan.format_version: true", lambda p: p.__setitem__("format_version", True), "plan.format_version"),
    ("cap as a string", lambda p: p["environment"].__setitem__("cap_monthly_usd", "150"), "cap_monthly_usd"),
    ("cap as true", lambda p: p["environment"].__setitem__("cap_monthly_usd", True), "cap_monthly_usd"),
    ("total as a list", lambda p: p["environment"].__setitem__("total_monthly_usd", [1]), "total_monthly_usd"),
    ("items as an object", lambda p: p["environment"].__setitem__("items", {"a": 1}), "items"),
    ("an item as a string", lambda p: p["environment"]["items"].__setitem__(0, "db"), "items[0]"),
    ("an item's name as a number", lambda p: p["environment"]["items"][0].__setitem__("name", 5), "items[0].name"),
    ("an item's monthly_usd as a string", lambda p: p["environment"]["items"][0].__setitem__("monthly_usd", "12.00"), "items[0].monthly_usd"),
    ("an item's monthly_usd as false", lambda p: p["environment"]["items"][0].__setitem__("monthly_usd", False), "items[0].monthly_usd"),
    ("an item's capacity as a list", lambda p: p["environment"]["items"][0].__setitem__("capacity", [1, 2]), "items[0].capacity"),
    ("an item's consumers as a string", lambda p: p["environment"]["items"][0].__setitem__("consumers", "api"), "items[0].consumers"),
    ("an item's consumers holding a number", lambda p: p["environment"]["items"][0].__setitem__("consumers", [1]), "items[0].consumers[0]"),
    ("an item's size as an object", lambda p: p["environment"]["items"][0].__setitem__("size", {"x": 1}), "items[0].size"),
    ("a line item as a list", lambda p: p["environment"]["items"][0].__setitem__("line_items", [[1]]), "items[0].line_items[0]"),
    ("an item without its kind", lambda p: p["environment"]["items"][0].pop("kind"), "items[0].kind is missing"),
    ("an env value as a number", lambda p: _item(p, True)["capacity"].__setitem__("env", {"A": 1}), ".capacity.env.A"),
]


def _record(plan: dict) -> bytes:
    return json.dumps({"format_version": 1, "plan_digest": DIGEST, "env_values": "sha256", "plan": plan}).encode()


def test_the_good_plan_has_no_problem(good_plan):
    assert reviewed_plan_problem(good_plan) is None
    assert _item(good_plan, True)["capacity"]  # the fixture has an item with a capacity to mistype


@pytest.mark.parametrize("what, change, field", MISTYPED, ids=[m[0] for m in MISTYPED])
def test_a_mistyped_field_is_named(good_plan, what, change, field):
    plan = copy.deepcopy(good_plan)
    change(plan)
    problem = reviewed_plan_problem(plan)
    assert problem is not None and field in problem, (what, problem)


@pytest.mark.parametrize("what, change, field", MISTYPED, ids=[m[0] for m in MISTYPED])
def test_up_with_a_mistyped_reviewed_plan_is_exit_8_with_a_clear_reason(capsys, tmp_path, good_plan, what, change, field):
    root = orders(tmp_path)
    plan = copy.deepcopy(good_plan)
    change(plan)
    store = open_store("", root, {})
    store.create(plan_key(store, "orders", "dev", DIGEST), _record(plan))
    with pytest.raises(StoredPlanInvalid) as exc:
        load_reviewed_plan(store, "orders", "dev", DIGEST)
    assert field in str(exc.value)
    for fmt in ("text", "json"):
        rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--plan-digest", DIGEST, "--format", fmt, environ={})
        assert rc == 8, (what, err)
        assert "Traceback" not in err and "internal error" not in err.lower(), err
        assert "The reviewed plan could not be read" in err and field in err, err


def test_a_record_whose_own_fields_are_mistyped_is_named(tmp_path, good_plan):
    root = orders(tmp_path)
    store = open_store("", root, {})
    key = plan_key(store, "orders", "dev", DIGEST)
    doc = json.loads(_record(good_plan))
    store.create(key, json.dumps({**doc, "format_version": True}).encode())
    with pytest.raises(StoredPlanInvalid, match="format_version"):
        load_reviewed_plan(store, "orders", "dev", DIGEST)
    other = "cd" * 32
    store.create(plan_key(store, "orders", "dev", other), json.dumps({**doc, "plan_digest": other, "env_values": ["sha256"]}).encode())
    with pytest.raises(StoredPlanInvalid, match="env_values"):
        load_reviewed_plan(store, "orders", "dev", other)
