"""GitHub Markdown output: a ``## <env> — $total / $cap`` heading, a verdict and a table per
environment (PR comments, ``$GITHUB_STEP_SUMMARY``). Runway-provided text is made inert
(:func:`md`)."""

from __future__ import annotations

from typing import Any

from deploy_engine.cli.formats._shared import footnotes, pct, qty, unit_price
from deploy_engine.exits import PROG
from deploy_engine.terminal import printable
from runway_core import markdown
from runway_core.planner import Plan
from runway_core.money import usd
from runway_core.text import redact


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
        elif p.verdict == "no-cap":
            out.append("Verdict: **no cap** (estimate only; set `limits.monthly` to cap it).")
        else:
            share = pct(p)
            out.append("Verdict: **ok**" + (f" ({share} of the cap)." if share else "."))
        out.append("")
        rows = [[md(i.name) + (" (implicit)" if i.implicit else "") + (" (missing prices)" if i.missing_prices else ""),
                 md(i.kind), md(i.size or "-"), usd(i.monthly_usd)] for i in p.items]
        rows.append(["**total**", "", "", f"**{usd(p.total)}**"])
        out.extend(markdown.table(["item", "kind", "size", "monthly"], rows, right={3}))
        out.append("")
        if details:
            rows = [[md(i.name), md(li.description), f"{qty(li.quantity)} x {unit_price(li.unit_usd)} per {md(li.unit)}",
                     usd(li.monthly_usd), li.confidence] for i in p.items for li in i.line_items]
            out.extend(markdown.table(["item", "line item", "quantity x unit price", "monthly", "confidence"], rows, right={3}))
            out.append("")
    out.extend(f"- {note}" for _, note in footnotes(plan, plan.environments, md))
    return "\n".join(out) + "\n"


def append_step_summary(plan: Plan, details: bool, ctx: Any) -> None:
    """Append the Markdown plan to ``$GITHUB_STEP_SUMMARY`` when GitHub Actions set it
    (``ctx``: a :class:`deploy_engine.context.Context`); a write failure is a warning on stderr."""
    path = ctx.environ.get("GITHUB_STEP_SUMMARY")
    if not path or not plan.environments:
        return
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(redact(plan_markdown(plan, details)) + "\n")
    except OSError as exc:
        print(f"{PROG}: warning: cannot append to GITHUB_STEP_SUMMARY ({path}): {exc.strerror or exc}", file=ctx.stderr)


__all__ = ["append_step_summary", "md", "plan_markdown"]
