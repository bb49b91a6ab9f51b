"""Reviewed plans kept in the records store, so ``up --plan-digest D`` can say what changed.

``preview`` stores the environment's plan under its digest, ``plans/.../<plan_digest>.json``
(:mod:`deploy_engine.records`): ``{"format_version": 1, "plan_digest", "env_values": "sha256",
"plan"}``, where ``plan`` is the canonical plan document whose sha256 *is* the digest
(:func:`runway_core.planner.plan_digest`: ``format_version``, ``product``, ``region`` and the
environment's plan) with one change: each container's plain ``env`` value is replaced by
``sha256:<hex>`` of it. The plan holds those values verbatim (the task definition needs them,
docs/reliability.md), but a record must not spread a secret-looking value an author pasted
there (RW147); a hash still shows that a value changed. The record is scrubbed like every
record (:func:`deploy_engine.records.kinds.write_json`).

``up --plan-digest D`` (and ``preview``/``drift``) refuse with exit 8 when today's plan has
another digest; with the reviewed plan found in the store, the refusal lists what changed
(:func:`plan_changes`), else it says no plan with that digest was stored.

:func:`plan_changes` is a minimal per-environment / per-item comparison of two such plan
documents, kept behind one function so the plan ``diff`` of issue 14 can replace it.
Must not import pulumi.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

from runway_core.planner import FORMAT_VERSION, EnvironmentPlan, environment_json, plan_digest
from runway_core.workspace import JsonDocumentError, loads_json

from .records.kinds import Written, write_json
from .records.store import RecordExists, RecordStore, StoreError
from .secrets import Redactor


def canonical_plan(env_plan: EnvironmentPlan, product: str, region: str) -> str:
    """The canonical JSON of one environment's plan: sha256 of it is ``plan_digest``."""
    doc = {"format_version": FORMAT_VERSION, "product": product, "region": region, "environment": environment_json(env_plan, reveal_secrets=True)}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    # The digest is defined by runway_core; this must stay the very same document.
    if hashlib.sha256(text.encode()).hexdigest() != plan_digest(env_plan, product, region):
        raise AssertionError("canonical_plan drifted from runway_core.planner.plan_digest")
    return text


def plan_key(store: RecordStore, product: str, environment: str, digest: str) -> str:
    return store.key("plans", product, environment, f"{digest}.json")


def _hash(value: Any) -> str:
    return "sha256:" + hashlib.sha256(str(value).encode("utf-8")).hexdigest()


def plan_document(env_plan: EnvironmentPlan, product: str, region: str) -> dict[str, Any]:
    """The canonical plan document with every plain ``env`` value as ``sha256:<hex>`` (module docstring)."""
    doc = json.loads(canonical_plan(env_plan, product, region))
    for item in (doc.get("environment") or {}).get("items", ()):
        capacity = item.get("capacity")
        if isinstance(capacity, dict) and isinstance(capacity.get("env"), dict):
            capacity["env"] = {k: _hash(v) for k, v in capacity["env"].items()}
    return doc


def store_reviewed_plan(store: RecordStore, env_plan: EnvironmentPlan, product: str, region: str, redactor: Redactor) -> tuple[str, Written | None]:
    """Store the plan under its digest; returns (digest, what was written, or None when a plan
    with that digest was stored before). Raises ``StoreError``, ValueError when a known secret
    value survived scrubbing (then nothing is written)."""
    digest = plan_digest(env_plan, product, region)
    doc = {"format_version": 1, "plan_digest": digest, "env_values": "sha256", "plan": plan_document(env_plan, product, region)}
    try:
        return digest, write_json(store, plan_key(store, product, env_plan.name, digest), doc, redactor, shapes=True)
    except RecordExists:
        return digest, None


class StoredPlanInvalid(StoreError):
    """The record stored under a digest is not a reviewed plan of that digest (altered,
    truncated, or a field of the wrong JSON type: the message names it)."""


# JSON types by name: what a field of a plan document may be (None: null allowed).
_STR, _NUM, _BOOL, _OBJ, _ARR, _NULL = "a string", "a number", "true or false", "an object", "an array", "null"

#: The JSON type of each field of :func:`plan_document` that is read (runway_core.planner.output
#: ``environment_json``); a field absent is not checked here (the plan comparison and
#: :func:`runway_core.changes.side_of_deployed` name a required one that is missing).
_PLAN_FIELDS = {"format_version": (_NUM,), "product": (_STR,), "region": (_STR,), "environment": (_OBJ,)}
_ENV_FIELDS = {
    "name": (_STR,), "cap_monthly_usd": (_NUM, _NULL), "cap_source": (_STR, _NULL), "total_monthly_usd": (_NUM,),
    "verdict": (_STR,), "price_confidence": (_OBJ,), "disposable": (_BOOL,), "missing_prices": (_ARR,), "notes": (_ARR,),
    "items": (_ARR,),
}
_ITEM_FIELDS = {
    "name": (_STR,), "kind": (_STR,), "size": (_STR, _NULL), "implicit": (_BOOL,), "capacity": (_OBJ, _NULL),
    "monthly_usd": (_NUM,), "line_items": (_ARR,), "consumers": (_ARR,), "variables": (_ARR,),
    "infisical_path": (_STR, _NULL), "ssm_parameters": (_OBJ,), "missing_prices": (_ARR,), "notes": (_ARR,),
}
_LINE_FIELDS = {
    "description": (_STR,), "quantity": (_NUM,), "unit": (_STR,), "unit_usd": (_NUM,), "monthly_usd": (_NUM,),
    "source": (_STR, _NULL), "confidence": (_STR, _NULL), "price_key": (_STR, _NULL), "quantity_source": (_STR, _NULL),
}


