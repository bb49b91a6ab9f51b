"""The plan as the documented JSON document (docs/cli.md, ``format_version`` 1), and the
sha256 digest of one environment's plan that receipts record.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any

from ..money import cents
from .items import EnvironmentPlan, Plan

FORMAT_VERSION = 1


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


def environment_json(p: EnvironmentPlan) -> dict[str, Any]:
    return {
        "name": p.name,
        "cap_monthly_usd": None if p.cap is None else _num(p.cap),
        "cap_source": p.cap_source,
        "total_monthly_usd": _money(p.total),
        "verdict": p.verdict,
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


def plan_json(plan: Plan) -> dict[str, Any]:
    """The plan as the documented JSON document (docs/cli.md, ``format_version`` 1)."""
    return {
        "format_version": FORMAT_VERSION,
        "product": plan.product,
        "region": plan.region,
        "catalog": plan.catalog_origin,
        "environments": [environment_json(e) for e in plan.environments],
    }


def plan_digest(env_plan: EnvironmentPlan, product: str, region: str) -> str:
    """sha256 of the canonical JSON of one environment's plan (for receipts)."""
    doc = {"format_version": FORMAT_VERSION, "product": product, "region": region, "environment": environment_json(env_plan)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
