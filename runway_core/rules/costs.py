"""Region, prices and caps: RW164 (a region name that is no AWS region), RW160 (an AWS region
the catalogue does not price), RW161 (unit
prices missing for the region where no cap depends on them), RW162/RW163 (a capped
environment whose estimate misses a price: its cap cannot be checked, so the plan is refused:
fail closed, issue 13), RW170 (an environment over its cap: the plan is refused, ADR 0493 §3)
RW171 (an environment without a cap) and RW172 (a capped verdict the stated uncertainty of its
derived and unverified prices could turn around).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Iterator

from ..diagnostics import Diagnostic
from ..money import cents, usd, usd_over
from ..planner.items import refresh_command
from ..positions import Position, Range
from ..catalog import aws_regions
from ..text import suggest
from ..yamlsrc import YMap
from ._common import _d, _first_key_range, _item_place, _root, _section

if TYPE_CHECKING:
    from ..facts import Analysis


def _names(items: list[str]) -> str:
    return ", ".join(items)


def region(an: "Analysis") -> Iterator[Diagnostic]:
    """RW160 (region unknown to the catalogue), RW162 (a capped environment misses prices: its
    cap cannot be checked, the plan is refused; fail closed, issue 13), RW163 (each item such an
    environment cannot price) and RW161 (prices missing where no cap is checked: lower bounds).

    Never another region's price: a missing price stays missing (docs/catalog.md)."""
    r = _root(an)
    if r is None or an.spec is None:
        return
    node = r.get("region")
    rng = node.range if node is not None else _first_key_range(r)
    reg = an.spec.region
    known = aws_regions()
    if reg not in known and reg not in an.catalog.regions:
        # Not an AWS region at all (botocore's endpoint data, catalog/aws_regions.json): the
        # one problem to report. Its missing prices (RW161-RW163) would only advise refreshing
        # a region that does not exist; the plans stay unpriced, and RW164 is an error.
        yield _not_a_region(an, rng, reg, known)
        return
    refresh = refresh_command(reg)
    if reg not in an.catalog.regions:
        yield _d(an, an.root_file, rng, "RW160",
                 f"region `{reg}` has no prices in the catalogue ({_partition(known, reg)}; priced regions: "
                 f"{', '.join(sorted(an.catalog.regions))}); `{refresh}` prices it from the AWS Price List",
                 {"region": reg, "command": refresh})
    refused: dict[str, list[str]] = {}  # missing key -> capped environments it leaves unchecked
    lower: dict[str, list[str]] = {}  # missing key -> environments where the total is only a lower bound
    for env, plan in an.plans.items():
        if plan.cap_source == "invalid":
            continue  # its `limits` is invalid (RW100/RW102): the cap is unknown until it is fixed
        target = refused if plan.verdict == "unpriced" else lower
        for key in plan.missing_prices:
            target.setdefault(key, []).append(env)
    if refused:
        keys = sorted(refused)
        envs = sorted({e for es in refused.values() for e in es}, key=list(an.plans).index)
        yield _d(an, an.root_file, rng, "RW162",
                 f"cannot check the cap of {_names(envs)}: no {reg} price for {_names(keys)}; run `{refresh}`; "
                 "their plans are refused (never another region's price)",
                 {"region": reg, "missing": keys, "environments": envs, "command": refresh})
        yield from _unpriced_items(an, reg, refresh)
    if lower:
        keys = sorted(lower)
        envs = sorted({e for es in lower.values() for e in es}, key=list(an.plans).index)
        yield _d(an, an.root_file, rng, "RW161",
                 f"the catalogue has no {reg} price for {_names(keys)}; those items are not estimated in {_names(envs)}, "
                 "so their totals are lower bounds (never another region's price)",
                 {"region": reg, "missing": keys, "environments": envs})


def _partition(known, reg: str) -> str:
    part = known.get(reg, "aws")
    return "an AWS region" if part == "aws" else f"an AWS region of the {part} partition"


def _not_a_region(an: "Analysis", rng: Range, reg: str, known) -> Diagnostic:
    """RW164 at the ``region`` value: the same name in lower case when only the case is wrong
    (``EU-WEST-1``), else the closest AWS region (difflib, :func:`~runway_core.text.suggest`:
    ``eu-west1`` -> ``eu-west-1``), priced regions first when as close."""
    lower = reg.strip().lower()
    if lower in known:
        sug: str | None = lower
    else:
        sug = suggest(lower, sorted(set(known) | set(an.catalog.regions)), prefer=an.catalog.regions)
    hint = f"; did you mean `{sug}`?" if sug else ""
    return _d(an, an.root_file, rng, "RW164",
              f"`{reg}` is not an AWS region{hint} (region names are lower case, e.g. `us-east-1`; "
              f"priced in the catalogue: {', '.join(sorted(an.catalog.regions))})",
              {"region": reg, "suggestion": sug})


