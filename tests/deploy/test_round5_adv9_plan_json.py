"""A plan JSON side of `diff` is never taken on its word (ninth adversary C2; docs/cli.md,
"diff"): a head whose item is not estimated is `invalid` whatever its written verdict, and a
`diagnostics` that is not a list of Diagnostic objects, an amount written as a string or a
`not_estimated` that is no list is "not a valid plan JSON document" (exit 3)."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

from deploy_engine.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err, environ={"NO_COLOR": "1"}), out.getvalue(), err.getvalue()


def _orders(tmp_path: Path, name: str, *, huge: bool = False) -> Path:
    dest = tmp_path / name
    shutil.copytree(ROOT / "examples" / "orders", dest)
    text = re.sub(r"(metabase@sha256:)([0-9a-f]{63})\b", r"\g<1>\g<2>0", (dest / "runway.yaml").read_text())
    if huge:  # main-db's dev size is no size of the catalogue: RW130, not estimated
        text = text.replace("      staging: medium\n      production: large", "      dev: huge\n      staging: medium\n      production: large", 1)
    (dest / "runway.yaml").write_text(text)
    return dest


@pytest.fixture
def sides(tmp_path: Path) -> tuple[Path, dict]:
    """(base.json, the head document): head's main-db in dev is not estimated."""
    rc, base, _ = _run("plan", str(_orders(tmp_path, "b")), "--env", "dev", "--format", "json")
    assert rc == 0
    (tmp_path / "base.json").write_text(base)
    rc, head, _ = _run("plan", str(_orders(tmp_path, "h", huge=True)), "--env", "dev", "--format", "json")
    doc = json.loads(head)
    assert rc == 1 and doc["environments"][0]["verdict"] == "invalid" and doc["environments"][0]["not_estimated"] == ["main-db"]
    return tmp_path / "base.json", doc


def _diff(base: Path, head: dict, *extra: str) -> tuple[int, str, str]:
    path = base.parent / "head.json"
    path.write_text(json.dumps(head))
    return _run("diff", str(base), str(path), "--env", "dev", *extra)


@pytest.mark.parametrize("listed", [True, False], ids=["not_estimated-listed", "not_estimated-dropped"])
def test_a_head_with_an_item_not_estimated_is_invalid_whatever_its_written_verdict(sides, listed):
    base, head = sides
    env = head["environments"][0]
    env["verdict"] = "ok"
    if not listed:
        del env["not_estimated"]  # still known: main-db has no line item and no missing price
    head["diagnostics"] = []  # its RW130 dropped too: the figures alone say it
    for extra in ((), ("--max-increase", "0")):
        rc, out, err = _diff(base, head, "--format", "json", *extra)
        assert rc == 1, (rc, err)
        (e,) = json.loads(out)["environments"]
        assert e["head_verdict"] == "invalid" and e["not_estimated"] == ["main-db"]


@pytest.mark.parametrize("diagnostics", ["drop", "RW130 unknown size", {"errors": 1}, [{"severity": "Error", "code": "RW130"}],
                                         [{"severity": "error"}], ["RW130"]],
                         ids=["missing", "string", "object", "severity-Error", "no-code", "list-of-strings"])
def test_a_mistyped_diagnostics_is_not_a_valid_plan_json_document(sides, diagnostics):
    base, head = sides
    head["environments"][0]["verdict"] = "ok"
    if diagnostics == "drop":
        del head["diagnostics"]
    else:
        head["diagnostics"] = diagnostics
    rc, _, err = _diff(base, head)
    assert rc == 3 and "not a valid plan JSON document" in err and "diagnostics" in err, (rc, err)


def _mistype(doc: dict, what: str) -> None:
    env = doc["environments"][0]
    db = next(i for i in env["items"] if i["name"] == "main-db")
    if what == "total":
        env["total_monthly_usd"] = str(env["total_monthly_usd"])
    elif what == "item":
        db["monthly_usd"] = str(db["monthly_usd"])
    elif what == "cap":
        env["cap_monthly_usd"] = "1"
    elif what == "not_estimated":
        env["not_estimated"] = "main-db"
    elif what == "missing_prices":
        env["missing_prices"] = "rds:gp3"
    elif what == "item_missing_prices":
        db["missing_prices"] = {"rds": 1}
    elif what == "line_items":
        db["line_items"] = "none"


@pytest.mark.parametrize("what", ["total", "item", "cap", "not_estimated", "missing_prices", "item_missing_prices", "line_items"])
def test_a_mistyped_amount_or_list_is_not_a_valid_plan_json_document(sides, what):
    base, head = sides
    _mistype(head, what)
    rc, _, err = _diff(base, head)
    assert rc == 3 and "not a valid plan JSON document" in err, (rc, err)


