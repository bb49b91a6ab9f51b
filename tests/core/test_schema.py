"""The JSON Schema of runway.yaml (runway_core.schema, ``runway-deploy schema``): the files the
VS Code extension ships are in sync with the models, are valid draft-07, and accept what the
analysis accepts (examples/orders) while refusing what its rules refuse."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from deploy_engine.cli import main
from runway_core.schema import member_schema, root_schema, schema_text

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "vscode-extension" / "schemas"
ORDERS = ROOT / "examples" / "orders"
REGENERATE = "runway-deploy schema --output vscode-extension/schemas/runway.schema.json; runway-deploy schema --member --output vscode-extension/schemas/runway-member.schema.json"


def load(path: Path):
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def errors(schema: dict, doc) -> list[str]:
    return sorted(e.message for e in jsonschema.Draft7Validator(schema).iter_errors(doc))


@pytest.mark.parametrize(("name", "member"), [("runway.schema.json", False), ("runway-member.schema.json", True)])
def test_committed_schemas_are_in_sync(name: str, member: bool):
    assert (SCHEMAS / name).read_text(encoding="utf-8") == schema_text(member), f"regenerate: {REGENERATE}"


def test_cli_prints_and_writes_the_schema(tmp_path: Path):
    out, err = io.StringIO(), io.StringIO()
    assert main(["schema"], stdout=out, stderr=err) == 0
    assert json.loads(out.getvalue()) == root_schema()
    target = tmp_path / "member.json"
    assert main(["schema", "--member", "--output", str(target)], stdout=out, stderr=err) == 0
    assert json.loads(target.read_text(encoding="utf-8")) == member_schema()
    assert main(["schema", "--output", str(tmp_path / "missing" / "x.json")], stdout=out, stderr=err) == 3
    assert "cannot write" in err.getvalue()


def test_schemas_are_valid_draft_07():
    for schema in (root_schema(), member_schema()):
        jsonschema.Draft7Validator.check_schema(schema)
        assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
        assert "$id" not in schema  # references stay local: nothing for an editor to fetch


def test_descriptions_come_from_the_models():
    root = root_schema()["definitions"]
    assert "USD" in root["Limits"]["properties"]["monthly"]["description"]
    assert root["Resource"]["properties"]["kind"]["enum"] == ["postgres", "queue", "topic", "cache", "bucket"]
    assert "kafka" in root["Resource"]["properties"]["kind"]["description"]  # reserved, with why
    assert root["Size"]["enum"] == ["small", "medium", "large"]


def test_orders_validates_except_the_real_digest_error():
    schema = root_schema()
    # examples/orders has one real error: the metabase digest has 63 hex digits (RW140).
    assert len(errors(schema, load(ORDERS / "runway.yaml"))) == 1
    fixed = load(ORDERS / "runway.yaml")
    fixed["workloads"]["metabase"]["image"] = fixed["workloads"]["metabase"]["image"] + "e"
    assert errors(schema, fixed) == []
    for member in ("checkout", "billing"):
        doc = load(ORDERS / "services" / member / "runway.yaml")
        assert errors(schema, doc) == []  # no `product`: validated as a member
        assert errors(member_schema(), doc) == []


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d["resources"]["main-db"].update(kind="kafka"), "kind"),
        (lambda d: d["resources"]["main-db"].update(size={"dev": "huge"}), "size"),
        (lambda d: d["resources"]["main-db"]["engine"].update(fifo=True), "engine of another kind"),
        (lambda d: d["workloads"]["zitadel"].pop("reason"), "reason"),
        (lambda d: d["workloads"]["zitadel"]["health"].update(command=["true"]), "health path and command"),
        (lambda d: d["environments"]["dev"].update(limits={"monthly": -1}), "negative cap"),
        (lambda d: d.update(runway=2), "format version"),
        (lambda d: d["resources"].update({"Main_DB": {"kind": "bucket"}}), "name"),
    ],
)
def test_schema_refuses_what_rules_refuse(change, where):
    doc = load(ORDERS / "runway.yaml")
    doc["workloads"]["metabase"]["image"] += "e"
    change(doc)
    assert errors(root_schema(), doc), where


def test_member_schema_refuses_unknown_keys_and_kinds():
    assert errors(member_schema(), {"runway": 1, "require": ["queue"]})
    assert errors(member_schema(), {"runway": 1, "requires": ["kafka"]})


def test_what_the_format_accepts_the_schema_accepts():
    """A schema validator that reads the YAML as written (Red Hat's YAML extension does not
    apply merge keys) must not flag a valid runway: `version: 16` and merge keys."""
    doc = load(ORDERS / "runway.yaml")
    doc["workloads"]["metabase"]["image"] += "e"
    doc["resources"]["main-db"]["engine"]["version"] = 16
    doc["resources"]["cache-x"] = {"kind": "cache", "engine": {"version": 8.0}}
    doc["workloads"]["zitadel"]["<<"] = {"scale": 2}  # as read without applying the merge
    doc["environments"]["<<"] = {"qa": {"limits": {"monthly": 10}}}  # in a map of names, too
    doc["resources"]["main-db"]["size"] = {"<<": {"dev": "small"}, "production": "large"}
    assert errors(root_schema(), doc) == []
    assert errors(member_schema(), {"runway": 1, "<<": {"uses": ["main-db"]}, "uses": ["main-db"]}) == []
