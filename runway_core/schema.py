"""JSON Schemas of root and member runways, generated from the pydantic models.

For editors that validate YAML against a JSON Schema (Red Hat's YAML extension through
``yaml.schemas`` or a ``# yaml-language-server: $schema=`` modeline, and the VS Code
extension's ``contributes.yamlValidation``). The schema is a convenience for teams that keep
the ``yaml`` language id: the language server's diagnostics remain the reference (rules such
as references between runways, caps and prices cannot be said in a schema).

Draft-07 (what yaml-language-server supports best): ``definitions`` and ``#/definitions/``
references. :func:`root_schema` and :func:`member_schema` start from
``pydantic``'s ``model_json_schema`` of :class:`~runway_core.model.RootRunway` and
:class:`~runway_core.model.MemberRunway` (titles and field descriptions come from the models)
and add what the models leave to rules: the kind and size enums, engine options per kind,
name and digest patterns, the health check's one-of, the required ``reason``.

Pure and deterministic (the committed files under ``vscode-extension/schemas/`` are compared
with it by a test). Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Sequence

from pydantic.json_schema import models_json_schema

from .catalog import SIZES
from .kinds import RESOURCE_KINDS
from .model import ENGINE_MODELS, REASON_GROUNDS, RESERVED_KINDS, MemberRunway, RootRunway
from .names import DIGEST, DNS_LABEL, ENV_NAME, NAME_LABEL, UPPER_SNAKE
from .usage import MAX_USAGE, NETWORK_KEYS, USAGE_KEYS, USAGE_VERSION, UsageKey

DRAFT = "http://json-schema.org/draft-07/schema#"
_REF = "#/definitions/{model}"


def _generated(models: Sequence[type]) -> dict[str, Any]:
    """``definitions`` of ``models`` (and every model they use) as pydantic generates them."""
    _keys, doc = models_json_schema([(m, "validation") for m in models], ref_template=_REF)
    return copy.deepcopy(doc.get("$defs", {}))


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _per_environment(value: dict[str, Any], what: str) -> dict[str, Any]:
    """One value for every environment, or a map ``{environment: value}``."""
    return {
        "anyOf": [
            value,
            {
                "type": "object",
                "description": f"{what} per environment; an environment it does not name gets the default.",
                "propertyNames": {"pattern": ENV_NAME.pattern},
                "additionalProperties": value,
            },
            {"type": "null"},
        ]
    }


def _size(sizes: Sequence[str]) -> dict[str, Any]:
    return {"type": "string", "enum": list(sizes), "description": "A size of the catalogue (sizes.toml): " + ", ".join(sizes) + "."}


def _named(ref: str, description: str) -> dict[str, Any]:
    """A map of names (DNS labels) to ``ref`` (a null value is allowed: the key alone)."""
    return {
        "type": "object",
        "description": description,
        "propertyNames": {"pattern": NAME_LABEL.pattern},
        "additionalProperties": _nullable({"$ref": _REF.format(model=ref)}),
    }


#: A YAML merge key is allowed wherever a mapping is (docs/format.md: merge keys are
#: applied before validation); a schema validator that does not apply them would otherwise
#: report every `<<` of a valid runway as an unknown property.
_MERGE_KEY = {"description": "YAML merge key (`<<: *anchor`): the aliased mapping's keys are merged into this one."}


def _allow_merge_keys(node: Any) -> None:
    if isinstance(node, dict):
        for value in list(node.values()):
            _allow_merge_keys(value)
        if "properties" in node or "additionalProperties" in node or (node.get("type") == "object" and "propertyNames" in node):
            # `properties` wins over `additionalProperties` for that key: the merged
            # mapping is not validated as one more entry (an environment, a resource).
            node.setdefault("properties", {}).setdefault("<<", dict(_MERGE_KEY))
            names = node.get("propertyNames")
            if isinstance(names, dict) and "anyOf" not in names:
                node["propertyNames"] = {"anyOf": [{"const": "<<"}, names]}
    elif isinstance(node, list):
        for value in node:
            _allow_merge_keys(value)


def _document(top: dict[str, Any], defs: dict[str, Any], title: str, description: str) -> dict[str, Any]:
    # No $id: yaml-language-server would resolve the references against it (and fetch it).
    doc = {"$schema": DRAFT, **top, "title": title, "description": description}
    if defs:
        doc["definitions"] = dict(sorted(defs.items()))
    _allow_merge_keys(doc)
    return doc


def _version(top: dict[str, Any]) -> None:
    top["properties"]["runway"] = {**top["properties"]["runway"], "const": 1}


def _root(sizes: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the root runway's schema, its definitions)."""
    defs = _generated([RootRunway, *ENGINE_MODELS.values()])
    top = defs.pop(RootRunway.__name__)
    _version(top)
    size = _size(sizes)
    defs["Size"] = size
    ref_size = {"$ref": _REF.format(model="Size")}

    props = top["properties"]
    props["product"]["pattern"] = DNS_LABEL.pattern
    props["environments"] = _nullable(
        {
            "type": "object",
            "description": props["environments"].get("description", ""),
            "propertyNames": {"pattern": NAME_LABEL.pattern},
            "additionalProperties": _nullable({"$ref": _REF.format(model="Environment")}),
        }
    )
    props["resources"] = _named("Resource", props["resources"].get("description", ""))
    props["workloads"] = _named("Workload", props["workloads"].get("description", ""))
    props["members"]["items"] = {"type": "string", "minLength": 1}

    env = defs["Environment"]["properties"]
    env["shared"] = {
        "type": "object",
        "description": env["shared"].get("description", ""),
        "propertyNames": {"enum": list(RESOURCE_KINDS)},
        "additionalProperties": ref_size,
    }
    limits = defs["Limits"]["properties"]
    limits["monthly"] = {"type": ["number", "null"], "minimum": 0, "description": limits["monthly"].get("description", "")}

    # `version: 16` and `version: 8.0` are numbers in YAML 1.2; the models read them as text.
    defs["PostgresEngine"]["properties"]["version"]["anyOf"] = [{"type": "string"}, {"type": "integer"}, {"type": "null"}]
    defs["CacheEngine"]["properties"]["version"]["anyOf"] = [{"type": "string"}, {"type": "number"}, {"type": "null"}]

    res = defs["Resource"]
    rp = res["properties"]
    reserved = "; ".join(f"{k}: {why}" for k, why in RESERVED_KINDS.items())
    rp["kind"] = {"type": "string", "enum": list(RESOURCE_KINDS), "description": rp["kind"]["description"] + f" Reserved, not available: {reserved}."}
    rp["size"] = {**_per_environment(ref_size, "Size"), "description": rp["size"]["description"]}
    rp["engine"] = {"type": ["object", "null"], "description": rp["engine"]["description"]}
    # Engine options depend on the kind (model.ENGINE_MODELS).
    res["allOf"] = [
        {
            "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
            "then": {"properties": {"engine": _nullable({"$ref": _REF.format(model=model.__name__)})}},
        }
        for kind, model in ENGINE_MODELS.items()
    ]

    wl = defs["Workload"]
    wp = wl["properties"]
    wp["image"]["pattern"] = DIGEST.pattern
    wp["size"] = {**_per_environment(ref_size, "Size"), "description": wp["size"]["description"]}
    count = {"type": "integer", "minimum": 0, "maximum": 1000}
    wp["scale"] = {**_per_environment(count, "Task count"), "description": wp["scale"]["description"]}
    wp["secrets"]["items"] = {"type": "string", "pattern": UPPER_SNAKE.pattern}
    wp["env"]["propertyNames"] = {"pattern": ENV_NAME.pattern}
    wp["reason"] = {"type": "string", "pattern": "(" + "|".join(REASON_GROUNDS) + ")", "description": wp["reason"]["description"]}
    wl["required"] = sorted({*wl.get("required", ()), "reason"}, key=list(wp).index)

    health = defs["Health"]
    health["oneOf"] = [{"required": ["path"]}, {"required": ["command"]}]
    health["properties"]["path"] = {"type": "string", "pattern": "^/", "description": health["properties"]["path"]["description"]}

    return top, defs