def test_an_item_missing_prices_makes_a_capped_environment_unpriced(sides):
    """An item's `missing_prices` left out of its environment's list still makes the cap
    uncheckable: `plan`'s environment list is the union of its items' (exit 2, never ok)."""
    base, _ = sides
    doc = json.loads(base.read_text())
    db = next(i for i in doc["environments"][0]["items"] if i["name"] == "main-db")
    db["missing_prices"] = ["rds:gp3:single-az"]
    rc, out, err = _diff(base, doc, "--format", "json")
    assert rc == 2 and json.loads(out)["environments"][0]["head_verdict"] == "unpriced", (rc, err)


def test_plans_as_plan_writes_them_still_diff(sides):
    base, _ = sides
    rc, out, err = _run("diff", str(base), str(base), "--format", "json")
    assert rc == 0 and json.loads(out)["change"] == "unchanged", err


@pytest.mark.parametrize(("field", "value"), [("cap", "1e99999999"), ("cap", "1e20"), ("total", "1e400"), ("storage", "1e99999999"),
                                             ("storage", "70000")])
def test_a_number_past_what_a_plan_can_hold_is_not_a_valid_plan_json_document(sides, field, value):
    """Tenth adversary C2, C3: `"cap_monthly_usd": 1e99999999` (finite as a Decimal) was exit 70
    from rounding it to cents, `1e20` was taken as a cap, and `"storage_gb": 1e99999999` was exit
    70 in `diff` and an RW191 fix suggesting it in `check --deployed`. Amounts are bounded by
    MAX_PLAN_USD and storage by RDS's 65,536 GB: exit 3 for `diff` and `check --deployed`."""
    base, head = sides
    env = head["environments"][0]
    text = json.dumps(head)
    if field == "cap":
        text = text.replace(f'"cap_monthly_usd": {json.dumps(env["cap_monthly_usd"])}', f'"cap_monthly_usd": {value}', 1)
    elif field == "total":
        text = text.replace(f'"total_monthly_usd": {json.dumps(env["total_monthly_usd"])}', f'"total_monthly_usd": {value}', 1)
    else:  # the base's main-db is estimated: its capacity has storage_gb
        text = re.sub(r'"storage_gb": [0-9.]+', f'"storage_gb": {value}', base.read_text(), count=1)
    assert value in text
    path = base.parent / "head.json"
    path.write_text(text)
    rc, _, err = _run("diff", str(base), str(path), "--env", "dev")
    assert rc == 3 and "not a valid plan JSON document" in err and "internal error" not in err, (rc, err)
    rc, _, err = _run("check", str(ROOT / "examples" / "orders"), "--deployed", str(path))
    assert rc == 3 and "internal error" not in err, (rc, err)


@pytest.mark.parametrize("cap", ["126.875", "126.879999999999999"])
def test_a_head_cap_below_its_total_by_less_than_a_cent_is_over_it(sides, cap):
    """Tenth adversary C8: the head's cap was rounded to cents before the verdict was
    recomputed, so `126.875` against the $126.88 total (plan exits 2) passed once the written
    verdict was edited to ok. The cap is read as written."""
    base, _head = sides
    text = base.read_text().replace('"cap_monthly_usd": 150,', f'"cap_monthly_usd": {cap},', 1)
    assert cap in text
    path = base.parent / "head.json"
    path.write_text(text)
    rc, out, err = _run("diff", str(base), str(path), "--env", "dev", "--format", "json")
    assert rc == 2 and json.loads(out)["environments"][0]["head_verdict"] == "over-cap", (rc, out, err)


@pytest.mark.parametrize("junk", [[None], ["x"], [{}], [1], "below"])
def test_line_items_that_are_not_the_planners_are_not_a_valid_plan_json_document(sides, junk):
    """Tenth adversary C10: `line_items: [null]` (or `["x"]`, `[{}]`, `[1]`) counted as priced
    and hid main-db, not estimated, behind a $36.28 "saving" (exit 0 with --max-increase 0); and
    an item $36 below the sum of its own line items passed. Each line item is an object with
    its amount, and an item costs their sum."""
    base, _head = sides
    doc = json.loads(base.read_text())
    env = doc["environments"][0]
    db = next(i for i in env["items"] if i["name"] == "main-db")
    if junk == "below":
        db["monthly_usd"] = round(db["monthly_usd"] - 36, 2)
        env["total_monthly_usd"] = round(env["total_monthly_usd"] - 36, 2)
    else:
        env["total_monthly_usd"] = round(env["total_monthly_usd"] - db["monthly_usd"], 2)
        db["monthly_usd"], db["line_items"], db["missing_prices"] = 0, junk, []
    rc, _, err = _diff(base, doc, "--max-increase", "0")
    assert rc == 3 and "not a valid plan JSON document" in err, (rc, err)
