"""GitHub Markdown output: a ``## <env> — $total / $cap`` heading, a verdict and a table per
environment (PR comments, ``$GITHUB_STEP_SUMMARY``), and a table of diagnostics.
Runway-provided text is made inert (:func:`md`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from deploy_engine.cli.formats._shared import cap_bar, change_details, ci_path, footnotes, headline, pct, qty, short_source, signed_usd, summary_line, unit_price
from deploy_engine.terminal import printable
from runway_core import markdown
from runway_core.facts import Analysis
from runway_core.diagnostics import Diagnostic
from runway_core.planner import Plan
from runway_core.money import usd

if TYPE_CHECKING:  # only `diff` imports runway_core.plan_diff
    from runway_core.plan_diff import PlanDiff


def md(text: str) -> str:
    """Runway-provided text for GitHub Markdown (a table cell, the job summary), inert: control
    characters shown as escapes; ``\\``, ``|``, ``[`` and ``]`` backslash-escaped (no table
    break, no ``[text](url)`` link or image); ``&``, ``<`` and ``>`` as HTML entities (GitHub
    renders HTML in Markdown: no tag, comment or ``<url>`` autolink gets through)."""
    text = printable(text).replace("\\", "\\\\").replace("|", "\\|").replace("[", "\\[").replace("]", "\\]")
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plan_markdown(plan: Plan, details: bool) -> str:
    """A ``## <env> — $total / $cap`` heading and a GitHub table per environment."""
    out = [f"Runway plan for **{md(plan.product)}** in {md(plan.region)} (USD per month).", ""]
    for p in plan.environments:
        cap = usd(p.cap) if p.cap is not None else "no cap"
        out.append(f"## {md(p.name)} — {usd(p.total)} / {cap}")
        out.append("")
        if p.verdict == "over-cap":
            assert p.cap is not None
            out.append(f"Verdict: **over cap — refused** ({usd(p.total - p.cap)} over the cap).")
        elif p.verdict == "unpriced" and not p.missing_prices:
            out.append(f"Verdict: **cannot check the cap — refused** "
                       f"({md(', '.join(i.name for i in p.items if not i.estimated))} not estimated: its kind has no price, RW122).")
        elif p.verdict == "unpriced":
            out.append(f"Verdict: **cannot check the cap — refused** (no {md(plan.region)} price for "
                       f"{md(', '.join(p.missing_prices))}; run `runway-deploy catalog refresh --region {md(plan.region)}`).")
        elif p.verdict == "no-cap" and p.cap_source == "invalid":
            out.append("Verdict: **cap invalid** (RW100: `limits.monthly` is not a valid cap; not checked).")
        elif p.verdict == "no-cap":
            out.append("Verdict: **no cap** (estimate only; set `limits.monthly` to cap it).")
        else:
            share = pct(p)
            out.append("Verdict: **ok**" + (f" ({share} of the cap)." if share else "."))
        out.append("")
        rows = [[md(i.name) + (" (implicit)" if i.implicit else "") + (" (missing prices)" if i.missing_prices else ""),
                 md(i.kind), md(i.size or "-"), usd(i.monthly_usd) if i.estimated else "not estimated"] for i in p.items]
        rows.append(["**total**", "", "", f"**{usd(p.total)}**"])
        out.extend(markdown.table(["item", "kind", "size", "monthly"], rows, right={3}))
        out.append("")
        if details:
            rows = [[md(i.name), md(li.description), f"{qty(li.quantity)} x {unit_price(li.unit_usd)} per {md(li.unit)}",
                     usd(li.monthly_usd), li.confidence, md(short_source(li.source, "")) + (f" (`{li.price_key}`)" if li.price_key else "")] for i in p.items for li in i.line_items]
            out.extend(markdown.table(["item", "line item", "quantity x unit price", "monthly", "confidence", "source"], rows, right={3}))
            out.append("")
    out.extend(f"- {note}" for _, note in footnotes(plan, plan.environments, md))
    return "\n".join(out) + "\n"


#: At most this many diagnostics are listed in a Markdown table (the count is always exact).
MAX_DIAGNOSTIC_ROWS = 50


def diagnostics_markdown(entries: Sequence[tuple[Diagnostic, Analysis, str]], files: int, environ: Mapping[str, str]) -> str:
    """The counts in bold and a table of the diagnostics (``file:line``, severity, code,
    message; the first :data:`MAX_DIAGNOSTIC_ROWS`), for a job summary or a PR comment."""
    diags = [d for d, _, _ in entries]
    out = [f"**{summary_line(diags, files)}**"]
    if entries:
        rows = [[md(f"{ci_path(d.file, base, environ)}:{d.range.start.line + 1}"), d.severity.label, d.code, md(d.message)]
                for d, an, base in entries[:MAX_DIAGNOSTIC_ROWS]]
        out += ["", *markdown.table(["where", "severity", "code", "message"], rows)]
        if len(entries) > MAX_DIAGNOSTIC_ROWS:
            out += ["", f"… and {len(entries) - MAX_DIAGNOSTIC_ROWS} more (`runway-deploy check` lists them all)."]
    return "\n".join(out) + "\n"


#: The hidden marker of the PR comment: a CI step finds its own comment by it and updates it.
DIFF_MARKER = "<!-- runway-cost-diff -->"


def diff_markdown(diff: PlanDiff, base_label: str, head_label: str) -> str:
    """The PR comment: the marker, a headline per environment, then per environment with
    changes its cap bar and a table of the changed items (runway text inert, :func:`md`)."""
    out = [DIFF_MARKER, f"### Cost change of **{md(diff.product or '(no product)')}**", ""]
    out += [f"- {headline(e, md, lambda s: f'**{s}**')}" for e in diff.environments]
    if not diff.environments:
        out.append("- no environment on either side")
    for e in diff.environments:
        changed = e.changed_items
        if not changed:
            continue
        out += ["", f"#### {md(e.name)}", ""]
        if e.cap is not None and e.head_percent is not None:
            out += [f"`{cap_bar(e.head_percent)}` {e.head_percent}% of the {usd(e.cap)} cap", ""]
        rows = [[
            md(i.name), md(i.kind), i.change + (f": {change_details(i, md)}" if change_details(i, md) else ""),
            f"{md(i.base_size or '-')} → {md(i.head_size or '-')}" if i.base_size != i.head_size else md(i.head_size or "-"),
            f"{usd(i.base_monthly_usd) if i.base_monthly_usd is not None else '-'} → {usd(i.head_monthly_usd) if i.head_monthly_usd is not None else '-'}",
            signed_usd(i.delta_monthly_usd),
        ] for i in changed]
        out += markdown.table(["item", "kind", "change", "size", "monthly", "delta"], rows, right={5})
        unchanged = len(e.items) - len(changed)
        if unchanged:
            out += ["", f"{unchanged} item(s) unchanged."]
    out += ["", f"<sub>USD per month (730 h a month) from the catalogue; base `{md(base_label)}`, head `{md(head_label)}`.</sub>"]
    return "\n".join(out) + "\n"


__all__ = ["DIFF_MARKER", "diagnostics_markdown", "diff_markdown", "md", "plan_markdown"]
