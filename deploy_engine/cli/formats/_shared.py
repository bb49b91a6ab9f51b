"""Helpers more than one output format uses: counts, quantities and prices, plan footnotes,
CI paths and 1-based ranges. Money is USD per month (730 h a month; docs/catalog.md)."""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from typing import Callable, Mapping, Sequence

from deploy_engine.terminal import printable, rel_path
from runway_core.analysis import Analysis
from runway_core.diagnostics import Diagnostic, Severity
from runway_core.money import cap_percent, usd
from runway_core.planner import EnvironmentPlan, Plan
from runway_core.positions import Range

# Footnotes printed once per text or markdown plan (docs/catalog.md).
NOTE_UNITS = "Estimates are USD per month (730 h a month), unit prices x quantities from the catalogue."
NOTE_FREE_TIERS = "Free tiers are ignored: estimates are conservative."
NOTE_NETWORK = "Network (VPC, NAT gateways, endpoints, data transfer) is outside the runway and not estimated."
NOTE_IMPLICIT = "implicit: a shared pool (`shared-<kind>`, from members' `requires` and `environments.<env>.shared`) or a per-environment item (ALB, service discovery)."


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
    c = counts(diags)
    parts = [plural(c[Severity.ERROR], "error"), plural(c[Severity.WARNING], "warning")]
    if c[Severity.INFORMATION]:
        parts.append(f"{c[Severity.INFORMATION]} information")
    parts.append(plural(c[Severity.HINT], "hint"))
    return f"{', '.join(parts)} in {plural(file_count(an), 'file')}"


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
    for p in plans:
        if p.cap_source == "default" and p.cap is not None:
            notes.append(("", f"{esc(p.name)}: default cap of {usd(p.cap)}; set `environments.{esc(p.name)}.limits.monthly` to change it."))
    notes += [("", NOTE_UNITS), ("", NOTE_FREE_TIERS), ("", NOTE_NETWORK)]
    return notes


def ci_path(path: str, base: str, environ: Mapping[str, str]) -> str:
    """The file as CI tools want it: relative to ``$GITHUB_WORKSPACE`` (the repository) when the
    file is inside it, else relative to the root runway's folder; ``/`` separators."""
    workspace = environ.get("GITHUB_WORKSPACE")
    if workspace:
        try:
            return Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(workspace))).as_posix()
        except ValueError:
            pass
    return rel_path(path, base)


def one_based_range(d: Diagnostic, an: Analysis) -> tuple[int, int, int, int]:
    """(startLine, startColumn, endLine, endColumn), 1-based, columns in UTF-16 code units.

    The end column is exclusive, as SARIF's ``endColumn`` (the column after the last character).
    """
    src = an.files.get(d.file)
    rng: Range = src.parsed.lines.encode_range(d.range, "utf-16") if src is not None else d.range
    return rng.start.line + 1, rng.start.character + 1, rng.end.line + 1, rng.end.character + 1
