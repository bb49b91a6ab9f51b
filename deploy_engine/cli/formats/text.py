"""Text output, for humans: ``file:line:col: severity CODE: message`` (1-based line and column in
code points) and one aligned table per environment (monthly USD right-aligned). ANSI colour only
on a TTY with ``NO_COLOR`` unset or empty (no-color.org)."""

from __future__ import annotations

from typing import TYPE_CHECKING, IO, Any, Mapping, Sequence

from deploy_engine.cli.formats._shared import NOTE_UNITS, change_details, ci_path, confidence_text, footnotes, headline, item_delta, not_estimated, pct, plan_total, plan_verdict, product_notes, qty, short_source, signed_usd, summary_text, unit_price
from deploy_engine.terminal import printable, rel_path
from runway_core.facts import Analysis
from runway_core.diagnostics import Diagnostic, Severity
from runway_core.planner import EnvironmentPlan, ItemPlan, Plan
from runway_core.money import usd, usd_over

if TYPE_CHECKING:  # only `diff` imports runway_core.plan_diff
    from runway_core.plan_diff import PlanDiff


class Style:
    """ANSI colour, on only for a TTY with NO_COLOR unset or empty (no-color.org)."""

    def __init__(self, stream: IO[str], environ: Mapping[str, str]) -> None:
        isatty = getattr(stream, "isatty", None)
        self.on = bool(isatty and isatty()) and not environ.get("NO_COLOR")

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.on else text


_SEVERITY_COLOR = {Severity.ERROR: "1;31", Severity.WARNING: "1;33", Severity.INFORMATION: "1;34", Severity.HINT: "2"}


def diagnostic_text(d: Diagnostic, base: str, style: Style, environ: Mapping[str, str] | None = None) -> str:
    """``file:line:col: severity CODE: message`` with 1-based line and column (code points);
    the file relative to ``base``, or with ``environ`` as every format shows it (``ci_path``)."""
    shown = rel_path(d.file, base) if environ is None else ci_path(d.file, base, environ)
    where = f"{printable(shown)}:{d.range.start.line + 1}:{d.range.start.character + 1}"
    return f"{where}: {style(d.severity.label, _SEVERITY_COLOR[d.severity])} {d.code}: {printable(d.message)}"


def print_diagnostics(an: Analysis, diags: Sequence[Diagnostic], base: str, stream: IO[str], style: Style,
                      environ: Mapping[str, str] | None = None) -> None:
    """Each diagnostic on a line, then the summary line."""
    for d in diags:
        print(diagnostic_text(d, base, style, environ), file=stream)
    print(summary_text(an, diags), file=stream)


def _verdict_text(p: EnvironmentPlan) -> str:
    if plan_verdict(p) == "invalid":
        return f"INVALID: not estimated: {printable(', '.join(not_estimated(p)))}; the total is a lower bound"
    if p.verdict == "over-cap":
        assert p.cap is not None
        return f"REFUSED: over its cap by {usd_over(p.total - p.cap)}"
    if p.verdict == "unpriced":
        unestimated = [printable(i.name) for i in p.items if not i.estimated]
        if unestimated and not p.missing_prices:
            return f"REFUSED: cannot check the cap ({', '.join(unestimated)} not estimated: RW122)"
        return "REFUSED: cannot check the cap (unit prices missing)"
    if p.verdict == "no-cap":
        return f"cap invalid ({p.cap_error[0] if p.cap_error else 'RW100'}): not checked" if p.cap_source == "invalid" else "no cap"
    return "ok"


def _heading(p: EnvironmentPlan, style: Style) -> str:
    verdict = _verdict_text(p)
    color = {"ok": "1;32", "over-cap": "1;31", "unpriced": "1;31", "no-cap": "1;33", "invalid": "1;31"}.get(plan_verdict(p), "1")
    # A price missing for the region (RW161) or an item not estimated (RW130) makes the total a
    # lower bound: say so here too.
    total = plan_total(p)
    if p.cap is None:
        money = total
    else:
        share = pct(p)
        money = f"{total} / {usd(p.cap)} cap" + (f" ({share})" if share else "")
    incomplete = f" (incomplete: {len(p.missing_prices)} unit price(s) missing for the region)" if p.missing_prices else ""
    return f"{style(printable(p.name), '1')} — {money} — {style(verdict, color)}{incomplete}"


def _item_label(i: ItemPlan) -> str:
    return printable(i.name) + ("*" if i.implicit else "") + ("!" if i.missing_prices else "")


