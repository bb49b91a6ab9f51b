"""The JSON Schema of runway.yaml (runway_core.schema, ``runway-deploy schema``): the files the
VS Code extension ships are in sync with the models, are valid draft-07, and accept what the
analysis accepts (examples/orders) while refusing what its rules refuse."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from deploy_engine.cli import main
from runway_core.schema import member_schema, root_schema, schema_text, usage_schema

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "vscode-extension" / "schemas"
ORDERS = ROOT / "examples" / "orders"
REGENERATE = ("runway-deploy schema --output vscode-extension/schemas/runway.schema.json; "
              "runway-deploy schema --member --output vscode-extension/schemas/runway-member.schema.json; "
              "runway-deploy schema --usage-file --output vscode-extension/schemas/runway-usage.schema.json")


def load(path: Path):
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def errors(schema: dict, doc) -> list[str]:
    return sorted(e.message for e in jsonschema.Draft7Validator(schema).iter_errors(doc))


@pytest.mark.parametrize(("name", "member", "usage"), [("runway.schema.json", False, False), ("runway-member.schema.json", True, False),
                                                   ("runway-usage.schema.json", False, True)])
def test_committed_schemas_are_in_sync(name: str, member: bool, usage: bool):
    assert (SCHEMAS / name).read_text(encoding="utf-8") == schema_text(member, usage), f"regenerate: {REGENERATE}"


def test_the_extension_maps_each_committed_schema_to_its_file():
    """package.json's ``contributes.yamlValidation`` (Red Hat YAML's contribution point) names
    the usage file's schema for ``runway.usage.yaml`` and the runway's for ``runway.yaml``."""
    package_json = ROOT / "vscode-extension" / "package.json"
    if not package_json.exists():
        pytest.skip("the sdist ships the schemas, not the extension's package.json (tests/deploy/test_packaging.py)")
    manifest = json.loads(package_json.read_text(encoding="utf-8"))
    mapping = {m: entry["url"] for entry in manifest["contributes"]["yamlValidation"] for m in entry["fileMatch"]}
    assert mapping["runway.usage.yaml"] == "./schemas/runway-usage.schema.json"
    assert mapping["runway.yaml"] == "./schemas/runway.schema.json"
    for url in mapping.values():
        assert (ROOT / "vscode-extension" / url).is_file()


def test_the_usage_template_validates_against_the_usage_schema(tmp_path: Path):
    """``usage init`` writes every key commented out; the template, and the template with every
    key uncommented at the catalogue's assumption, are valid usage files for the schema."""
    target = tmp_path / "runway.usage.yaml"
    assert main(["usage", "init", str(ORDERS), "--output", str(target)], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    text = target.read_text(encoding="utf-8")
    uncommented = re.sub(r"^(\s*)# ([a-z_]+: [0-9.]+)", r"\1  \2", text, flags=re.M)
    assert uncommented != text
    for doc_text in (text, uncommented):
        assert errors(usage_schema(), YAML(typ="safe").load(doc_text)) == []
    keys = YAML(typ="safe").load(uncommented)["environments"]["production"]["items"]["invoices"]
    assert set(keys) == {"storage_gb", "put_requests_thousands", "get_requests_thousands"}


@pytest.mark.parametrize(("doc", "expected"), [
    ({"usage": 2}, "1 was expected"),
    ({"usage": 1, "environments": {"prod": {"items": {"orders": {"requests_millions": -1}}}}}, "-1 is less than the minimum of 0"),
    ({"usage": 1, "environments": {"prod": {"items": {"orders": {"requests_milions": 4}}}}}, "Additional properties are not allowed ('requests_milions' was unexpected)"),
    ({"usage": 1, "environments": {"prod": {"network": {"nat_processed_gb": "lots"}}}}, "'lots' is not of type 'number'"),
    ({"usage": 1, "environments": {"prod": {"items": {"Orders": {}}}}}, "'Orders' is not valid under any of the given schemas"),
    ({"environments": {}}, "'usage' is a required property"),
])
def test_the_usage_schema_refuses_what_rw200_refuses(doc, expected: str):
    assert any(expected in e for e in errors(usage_schema(), doc)), errors(usage_schema(), doc)


def test_cli_writes_the_usage_schema(tmp_path: Path):
    out = io.StringIO()
    assert main(["schema", "--usage-file"], stdout=out, stderr=io.StringIO()) == 0
    assert json.loads(out.getvalue()) == usage_schema()
    assert main(["schema", "--usage-file", "--member"], stdout=io.StringIO(), stderr=io.StringIO()) == 64


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