def _json_type(value: Any) -> str:
    """The JSON type of a parsed value, by the names above (``true`` is no number)."""
    if value is None:
        return _NULL
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, (int, float)):
        return _NUM
    return _STR if isinstance(value, str) else _OBJ if isinstance(value, dict) else _ARR if isinstance(value, list) else type(value).__name__


def _fields_problem(doc: Mapping[str, Any], fields: Mapping[str, tuple[str, ...]], where: str) -> str | None:
    for name, types in fields.items():
        if name in doc and _json_type(doc[name]) not in types:
            return f"{where}{name} must be {' or '.join(types)}, not {_json_type(doc[name])}"
    return None


def _strings_problem(values: Any, where: str) -> str | None:
    for n, v in enumerate(values):
        if not isinstance(v, str):
            return f"{where}[{n}] must be a string, not {_json_type(v)}"
    return None


def reviewed_plan_problem(plan: Any) -> str | None:
    """Why ``plan`` (the ``plan`` of a reviewed-plan record read from a store someone else may
    write) is not a :func:`plan_document` this version can compare, or None: each field read
    of its JSON type (:data:`_PLAN_FIELDS` and below; ``true`` is no number, ``"150"`` no
    amount), ``format_version`` the integer 1, each ``consumers``/``variables`` entry a string,
    each ``capacity.env`` value a string (its hash). The message names the field
    (``plan.environment.items[0].monthly_usd must be a number, not a string``). Never raises."""
    if not isinstance(plan, dict):
        return f"plan must be an object, not {_json_type(plan)}"
    problem = _fields_problem(plan, _PLAN_FIELDS, "plan.")
    if problem is not None:
        return problem
    if "format_version" in plan and (type(plan["format_version"]) is not int or plan["format_version"] != FORMAT_VERSION):
        return f"plan.format_version must be the integer {FORMAT_VERSION}"
    env = plan.get("environment")
    if env is None:
        return "plan.environment is missing"
    where = "plan.environment."
    problem = _fields_problem(env, _ENV_FIELDS, where)
    if problem is not None:
        return problem
    for key, value in (env.get("price_confidence") or {}).items():
        if _json_type(value) != _NUM:
            return f"{where}price_confidence.{key} must be a number, not {_json_type(value)}"
    for n, item in enumerate(env.get("items") or ()):
        iw = f"{where}items[{n}]"
        if not isinstance(item, dict):
            return f"{iw} must be an object, not {_json_type(item)}"
        missing = [name for name in ("name", "kind") if name not in item]  # plan_changes names items by them
        problem = f"{iw}.{missing[0]} is missing" if missing else _fields_problem(item, _ITEM_FIELDS, iw + ".")
        for name in ("consumers", "variables"):
            problem = problem or _strings_problem(item.get(name) or (), f"{iw}.{name}")
        if problem is not None:
            return problem
        capacity = item.get("capacity") or {}
        if "env" in capacity:
            if not isinstance(capacity["env"], dict):
                return f"{iw}.capacity.env must be an object, not {_json_type(capacity['env'])}"
            for k, v in capacity["env"].items():
                if not isinstance(v, str):
                    return f"{iw}.capacity.env.{k} must be a string (its sha256), not {_json_type(v)}"
        for k, li in enumerate(item.get("line_items") or ()):
            if not isinstance(li, dict):
                return f"{iw}.line_items[{k}] must be an object, not {_json_type(li)}"
            problem = _fields_problem(li, _LINE_FIELDS, f"{iw}.line_items[{k}].")
            if problem is not None:
                return problem
    return None