def _member() -> tuple[dict[str, Any], dict[str, Any]]:
    """(the member runway's schema, its definitions)."""
    defs = _generated([MemberRunway])
    top = defs.pop(MemberRunway.__name__)
    _version(top)
    props = top["properties"]
    props["member"] = {"type": ["string", "null"], "pattern": NAME_LABEL.pattern, "description": props["member"]["description"]}
    props["requires"]["items"] = {"type": "string", "enum": list(RESOURCE_KINDS)}
    props["uses"]["items"] = {"type": "string", "pattern": NAME_LABEL.pattern}
    return top, defs


_ROOT_TEXT = "A root runway: the product's managed resources, workloads, environments and caps."
_MEMBER_TEXT = "A member runway: a service's requirements and the root's resources it uses."


def root_schema(sizes: Sequence[str] = SIZES) -> dict[str, Any]:
    """The JSON Schema (draft-07) of a ``runway.yaml`` file: a root runway when it has
    ``product``, else a member runway (both are named ``runway.yaml``, so an editor that maps
    schemas by file name needs one schema for both: ``if``/``then``/``else``).

    ``sizes``: the size names allowed (default the catalogue's required sizes, small,
    medium and large; a custom catalogue may define more).
    """
    root, defs = _root(sizes)
    member, member_defs = _member()
    defs.update(member_defs)
    defs[RootRunway.__name__] = {**root, "description": _ROOT_TEXT}
    defs[MemberRunway.__name__] = {**member, "description": _MEMBER_TEXT}
    top = {
        "type": "object",
        "if": {"required": ["product"]},
        "then": {"$ref": _REF.format(model=RootRunway.__name__)},
        "else": {"$ref": _REF.format(model=MemberRunway.__name__)},
    }
    return _document(top, defs, "runway.yaml", "A runway: a root runway when it has `product`, else a member runway (runway_core.model).")


