"""Helpers more than one output format uses: counts, quantities and prices, plan footnotes,
CI paths and 1-based ranges. Money is USD per month (730 h a month; docs/catalog.md)."""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from deploy_engine.terminal import printable, rel_path
from runway_core.facts import Analysis
from runway_core.diagnostics import Diagnostic, Severity
from runway_core.money import cap_percent, signed_usd, usd
from runway_core.planner import EnvironmentPlan, Plan, not_estimated, shown_verdict
from runway_core.positions import Range

if TYPE_CHECKING:  # the diff renderers' types; runway_core.plan_diff is imported by `diff` only
    from runway_core.plan_diff import EnvironmentDiff, ItemDiff, PlanDiff

# Footnotes printed once per text or markdown plan (docs/catalog.md).
NOTE_UNITS = "Estimates are USD per month (730 h a month), unit prices x quantities from the catalogue."
NOTE_FREE_TIERS = "Free tiers are ignored: estimates are conservative."
NOTE_NETWORK = "Network (VPC, NAT gateways, endpoints, data transfer) is outside the runway and not estimated."
NOTE_IMPLICIT = "implicit: a shared pool (`shared-<kind>`, from members' `requires` and `environments.<env>.shared`) or a per-environment item (ALB, service discovery)."


#: The longest short price source shown by ``plan --details`` (the full text is in JSON).
SHORT_SOURCE = 72


def short_source(source: str, key: str) -> str:
    """A line item's price source for a reader tracing a figure: the catalogue row's source up
    to its first `` (``, ``;`` or `` — `` (its publisher, offer, region and date, e.g. "AWS Price
    List, AmazonRDS offer, us-east-1, 2026-09-24"), at most :data:`SHORT_SOURCE` characters
    (cut with "…"), then the price key that names the row (docs/catalog.md: one row per key and
    region). The whole source is ``line_items[].source`` in JSON (docs/cli.md)."""
    text = " ".join(source.split())
    for stop in (" (", ";", " — "):
        at = text.find(stop)
        if at > 0:
            text = text[:at]
    text = text.rstrip(" ,.")
    if len(text) > SHORT_SOURCE:
        text = text[: SHORT_SOURCE - 1].rstrip() + "…"
    return (text or "no source given") + (f" [{key}]" if key else "")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def counts(diags: Sequence[Diagnostic]) -> dict[Severity, int]:
    """Diagnostics per severity (every severity present, 0 when none)."""
    out = {s: 0 for s in Severity}
    for d in diags:
        out[d.severity] += 1
    return out


def count(diags: Sequence[Diagnostic], severity: Severity) -> int:
    return sum(1 for d in diags if d.severity == severity)


def file_count(an: Analysis) -> int:
    return len(set(an.files) | set(an.diagnostics))


def summary_text(an: Analysis, diags: Sequence[Diagnostic]) -> str:
    """``N errors, M warnings, K hints in F files`` (information counted only when present)."""
    return summary_line(diags, file_count(an))


def summary_line(diags: Sequence[Diagnostic], files: int) -> str:
    """:func:`summary_text` over any diagnostics, ``files`` files."""
    c = counts(diags)
    parts = [plural(c[Severity.ERROR], "error"), plural(c[Severity.WARNING], "warning")]
    if c[Severity.INFORMATION]:
        parts.append(f"{c[Severity.INFORMATION]} information")
    parts.append(plural(c[Severity.HINT], "hint"))
    return f"{', '.join(parts)} in {plural(files, 'file')}"


def qty(x: Decimal) -> str:
    """``Decimal('182.50')`` -> ``182.5``; never exponent notation."""
    return f"{x.normalize():f}"


def unit_price(x: Decimal) -> str:
    """A unit price in USD: two decimals, more when the catalogue gives more."""
    return f"${x.normalize():f}" if x.normalize().as_tuple().exponent < -2 else f"${x:.2f}"


