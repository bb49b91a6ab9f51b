"""``catalog diff OLD NEW [PATH...]``: what a catalogue change (a refresh job's new
``prices.csv``) moves, for review in its pull request (docs/cli.md "catalog diff", docs/ci.md).

Every ``(key, region)`` whose unit price changed (old, new, percent), every key and region
added or removed, and for each runway given each environment's old and new total and verdict,
each planned by the one planner with either catalogue (a runway's own usage file included).
Pure comparison of two loaded catalogues and the analyses; no network, no Pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from runway_core.catalog import Catalog, UnitPrice
from runway_core.facts import Analysis
from runway_core.markdown import table
from runway_core.money import cents, signed_usd, usd
from runway_core.text import redact


@dataclass(frozen=True)
class PriceChange:
    """One ``(key, region)``: ``old`` None when added, ``new`` None when removed."""

    key: str
    region: str
    old: UnitPrice | None
    new: UnitPrice | None

    @property
    def change(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "changed"

    @property
    def percent(self) -> Decimal | None:
        """(new - old) / old x 100, one decimal, half up; None when added, removed or old is 0."""
        if self.old is None or self.new is None or not self.old.usd:
            return None
        with localcontext() as ctx:  # the loader bounds prices (1E-12 to 1,000,000 USD): 60 digits hold any ratio
            ctx.prec = 60
            return ((self.new.usd - self.old.usd) / self.old.usd * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class EnvironmentChange:
    """One environment of one runway under the two catalogues (USD per month)."""

    name: str
    old_total: Decimal
    new_total: Decimal
    old_verdict: str
    new_verdict: str
    cap: Decimal | None

    @property
    def delta(self) -> Decimal:
        return self.new_total - self.old_total


@dataclass(frozen=True)
class RunwayChange:
    product: str
    region: str
    path: str
    environments: tuple[EnvironmentChange, ...]


def _prices(catalog: Catalog) -> dict[tuple[str, str], UnitPrice]:
    return {(p.key, p.region): p for r in sorted(catalog.regions) for p in catalog.prices_for(r)}


def price_changes(old: Catalog, new: Catalog) -> list[PriceChange]:
    """Every key and region whose unit price (or unit) differs, was added or was removed,
    sorted by key then region. A row whose price and unit are equal is unchanged, whatever its
    source or date says."""
    a, b = _prices(old), _prices(new)
    out = []
    for k in sorted(set(a) | set(b)):
        pa, pb = a.get(k), b.get(k)
        if pa is not None and pb is not None and pa.usd == pb.usd and pa.unit == pb.unit:
            continue
        out.append(PriceChange(k[0], k[1], pa, pb))
    return out


def runway_change(old_an: Analysis, new_an: Analysis, path: str) -> RunwayChange:
    """Each environment's old and new total and verdict (both analyses of one runway)."""
    envs = []
    for name, new_plan in new_an.plans.items():
        old_plan = old_an.plans.get(name)
        if old_plan is None:
            continue
        envs.append(EnvironmentChange(name, old_plan.total, new_plan.total, old_plan.verdict, new_plan.verdict, new_plan.cap))
    spec = new_an.spec
    return RunwayChange(spec.product if spec else "?", spec.region if spec else "?", path, tuple(envs))


def _pct(c: PriceChange) -> str:
    p = c.percent
    return "" if p is None else f"{'+' if p > 0 else ''}{p}%"


def _num(x: Decimal) -> Any:
    return float(x) if x != x.to_integral_value() else int(x)


def diff_json(old_label: str, new_label: str, prices: list[PriceChange], runways: list[RunwayChange]) -> dict[str, Any]:
    """The JSON document (docs/cli.md "catalog diff"): ``format_version`` 1."""
    return {
        "format_version": 1,
        "old": old_label,
        "new": new_label,
        "prices": [
            {"key": c.key, "region": c.region, "change": c.change,
             "old_usd": None if c.old is None else _num(c.old.usd), "new_usd": None if c.new is None else _num(c.new.usd),
             "unit": (c.new or c.old).unit,  # type: ignore[union-attr]
             "percent": None if c.percent is None else float(c.percent),
             "old_confidence": None if c.old is None else c.old.confidence, "new_confidence": None if c.new is None else c.new.confidence}
            for c in prices
        ],
        "runways": [
            {"product": r.product, "region": r.region, "path": r.path,
             "environments": [{"name": e.name, "old_total_monthly_usd": float(cents(e.old_total)), "new_total_monthly_usd": float(cents(e.new_total)),
                               "delta_monthly_usd": float(cents(e.delta)), "old_verdict": e.old_verdict, "new_verdict": e.new_verdict,
                               "verdict_changed": e.old_verdict != e.new_verdict,
                               "cap_monthly_usd": None if e.cap is None else _num(e.cap)} for e in r.environments]}
            for r in runways
        ],
    }


def diff_text(old_label: str, new_label: str, prices: list[PriceChange], runways: list[RunwayChange]) -> str:
    out = [redact(f"catalogue change: {old_label} → {new_label}"), ""]
    changed = [c for c in prices if c.change == "changed"]
    added = [c for c in prices if c.change == "added"]
    removed = [c for c in prices if c.change == "removed"]
    out.append(f"{len(changed)} price(s) changed, {len(added)} added, {len(removed)} removed")
    for c in changed:
        out.append(f"  ~ {c.key} {c.region}: {c.old.usd} → {c.new.usd} per {c.new.unit} ({_pct(c)})")  # type: ignore[union-attr]
    for c in added:
        out.append(f"  + {c.key} {c.region}: {c.new.usd} per {c.new.unit} ({c.new.confidence})")  # type: ignore[union-attr]
    for c in removed:
        out.append(f"  - {c.key} {c.region}: was {c.old.usd} per {c.old.unit}")  # type: ignore[union-attr]
    for r in runways:
        out.append("")
        out.append(redact(f"{r.product} ({r.region}, {r.path}):"))
        for e in r.environments:
            flip = f" — verdict {e.old_verdict} → {e.new_verdict}" if e.old_verdict != e.new_verdict else f" — {e.new_verdict}"
            out.append(f"  {e.name}: {usd(e.old_total)} → {usd(e.new_total)} ({signed_usd(e.delta)}){flip}")
    return "\n".join(out) + "\n"


def diff_markdown(old_label: str, new_label: str, prices: list[PriceChange], runways: list[RunwayChange]) -> str:
    esc = lambda s: redact(str(s)).replace("|", "\\|")  # noqa: E731
    out = [f"### Catalogue change: `{esc(old_label)}` → `{esc(new_label)}`", ""]
    if prices:
        rows = [[f"`{esc(c.key)}`", esc(c.region), c.change, "" if c.old is None else str(c.old.usd), "" if c.new is None else str(c.new.usd),
                 esc((c.new or c.old).unit), _pct(c)] for c in prices]  # type: ignore[union-attr]
        out.extend(table(["price key", "region", "change", "old USD", "new USD", "per", "%"], rows, right={3, 4, 6}))
    else:
        out.append("No unit price changed.")
    for r in runways:
        out += ["", f"#### {esc(r.product)} ({esc(r.region)})", ""]
        rows = [[esc(e.name), usd(e.old_total), usd(e.new_total), signed_usd(e.delta),
                 e.new_verdict if e.old_verdict == e.new_verdict else f"**{e.old_verdict} → {e.new_verdict}**"] for e in r.environments]
        out.extend(table(["environment", "old total", "new total", "change", "verdict"], rows, right={1, 2, 3}))
    return "\n".join(out) + "\n"