def _line_item_text(li: Any) -> str:
    # A quantity from the usage file says its line; the catalogue's assumptions already say
    # "assumed" in their description (docs/format.md, "Usage file").
    origin = f"; quantity from {li.quantity_source}" if li.quantity_source.startswith("usage file") else ""
    return (
        f"{printable(li.description)}: {qty(li.quantity)} x {unit_price(li.unit_usd)} per {printable(li.unit)}"
        f" = {usd(li.monthly_usd)} ({li.confidence}{origin})"
    )


def plan_text(plan: Plan, details: bool, style: Style) -> str:
    """Per environment a heading and an aligned table (monthly USD right-aligned)."""
    out: list[str] = []
    for p in plan.environments:
        unknown = not_estimated(p)
        rows = [(_item_label(i), printable(i.kind), i.size or "-", "not estimated" if i.name in unknown else usd(i.monthly_usd), i)
                for i in p.items]
        w_name = max([len("item"), len("total")] + [len(r[0]) for r in rows])
        w_kind = max([len("kind")] + [len(r[1]) for r in rows])
        w_size = max([len("size")] + [len(r[2]) for r in rows])
        total = plan_total(p) if unknown else usd(p.total)
        w_money = max([len("monthly"), len(total)] + [len(r[3]) for r in rows])
        width = w_name + w_kind + w_size + w_money + 6
        out.append(_heading(p, style))
        out.append("  " + style(f"{'item':<{w_name}}  {'kind':<{w_kind}}  {'size':<{w_size}}  {'monthly':>{w_money}}", "2"))
        for name, kind, size, money, item in rows:
            out.append(f"  {name:<{w_name}}  {kind:<{w_kind}}  {size:<{w_size}}  {money:>{w_money}}")
            if details:
                for li in item.line_items:
                    out.append(f"      {_line_item_text(li)}")
                    # Where the unit price comes from, so every figure can be traced to its row.
                    out.append(f"        source: {printable(short_source(li.source, li.price_key))}")
                for key in item.missing_prices:
                    out.append(f"      price {key}: missing for {plan.region}, not estimated")
        out.append("  " + "-" * width)
        out.append(f"  {'total':<{w_name + w_kind + w_size + 4}}  {total:>{w_money}}")
        out.append(f"  {confidence_text(p)}")
        out.append("")
    out.extend(f"{mark} {note}" if mark else note for mark, note in footnotes(plan, plan.environments))
    return "\n".join(out) + "\n"




_CHANGE_MARK = {"added": "+", "removed": "-", "changed": "~", "unchanged": " "}


def diff_text(diff: PlanDiff, base_label: str, head_label: str, style: Style) -> str:
    """Per environment its headline and a row per added, removed or changed item (mark, name,
    kind, size, monthly base -> head, delta, what changed); unchanged items counted."""
    out = [f"cost change of {printable(diff.product or '(no product)')}: {printable(base_label)} → {printable(head_label)} (USD per month)"]
    out += [style(note, "1;31" if "error" in note else "1") for note in product_notes(diff)]
    out.append("")
    for e in diff.environments:
        failing = e.head_verdict in ("over-cap", "unpriced", "invalid") or e.max_increase_exceeded
        color = "1;31" if failing else ("1;33" if e.delta > 0 else "1;32")
        out.append(style(headline(e), color if not e.delta.is_zero() or failing else "1"))
        rows = [(
            _CHANGE_MARK[i.change], printable(i.name), printable(i.kind),
            f"{i.base_size or '-'} → {i.head_size or '-'}" if i.base_size != i.head_size else (i.head_size or "-"),
            f"{usd(i.base_monthly_usd) if i.base_monthly_usd is not None else '-'} → "
            + ("-" if i.head_monthly_usd is None else usd(i.head_monthly_usd) if i.head_priced else "not estimated"),
            item_delta(i), change_details(i),
        ) for i in (() if e.head_unread else e.changed_items)]
        widths = [max([len(r[k]) for r in rows] + [0]) for k in range(6)]
        for r in rows:
            cells = [f"{r[0]}", f"{r[1]:<{widths[1]}}", f"{r[2]:<{widths[2]}}", f"{r[3]:<{widths[3]}}", f"{r[4]:<{widths[4]}}", f"{r[5]:>{widths[5]}}"]
            out.append(("  " + "  ".join(cells) + (f"  {r[6]}" if r[6] else "")).rstrip())
        unchanged = len(e.items) - len(e.changed_items)
        if unchanged:
            out.append(f"  ({unchanged} unchanged)")
        out.append("")
    out.append(NOTE_UNITS)
    return "\n".join(out) + "\n"


__all__ = ["Style", "diagnostic_text", "diff_text", "plan_text", "print_diagnostics"]
