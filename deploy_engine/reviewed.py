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
    """The record stored under a digest is not a reviewed plan of that digest (altered, truncated)."""


def load_reviewed_plan(store: RecordStore, product: str, environment: str, digest: str) -> dict[str, Any] | None:
    """The reviewed plan document (:func:`plan_document`) stored under ``digest``, or None. Raises
    :class:`StoredPlanInvalid` when the record is not one of that digest, ``StoreError``."""
    record = store.read(plan_key(store, product, environment, digest))
    if record is None:
        return None
    try:
        doc = record.json()
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or doc.get("plan_digest") != digest or not isinstance(doc.get("plan"), dict):
        raise StoredPlanInvalid(f"{store.location(record.key)} is not the reviewed plan {digest}: the stored plan was altered")
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
    "plan_document",
    "plan_key",
    "store_reviewed_plan",
]
