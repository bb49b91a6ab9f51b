"""What a plan is made of: priced line items, one item per resource or workload (or
per-environment item), one plan per environment. Immutable values; USD per month.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from typing import Any, Mapping

from ..catalog import CONFIDENCE_LEVELS, UNCHECKED_CONFIDENCES


@dataclass(frozen=True)
class LineItem:
    """One priced quantity: ``monthly_usd = cents(quantity x unit_usd)``. ``source`` is the
    price's source; ``quantity_source`` where the quantity came from: ``usage file L12``,
    ``catalogue assumption`` or ``runway size`` (``runway_core.usage``)."""

    description: str
    quantity: Decimal
    unit: str
    unit_usd: Decimal
    monthly_usd: Decimal
    source: str
    confidence: str
    price_key: str
    quantity_source: str = "runway size"
    #: ± percent the unit price may be off (``UnitPrice.stated_uncertainty``): 0 for a
    #: checked price, the row's stated uncertainty for a derived or unverified one.
    uncertainty_pct: Decimal = Decimal(0)


@dataclass(frozen=True)
class ItemPlan:
    """One resource, workload or per-environment item in one environment.

    ``monthly_usd`` is USD per month (sum of the line items). ``missing_prices`` names the
    price keys the catalogue lacks for the region (the estimate is then a lower bound).
    ``estimated`` is False for an item whose kind has no price at all (declared in
    :mod:`runway_core.kinds` without a size table or quantities: RW122; its environment's plan
    is refused when capped). Not part of the plan JSON: its note says it.
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
    estimated: bool = True


#: The verdicts of an environment's plan: ``ok`` (priced, under its cap), ``over-cap``
#: (refused: over its cap, even when prices are missing, since the total is a lower bound),
#: ``unpriced`` (refused: it has a cap and a unit price is missing for the region, so the cap
#: cannot be checked: fail closed, ADR 0493 §3) and ``no-cap`` (no cap: a warning).
VERDICTS: tuple[str, ...] = ("ok", "over-cap", "unpriced", "no-cap")

#: The verdicts that refuse the plan (``plan`` exit 2; ``preview``/``up`` declare nothing).
REFUSED_VERDICTS: frozenset[str] = frozenset({"over-cap", "unpriced"})


@dataclass(frozen=True)
class EnvironmentPlan:
    """One environment's plan; ``verdict`` is one of :data:`VERDICTS`."""

    name: str
    cap: Decimal | None
    cap_source: str
    items: tuple[ItemPlan, ...]
    total: Decimal
    verdict: str
    missing_prices: tuple[str, ...]
    notes: tuple[str, ...]
    #: Whether the environment is disposable (docs/format.md, "Disposable environments").
    disposable: bool = False
    #: With ``cap_source`` ``invalid``: ``(code, why)`` naming the key that makes the cap
    #: unreadable (:attr:`~runway_core.planner.spec.EnvSpec.cap_error`). Not in the plan JSON.
    cap_error: tuple[str, str] | None = None
    #: ``(label, why)`` of every definition the analysis could not price and that is not an
    #: item (:attr:`RunwaySpec.unpriced`: a workload or resource dropped by validation, an
    #: unknown kind, a definition a duplicate key hides): not estimated, so the total is a
    #: lower bound (:func:`~runway_core.planner.verdict.not_estimated`). Not in the plan JSON.
    unpriced: tuple[tuple[str, str], ...] = ()

    def item(self, name: str) -> ItemPlan | None:
        # An index built on first use (completion and hovers ask for every item by name).
        index = self.__dict__.get("_by_name")
        if index is None:
            index = {}
            for i in self.items:
                index.setdefault(i.name, i)
            object.__setattr__(self, "_by_name", index)
        return index.get(name)

    def price_confidence(self) -> dict[str, Decimal]:
        """How much of :attr:`total` rests on each price confidence (USD per month, every
        level of ``runway_core.catalog.CONFIDENCE_LEVELS`` in order, 0.00 when none): the sum
        of the line items priced at that confidence, so the values add up to the total."""
        out = {c: Decimal("0.00") for c in CONFIDENCE_LEVELS}
        for i in self.items:
            for li in i.line_items:
                out[li.confidence] = out.get(li.confidence, Decimal("0.00")) + li.monthly_usd
        return out

    def unchecked_prices(self) -> list[tuple[str, str, Decimal, Decimal]]:
        """``(price key, confidence, ± percent, USD per month of the total)`` of every derived
        or unverified price the total rests on, the largest possible error first."""
        shares: dict[str, list] = {}
        for i in self.items:
            for li in i.line_items:
                if li.confidence in UNCHECKED_CONFIDENCES and li.monthly_usd:
                    row = shares.setdefault(li.price_key, [li.confidence, li.uncertainty_pct, Decimal("0.00")])
                    row[2] += li.monthly_usd
        out = [(k, c, u, usd) for k, (c, u, usd) in shares.items()]
        out.sort(key=lambda r: (-(r[3] * r[2]), r[0]))
        return out

    def uncertainty_usd(self) -> Decimal:
        """How far the total may be off through its unchecked prices: the sum of each one's
        share x its stated uncertainty, USD per month (rounded to cents, up)."""
        band = sum((usd * pct / 100 for _k, _c, pct, usd in self.unchecked_prices()), Decimal(0))
        return band.quantize(Decimal("0.01"), rounding=ROUND_CEILING)

    def verdict_could_flip(self) -> bool:
        """A capped verdict (``ok`` or ``over-cap``) that the stated uncertainty of its derived
        and unverified prices could turn around: under the cap by less than
        :meth:`uncertainty_usd`, or over it by no more than that (RW172)."""
        if self.cap is None or self.verdict not in ("ok", "over-cap"):
            return False
        band = self.uncertainty_usd()
        if not band:
            return False
        return self.total + band > self.cap if self.verdict == "ok" else self.total - band <= self.cap

    def top_contributors(self, n: int = 3) -> list[ItemPlan]:
        return sorted(self.items, key=lambda i: (-i.monthly_usd, i.name))[:n]

    @property
    def refused(self) -> bool:
        """Over its cap, or its cap cannot be checked (:data:`REFUSED_VERDICTS`)."""
        return self.verdict in REFUSED_VERDICTS


def refresh_command(region: str) -> str:
    """The command that prices ``region`` from the AWS Price List (docs/cli.md)."""
    return f"runway-deploy catalog refresh --region {region}"


def cap_unchecked_text(plan: EnvironmentPlan, region: str) -> str:
    """Why an ``unpriced`` plan is refused, one sentence every face prints the same way:
    ``cannot check the cap: no eu-west-1 price for k1, k2; run `runway-deploy catalog refresh
    --region eu-west-1```."""
    unestimated = [i.name for i in plan.items if not i.estimated]
    if unestimated and not plan.missing_prices:
        return f"cannot check the cap: {', '.join(unestimated)} not estimated (its kind has no price: RW122)"
    return (f"cannot check the cap: no {region} price for {', '.join(plan.missing_prices)}; "
            f"run `{refresh_command(region)}` (or pass a catalogue that prices it with --catalog)")


@dataclass(frozen=True)
class Plan:
    product: str
    region: str
    environments: tuple[EnvironmentPlan, ...]
    catalog_origin: str = "packaged default"