def member_schema() -> dict[str, Any]:
    """The JSON Schema (draft-07) of a member runway only (for a modeline in a member)."""
    member, defs = _member()
    return _document(member, defs, "runway.yaml (member runway)", _MEMBER_TEXT)


def _quantities(keys: Sequence[tuple[str, UsageKey]]) -> dict[str, Any]:
    """An object of usage quantities: each key a number from 0 to :data:`MAX_USAGE` in its
    unit; no other key."""
    return {
        "type": ["object", "null"],
        "additionalProperties": False,
        "properties": {
            k.key: {"type": "number", "minimum": 0, "maximum": int(MAX_USAGE),
                    "description": f"{k.what} ({owner}), in {k.unit}" + ("" if k.assumption else "; not estimated without it")}
            for owner, k in keys
        },
    }


def usage_schema() -> dict[str, Any]:
    """The JSON Schema (draft-07) of a usage file, ``runway.usage.yaml`` (docs/format.md,
    "Usage file"; :mod:`runway_core.usage`): ``usage: 1`` and, per environment, ``items``
    (item name -> its usage keys) and ``network``. An item's kind is in the runway, not here,
    so an item may hold any kind's keys (each described with its kind); which keys its kind
    has (RW202), and which environments and items exist (RW201), are the analysis's."""
    item_keys = [(kind, k) for kind, keys in USAGE_KEYS.items() for k in keys]
    network = [("network", k) for k in NETWORK_KEYS]
    environment = {
        "type": ["object", "null"],
        "additionalProperties": False,
        "properties": {
            "items": {"type": ["object", "null"], "description": "resources and workloads (shared-<kind> pools too), by name",
                      "propertyNames": {"pattern": NAME_LABEL.pattern}, "additionalProperties": _quantities(item_keys)},
            "network": {**_quantities(network), "description": "the environment's network: NAT data processed, data transfer out"},
        },
    }
    top = {
        "type": "object",
        "required": ["usage"],
        "additionalProperties": False,
        "properties": {
            "usage": {"const": USAGE_VERSION, "description": "the usage file format's version"},
            "environments": {"type": ["object", "null"], "description": "declared environments of the root runway",
                             "propertyNames": {"pattern": NAME_LABEL.pattern}, "additionalProperties": environment},
        },
    }
    return _document(top, {}, "runway.usage.yaml", "A usage file: the team's own usage quantities per environment and item, in place of the catalogue's assumptions.")


def schema_text(member: bool = False, usage: bool = False) -> str:
    """The schema as the committed file's text: indented JSON with a final newline
    (``usage``: the usage file's, :func:`usage_schema`)."""
    doc = usage_schema() if usage else member_schema() if member else root_schema()
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


__all__ = ["root_schema", "member_schema", "usage_schema", "schema_text", "DRAFT"]