def load_reviewed_plan(store: RecordStore, product: str, environment: str, digest: str) -> dict[str, Any] | None:
    """The reviewed plan document (:func:`plan_document`) stored under ``digest``, or None. Raises
    :class:`StoredPlanInvalid` when the record is not one of that digest or a field is of the
    wrong JSON type (:func:`reviewed_plan_problem`; the record's own ``format_version`` must be
    the integer 1 and ``env_values`` the string ``sha256``; no member named twice), ``StoreError``."""
    record = store.read(plan_key(store, product, environment, digest))
    if record is None:
        return None
    where = store.location(record.key)
    try:
        # A member named twice is refused as in a receipt (deploy_engine.receipts.read_checked):
        # json keeps the last silently, and the record is one someone else may have written.
        doc = loads_json(record.data, unique_keys=True)
    except JsonDocumentError as exc:
        if str(exc).startswith("duplicate key"):
            raise StoredPlanInvalid(f"{where} is not a reviewed plan record: {exc}") from None
        doc = None
    if not isinstance(doc, dict) or doc.get("plan_digest") != digest or "plan" not in doc:
        raise StoredPlanInvalid(f"{where} is not the reviewed plan {digest}: the stored plan was altered")
    if type(doc.get("format_version")) is not int or doc["format_version"] != 1:
        raise StoredPlanInvalid(f"{where} is not a reviewed plan record: format_version must be the integer 1")
    if "env_values" in doc and doc["env_values"] != "sha256":
        raise StoredPlanInvalid(f"{where} is not a reviewed plan record: env_values must be the string sha256, not {_json_type(doc['env_values'])}")
    problem = reviewed_plan_problem(doc["plan"])
    if problem is not None:
        raise StoredPlanInvalid(f"{where} is not a reviewed plan record: {problem}")
    return doc["plan"]


def _money(x: Any) -> str:
    return "none" if x is None else f"${float(x):,.2f}"


def plan_changes(reviewed: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What changed from the reviewed plan document to the current one, one line each: the
    region, the cap, the total (USD per month), items added or removed, and per item its size,
    capacity, monthly estimate and consumers. Both are :func:`plan_document` documents.

    Plain ``env`` values are compared by their hashes and named, never shown. A minimal
    comparison (issue 17), to be replaced by the plan ``diff`` of issue 14.
    """
    out: list[str] = []
    if reviewed.get("region") != current.get("region"):
        out.append(f"region: {reviewed.get('region')} -> {current.get('region')}")
    old, new = reviewed.get("environment") or {}, current.get("environment") or {}
    if old.get("cap_monthly_usd") != new.get("cap_monthly_usd"):
        out.append(f"cap: {_money(old.get('cap_monthly_usd'))} -> {_money(new.get('cap_monthly_usd'))} per month")
    if old.get("total_monthly_usd") != new.get("total_monthly_usd"):
        out.append(f"total: {_money(old.get('total_monthly_usd'))} -> {_money(new.get('total_monthly_usd'))} per month")
    old_items = {i["name"]: i for i in old.get("items", ())}
    new_items = {i["name"]: i for i in new.get("items", ())}
    for name in sorted(new_items.keys() - old_items.keys()):
        i = new_items[name]
        out.append(f"added {i['kind']} {name} ({i.get('size')}, {_money(i.get('monthly_usd'))} per month)")
    for name in sorted(old_items.keys() - new_items.keys()):
        i = old_items[name]
        out.append(f"removed {i['kind']} {name} ({i.get('size')}, {_money(i.get('monthly_usd'))} per month)")
    for name in sorted(old_items.keys() & new_items.keys()):
        a, b = old_items[name], new_items[name]
        if a.get("size") != b.get("size"):
            out.append(f"{name}: size {a.get('size')} -> {b.get('size')}")
        cap_a, cap_b = a.get("capacity") or {}, b.get("capacity") or {}
        for k in sorted(cap_a.keys() | cap_b.keys()):
            if k == "env" and isinstance(cap_a.get(k, {}), dict) and isinstance(cap_b.get(k, {}), dict):
                out += _env_changes(name, cap_a.get(k) or {}, cap_b.get(k) or {})
            elif cap_a.get(k) != cap_b.get(k):
                out.append(f"{name}: {k} {cap_a.get(k)} -> {cap_b.get(k)}")
        if a.get("monthly_usd") != b.get("monthly_usd"):
            out.append(f"{name}: {_money(a.get('monthly_usd'))} -> {_money(b.get('monthly_usd'))} per month")
        if a.get("consumers") != b.get("consumers"):
            out.append(f"{name}: consumers {', '.join(a.get('consumers') or []) or 'none'} -> {', '.join(b.get('consumers') or []) or 'none'}")
    if not out:
        out.append("no item, size or estimate changed: the catalogue or another part of the plan did (line items, notes, variables)")
    return out


def _env_changes(item: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Names of the ``env`` variables added, removed or changed (values never shown)."""
    out = [f"{item}: env {k} added" for k in sorted(new.keys() - old.keys())]
    out += [f"{item}: env {k} removed" for k in sorted(old.keys() - new.keys())]
    out += [f"{item}: env {k} changed" for k in sorted(old.keys() & new.keys()) if old[k] != new[k]]
    return out


__all__ = [
    "StoredPlanInvalid",
    "canonical_plan",
    "load_reviewed_plan",
    "plan_changes",
    "reviewed_plan_problem",
    "plan_document",
    "plan_key",
    "store_reviewed_plan",
]
