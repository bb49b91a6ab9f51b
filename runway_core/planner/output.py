"""The plan as the documented JSON document (docs/cli.md, ``format_version`` 1), and the
sha256 digest of one environment's plan that receipts record.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any

from ..money import cents
from ..text import REDACTED, secret_shape
from .items import EnvironmentPlan, Plan

FORMAT_VERSION = 1


def hide_secret_env(env_doc: dict[str, Any]) -> dict[str, Any]:
    """``env_doc`` (one environment of :func:`environment_json`) with each workload's plain
    ``env`` value that looks like a credential (RW147's test, :func:`runway_core.text.secret_shape`:
    by shape, or by a name such as ``DB_PASSWORD``) replaced by :data:`runway_core.text.REDACTED`,
    in place; returns it. Only printed and served plans are masked: the Pulumi program reads
    the plan objects (``ItemPlan.capacity``), so the deploy still gets the declared value, and
    ``plan_digest`` is computed on the unmasked document (docs/cli.md, "Secrets in output")."""
    for item in env_doc.get("items", ()):
        env = item["capacity"].get("env") if isinstance(item.get("capacity"), dict) else None
        if isinstance(env, dict) and any(secret_shape(k, v) is not None for k, v in env.items()):
            item["capacity"]["env"] = {k: (REDACTED if secret_shape(k, v) is not None else v) for k, v in env.items()}
    return env_doc


def _num(x: Any) -> Any:
    if isinstance(x, Decimal):
        return float(x) if x != x.to_integral_value() else int(x)
    if isinstance(x, dict):
        return {k: _num(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_num(v) for v in x]
    return x


def _money(x: Decimal) -> float:
    return float(cents(x))


def environment_json(p: EnvironmentPlan, reveal_secrets: bool = False) -> dict[str, Any]:
    """One environment's plan as its JSON object (docs/cli.md). Secret-looking ``env`` values
    are masked (:func:`hide_secret_env`) unless ``reveal_secrets`` (the digest's canonical form)."""
    doc = {
        "name": p.name,
        "cap_monthly_usd": None if p.cap is None else _num(p.cap),
        "cap_source": p.cap_source,
        "total_monthly_usd": _money(p.total),
        "verdict": p.verdict,
        # How much of the total rests on each price confidence (docs/cli.md): sums to the total.
        "price_confidence": {c: _money(v) for c, v in p.price_confidence().items()},
        "disposable": p.disposable,
        "missing_prices": list(p.missing_prices),
        "notes": list(p.notes),
        "items": [
            {
                "name": i.name,
                "kind": i.kind,
                "size": i.size,
                "implicit": i.implicit,
                "origin": i.origin,
                "capacity": _num(dict(i.capacity)),
                "monthly_usd": _money(i.monthly_usd),
                "line_items": [
                    {
                        "description": li.description,
                        "quantity": _num(li.quantity),
                        "unit": li.unit,
                        "unit_usd": _num(li.unit_usd),
                        "monthly_usd": _money(li.monthly_usd),
                        "source": li.source,
                        "confidence": li.confidence,
                        "price_key": li.price_key,
                        "quantity_source": li.quantity_source,
                    }
                    for li in i.line_items
                ],
                "consumers": list(i.consumers),
                "variables": list(i.variables),
                "infisical_path": i.infisical_path,
                "ssm_parameters": dict(i.ssm_parameters),
                "missing_prices": list(i.missing_prices),
                "notes": list(i.notes),
            }
            for i in p.items
        ],
    }
    return doc if reveal_secrets else hide_secret_env(doc)


def plan_json(plan: Plan, reveal_secrets: bool = False) -> dict[str, Any]:
    """The plan as the documented JSON document (docs/cli.md, ``format_version`` 1); secret-looking
    ``env`` values masked unless ``reveal_secrets``."""
    return {
        "format_version": FORMAT_VERSION,
        "product": plan.product,
        "region": plan.region,
        "catalog": plan.catalog_origin,
        "environments": [environment_json(e, reveal_secrets) for e in plan.environments],
    }


def plan_digest(env_plan: EnvironmentPlan, product: str, region: str) -> str:
    """sha256 of the canonical JSON of one environment's plan (for receipts)."""
    doc = {"format_version": FORMAT_VERSION, "product": product, "region": region, "environment": environment_json(env_plan, reveal_secrets=True)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