def pct(p: EnvironmentPlan) -> str | None:
    """The total as a percentage of the cap (``"36%"``), None without a cap."""
    value = cap_percent(p.total, p.cap)
    return None if value is None else f"{value}%"


# The one verdict rule (issue 23: the language server shows the same): runway_core/planner/verdict.py.
plan_verdict = shown_verdict


def plan_total(p: EnvironmentPlan) -> str:
    """The total as the plan formats print it: ``at least $X`` when it is a lower bound
    (a price missing for the region, or an item not estimated)."""
    return ("at least " if p.missing_prices or not_estimated(p) else "") + usd(p.total)


def confidence_text(p: EnvironmentPlan) -> str:
    """How much of ``p``'s total rests on each price confidence, the levels with a share:
    ``prices: $361.54 price-list, $616.49 secondary`` (docs/cli.md, "price_confidence")."""
    parts = [f"{usd(v)} {c}" for c, v in p.price_confidence().items() if v]
    return "prices: " + (", ".join(parts) if parts else "none")


def footnotes(plan: Plan, plans: Sequence[EnvironmentPlan], esc: Callable[[str], str] = printable) -> list[tuple[str, str]]:
    """(text-table marker, note) pairs, each printed once per output; ``esc`` renders the
    runway's own words in them (region, environment names, price keys)."""
    notes: list[tuple[str, str]] = []
    if any(i.implicit for p in plans for i in p.items):
        notes.append(("*", NOTE_IMPLICIT))
    missing: list[str] = []
    for p in plans:
        for k in p.missing_prices:
            if k not in missing:
                missing.append(k)
    if missing:
        notes.append(("!", f"missing prices for {esc(plan.region)}: {', '.join(esc(k) for k in missing)}; those items are not fully estimated"
                      " (the total is a lower bound), and no other region's price is used."))
    dropped = {label for p in plans for label, _why in p.unpriced}
    unknown = [f"{esc(name)} ({esc(p.name)})" for p in plans for name in not_estimated(p) if name not in dropped]
    # A definition the analysis could not price (a schema error, a kind typo, a duplicate key:
    # runway_core/analysis/spec.py) is named once, with why (ninth adversary L7).
    reasons = {label: why for p in plans for label, why in p.unpriced}
    if reasons:
        notes.append(("", "not estimated: " + "; ".join(f"{esc(label)}: {esc(why)}" for label, why in reasons.items())
                      + "; the totals are lower bounds and no environment is ok (`runway-deploy check` lists the errors)."))
    if unknown:
        notes.append(("", f"not estimated: {', '.join(unknown)} (a size the catalogue lacks has no price); those totals are lower bounds"
                      " and no such environment is ok (`runway-deploy check` lists the errors)."))
    for p in plans:
        if p.cap_source == "default" and p.cap is not None:
            notes.append(("", f"{esc(p.name)}: default cap of {usd(p.cap)}; set `environments.{esc(p.name)}.limits.monthly` to change it."))
    # With a usage file's network quantities the planner's own note says what is estimated.
    network = next((n for p in plans for n in p.notes if n.startswith("network: only")), None)
    notes += [("", NOTE_UNITS), ("", NOTE_FREE_TIERS), ("", NOTE_NETWORK if network is None else network[0].upper() + network[1:] + ".")]
    return notes


def ci_path(path: str, base: str, environ: Mapping[str, str]) -> str:
    """A file as every format shows it: relative to ``$GITHUB_WORKSPACE`` (the repository)
    when set and the file is inside it, else to the current folder when the file is inside
    it, else to ``base`` (the root runway's folder); ``/`` separators (docs/cli.md, "Paths")."""
    absolute = Path(os.path.abspath(path))
    workspace = environ.get("GITHUB_WORKSPACE")
    for folder in ((workspace,) if workspace else ()) + (os.getcwd(),):
        try:
            shown = absolute.relative_to(Path(os.path.abspath(folder))).as_posix()
        except ValueError:
            continue
        if shown != ".":  # GITHUB_WORKSPACE naming the file itself: "." is no file's path (SARIF uri)
            return shown
    return rel_path(path, base)


