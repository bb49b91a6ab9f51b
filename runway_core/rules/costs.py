"""Region, prices and caps: RW160 (a region the catalogue does not price), RW161 (unit
prices missing for the region), RW170 (an environment over its cap: the plan is refused,
ADR 0493 §3) and RW171 (an environment without a cap).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..diagnostics import Diagnostic
from ..money import cents, usd
from ..positions import Position, Range
from ..text import suggest
from ..yamlsrc import YMap
from ._common import _d, _first_key_range, _root, _section

if TYPE_CHECKING:
    from ..facts import Analysis


def region(an: "Analysis") -> Iterator[Diagnostic]:
    """RW160 (region unknown to the catalogue) and RW161 (prices missing for the region)."""
    r = _root(an)
    if r is None or an.spec is None:
        return
    node = r.get("region")
    rng = node.range if node is not None else _first_key_range(r)
    reg = an.spec.region
    if reg not in an.catalog.regions:
        sug = suggest(reg, sorted(an.catalog.regions))
        hint = f"; did you mean `{sug}`?" if sug else ""
        yield _d(an, an.root_file, rng, "RW160", f"region `{reg}` has no prices in the catalogue{hint} (priced regions: {', '.join(sorted(an.catalog.regions))})",
                 {"region": reg, "suggestion": sug})
        return
    missing: dict[str, list[str]] = {}
    for env, plan in an.plans.items():
        for key in plan.missing_prices:
            missing.setdefault(key, []).append(env)
    if missing:
        keys = sorted(missing)
        yield _d(an, an.root_file, rng, "RW161",
                 f"the catalogue has no {reg} price for {', '.join(keys)}; those items are not estimated, so totals are lower bounds (never another region's price)",
                 {"region": reg, "missing": keys})


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
    if an.spec is not None and an.spec.region not in an.catalog.regions:
        return  # RW160: nothing is priced in an unknown region, so no estimate to compare
    env_models = getattr(an, "_env_models", {})
    for env, plan in an.plans.items():
        if env in an.env_keys and env not in env_models:
            continue  # its entry is invalid (RW100/RW102): the cap is unknown until it is fixed
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
                     f"{env}: estimate {est}/month is over its {src} of {usd(plan.cap)} by {usd(plan.total - plan.cap)}; "
                     f"the plan is refused. Top contributors: {top_txt}", data)
        elif plan.verdict == "no-cap":
            yield _d(an, an.root_file, _env_anchor(an, env, False), "RW171",
                     f"{env} has no cap: estimate {est}/month (top: {top_txt}); set `environments.{env}.limits.monthly` to cap it", data)
