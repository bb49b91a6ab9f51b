"""What a plan is made of: priced line items, one item per resource or workload (or
per-environment item), one plan per environment. Immutable values; USD per month.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Mapping


@dataclass(frozen=True)
class LineItem:
    """One priced quantity: ``monthly_usd = cents(quantity x unit_usd)``."""

    description: str
    quantity: Decimal
    unit: str
    unit_usd: Decimal
    monthly_usd: Decimal
    source: str
    confidence: str
    price_key: str


@dataclass(frozen=True)
class ItemPlan:
    """One resource, workload or per-environment item in one environment.

    ``monthly_usd`` is USD per month (sum of the line items). ``missing_prices`` names the
    price keys the catalogue lacks for the region (the estimate is then a lower bound).
    """

    name: str
    kind: str
    size: str | None
    implicit: bool
    origin: str
    capacity: Mapping[str, Any]
    line_items: tuple[LineItem, ...]
    monthly_usd: Decimal
    consumers: tuple[str, ...] = ()
    variables: tuple[str, ...] = ()
    infisical_path: str | None = None
    ssm_parameters: Mapping[str, str] = field(default_factory=dict)
    missing_prices: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class EnvironmentPlan:
    """One environment's plan; ``verdict`` is ``ok``, ``over-cap`` (refused) or ``no-cap`` (warn)."""

    name: str
    cap: Decimal | None
    cap_source: str
    items: tuple[ItemPlan, ...]
    total: Decimal
    verdict: str
    missing_prices: tuple[str, ...]
    notes: tuple[str, ...]

    def item(self, name: str) -> ItemPlan | None:
        # An index built on first use (completion and hovers ask for every item by name).
        index = self.__dict__.get("_by_name")
        if index is None:
            index = {}
            for i in self.items:
                index.setdefault(i.name, i)
            object.__setattr__(self, "_by_name", index)
        return index.get(name)

    def top_contributors(self, n: int = 3) -> list[ItemPlan]:
        return sorted(self.items, key=lambda i: (-i.monthly_usd, i.name))[:n]


@dataclass(frozen=True)
class Plan:
    product: str
    region: str
    environments: tuple[EnvironmentPlan, ...]
    catalog_origin: str = "packaged default"