def line_text(d: Diagnostic, an: Analysis) -> str:
    """The text of the line a diagnostic starts on ('' when its file was not read)."""
    src = an.files.get(d.file)
    return src.parsed.lines.line_text(d.range.start.line) if src is not None else ""


def one_based_range(d: Diagnostic, an: Analysis) -> tuple[int, int, int, int]:
    """(startLine, startColumn, endLine, endColumn), 1-based, columns in UTF-16 code units.

    The end column is exclusive, as SARIF's ``endColumn`` (the column after the last character).
    """
    src = an.files.get(d.file)
    rng: Range = src.parsed.lines.encode_range(d.range, "utf-16") if src is not None else d.range
    return rng.start.line + 1, rng.start.character + 1, rng.end.line + 1, rng.end.character + 1


# --------------------------------------------------------------------------------------
# Diffs (runway_core.plan_diff)
# --------------------------------------------------------------------------------------

#: Cells of the cap bar (each 5% of the cap).
CAP_BAR_CELLS = 20


def plain_value(v: Any) -> str:
    """A capacity value as text: ``-`` when absent, ``true``/``false``, numbers without exponent."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Decimal):
        return qty(v)
    return str(v)


def item_delta(i: ItemDiff) -> str:
    """An item's delta as every diff format shows it: ``+$12.00``, or ``not estimated`` when
    head has the item but could not price it (its $0 is no saving)."""
    return "not estimated" if not i.head_priced and i.change != "removed" else signed_usd(i.delta_monthly_usd)


def env_delta(e: EnvironmentDiff) -> str:
    """An environment's delta in a summary cell: ``+$12.00``, or ``not known`` when head's
    total is a lower bound (an item not estimated)."""
    return "not known" if e.not_estimated or e.head_unread else signed_usd(e.delta)


def change_details(i: ItemDiff, esc: Callable[[str], str] = printable) -> str:
    """What changed in a ``changed`` item: ``size medium -> large, tasks 3 -> 4`` (arrows
    ``→``); empty for an added, removed or unchanged item."""
    if i.change != "changed":
        return ""
    parts = []
    if i.base_size != i.head_size:
        parts.append(f"size {esc(i.base_size or '-')} → {esc(i.head_size or '-')}")
    parts += [_capacity_change(c, esc) for c in i.capacity_changes]
    return ", ".join(parts)


def _capacity_change(c: Any, esc: Callable[[str], str]) -> str:
    """``tasks 3 → 4``; a usage file's quantity (``usage_<key>``, docs/format.md "Usage file")
    says where it came from: ``requests_millions assumed → 400 (usage file)``."""
    if c.key.startswith("usage_"):
        side = lambda v: "assumed" if v is None else f"{esc(plain_value(v))} (usage file)"  # noqa: E731
        return f"{esc(c.key[len('usage_'):])} {side(c.base)} → {side(c.head)}"
    return f"{esc(c.key)} {esc(plain_value(c.base))} → {esc(plain_value(c.head))}"


def cap_bar(percent: int | None) -> str:
    """``█████████░░░░░░░░░░░`` for 45%: one cell per 5% of the cap, full past 100%."""
    if percent is None:
        return ""
    filled = min(CAP_BAR_CELLS, max(0, round(percent * CAP_BAR_CELLS / 100)))
    return "█" * filled + "░" * (CAP_BAR_CELLS - filled)


#: How a head verdict reads in a headline (None: the environment is removed).
HEAD_VERDICTS = {"ok": "ok", "over-cap": "OVER THE CAP (refused)", "unpriced": "UNPRICED: the cap cannot be checked (refused)",
                 "no-cap": "no cap", "invalid": "INVALID: head has errors, its total is a lower bound", None: ""}


def headline(e: EnvironmentDiff, esc: Callable[[str], str] = printable, strong: Callable[[str], str] = lambda s: s) -> str:
    """One line per environment: ``production: +$86.50/month ($802.59 → $889.09), 32% → 36% of
    the $2,500.00 cap — ok``; ``strong`` marks the delta (bold in Markdown). A cap change
    (``cap $2,000.00 → $2,500.00``), items head could not price and an exceeded
    ``--max-increase`` are said in it: a refusal is never hidden behind "ok"."""
    name = esc(e.name)
    missing = e.not_estimated
    if e.head_unread:
        money = f"{strong('not compared')}: head could not be read ({usd(e.base_total)}/month at base)"
    elif not e.in_head:
        money = f"removed ({usd(e.base_total)}/month before)"
    elif missing:
        # Head's total is a lower bound: its difference from base is no saving and no
        # increase anyone can know (never "−$139.47" for a size that could not be priced).
        money = f"{strong('change not known')} ({usd(e.base_total) if e.in_base else '-'} → at least {usd(e.head_total)})"
        if e.cap is not None:
            money += f", at least {e.head_percent}% of the {usd(e.cap)} cap"
    elif e.delta.is_zero():
        money = f"no change ({usd(e.head_total)}/month"
        money += f", {e.head_percent}% of the {usd(e.cap)} cap)" if e.cap is not None and e.head_percent is not None else ")"
    else:
        money = f"{strong(signed_usd(e.delta) + '/month')} ({usd(e.base_total)} → {usd(e.head_total)})"
        if e.cap is not None:
            before = f"{e.base_percent}% → " if e.base_percent is not None and e.base_cap == e.cap else ""
            money += f", {before}{e.head_percent}% of the {usd(e.cap)} cap"
    if e.cap_changed:
        money += f"; cap {usd(e.base_cap) if e.base_cap is not None else 'none'} → {usd(e.cap) if e.cap is not None else 'none'}"
    if missing:
        money += f"; {len(missing)} item(s) not estimated ({esc(', '.join(missing))}): the total is a lower bound"
    verdicts = [HEAD_VERDICTS.get(e.head_verdict, e.head_verdict or "")]
    if e.max_increase_exceeded:
        # The environment fails the job: its verdict is never "ok" (nor "no cap") beside that.
        verdicts = [v for v in verdicts if v not in ("ok", "no cap")]
        assert e.max_increase is not None
        verdicts.append(f"OVER --max-increase {usd(e.max_increase)} by {usd(e.delta - e.max_increase)} (refused)")
    verdict = "; ".join(v for v in verdicts if v)
    return f"{name}: {money}" + (f" — {strong(verdict) if verdict != 'ok' and verdict != 'no cap' else verdict}" if verdict else "")


def product_notes(diff: PlanDiff, esc: Callable[[str], str] = printable, *, changes: bool = True, errors: bool = True) -> list[str]:
    """The lines said before a product's environments: an added or removed product
    (``changes``), head's errors (``errors``; its totals are lower bounds), a region change
    (every price is the new region's)."""
    out = []
    if changes and diff.change == "added":
        out.append("product added: every item is new (base has no such product)")
    elif changes and diff.change == "removed":
        out.append("product removed: every item is removed (head total $0.00)")
    if errors and not diff.head_read:
        out.append(f"head could not be read ({plural(diff.head_errors, 'error')}; `runway-deploy check` lists them): nothing is "
                   "compared, its region, caps and items are unknown and no environment is ok")
    elif errors and diff.head_errors:
        out.append(f"head has {plural(diff.head_errors, 'error')} (`runway-deploy check` lists them): its totals are lower bounds "
                   "and no environment is ok")
    if diff.region_changed:
        out.append(f"region {esc(diff.base_region or 'none')} → {esc(diff.head_region or 'none')}: every price is the new region's")
    return out