def _unpriced_items(an: "Analysis", reg: str, refresh: str) -> Iterator[Diagnostic]:
    """RW163 on each item an ``unpriced`` environment cannot price: at its declaring key (an
    implicit ``shared-<kind>`` at the first place that asks for it; the ALB and the Cloud Map
    namespace, which belong to an environment, at that environment)."""
    by_item: dict[str, tuple[list[str], list[str]]] = {}
    env_items: list[tuple[str, str, tuple[str, ...]]] = []
    for env, plan in an.plans.items():
        if plan.verdict != "unpriced":
            continue
        for item in plan.items:
            if not item.missing_prices:
                continue
            if item.origin == "environment":
                env_items.append((env, item.name, item.missing_prices))
                continue
            envs, keys = by_item.setdefault(item.name, ([], []))
            envs.append(env)
            keys.extend(k for k in item.missing_prices if k not in keys)
    for name, (envs, keys) in by_item.items():
        file, rng = _item_place(an, name) or (an.root_file, _env_anchor(an, envs[0], False))
        yield _d(an, file, rng, "RW163",
                 f"`{name}` has no {reg} price for {_names(sorted(keys))}: it is not estimated, so the cap of {_names(envs)} "
                 f"cannot be checked and the plan is refused; run `{refresh}`",
                 {"name": name, "region": reg, "missing": sorted(keys), "environments": envs})
    for env, name, keys in env_items:
        yield _d(an, an.root_file, _env_anchor(an, env, False), "RW163",
                 f"`{name}` of {env} has no {reg} price for {_names(sorted(keys))}: it is not estimated, so the cap of {env} "
                 f"cannot be checked and the plan is refused; run `{refresh}`",
                 {"name": name, "region": reg, "missing": sorted(keys), "environments": [env]})


def _env_anchor(an: "Analysis", env: str, prefer_limit: bool) -> Range:
    envs = _section(an, "environments")
    if envs is not None:
        ev = envs.get(env)
        if prefer_limit and isinstance(ev, YMap):
            lim = ev.get("limits")
            if isinstance(lim, YMap) and lim.get("monthly") is not None:
                return lim.get("monthly").range  # type: ignore[union-attr]
        kn = envs.key_node(env)
        if kn is not None:
            return kn.range
    r = _root(an)
    if r is not None:
        kn = r.key_node("environments")
        return kn.range if kn is not None else _first_key_range(r)
    return Range(Position(0, 0), Position(0, 0))


def caps(an: "Analysis") -> Iterator[Diagnostic]:
    """RW170 (over cap: error naming the top contributors) and RW171 (no cap: warning with the
    estimate, once per environment). ADR 0493 §3: over cap is refused before anything is created."""
    for env, plan in an.plans.items():
        if plan.cap_source == "invalid":
            continue  # its `limits` is invalid (RW100/RW102): the cap is unknown until it is fixed
        top = plan.top_contributors(3)
        top_txt = ", ".join(f"{i.name} {usd(i.monthly_usd)}" for i in top) or "nothing priced"
        data = {
            "environment": env,
            "total": str(cents(plan.total)),
            "cap": None if plan.cap is None else str(plan.cap),
            "top": [{"name": i.name, "monthly_usd": str(cents(i.monthly_usd))} for i in top],
        }
        # A missing unit price (RW161) leaves items unestimated: the total is a lower bound.
        est = ("at least " if plan.missing_prices else "") + usd(plan.total)
        if plan.verdict == "over-cap":
            assert plan.cap is not None
            src = "default cap" if plan.cap_source == "default" else "cap"
            yield _d(an, an.root_file, _env_anchor(an, env, True), "RW170",
                     f"{env}: estimate {est}/month is over its {src} of {usd(plan.cap)} by {usd_over(plan.total - plan.cap)}; "
                     f"the plan is refused. Top contributors: {top_txt}", data)
        elif plan.verdict == "no-cap":
            yield _d(an, an.root_file, _env_anchor(an, env, False), "RW171",
                     f"{env} has no cap: estimate {est}/month (top: {top_txt}); set `environments.{env}.limits.monthly` to cap it", data)


#: At most this many prices are named in RW172 (the largest possible errors first).
MARGIN_PRICES = 5


def verdict_margin(an: "Analysis") -> Iterator[Diagnostic]:
    """RW172: a capped environment whose verdict could flip within the stated uncertainty of
    its derived and unverified prices (``EnvironmentPlan.verdict_could_flip``; each price's
    uncertainty is its catalogue row's, docs/catalog.md "Uncertainty"). A warning naming the
    prices to refresh, largest possible error first."""
    reg = an.spec.region if an.spec is not None else ""
    for env, plan in an.plans.items():
        if plan.cap_source == "invalid":
            continue
        if not plan.verdict_could_flip():
            continue
        assert plan.cap is not None
        band = plan.uncertainty_usd()
        prices = plan.unchecked_prices()
        named = ", ".join(f"{k} ({c} ±{pct.normalize():f}%, {usd(share)})" for k, c, pct, share in prices[:MARGIN_PRICES])
        more = f" and {len(prices) - MARGIN_PRICES} more" if len(prices) > MARGIN_PRICES else ""
        share = sum((s for _k, _c, _p, s in prices), Decimal("0.00"))
        if plan.verdict == "ok":
            what = f"is {usd(plan.cap - plan.total)} under its cap of {usd(plan.cap)}"
            could = "over the cap"
        else:
            what = f"is {usd_over(plan.total - plan.cap)} over its cap of {usd(plan.cap)}"
            could = "under the cap"
        data = {"environment": env, "total": str(cents(plan.total)), "cap": str(plan.cap), "uncertainty_usd": str(band),
                "prices": [{"price_key": k, "confidence": c, "uncertainty_pct": str(p), "monthly_usd": str(s)} for k, c, p, s in prices]}
        yield _d(an, an.root_file, _env_anchor(an, env, True), "RW172",
                 f"{env}: the estimate {usd(plan.total)}/month {what}, and {usd(share)} of it rests on derived or unverified "
                 f"prices whose stated uncertainty (±{usd(band)}) could put it {could}; refresh {named}{more} "
                 f"(`{refresh_command(reg)}`) before trusting the verdict", data)
