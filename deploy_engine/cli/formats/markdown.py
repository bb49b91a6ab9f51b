"""GitHub Markdown output: a ``## <env> — $total / $cap`` heading, a verdict and a table per
environment (PR comments, ``$GITHUB_STEP_SUMMARY``), and a table of diagnostics.
Runway-provided text is made inert (:func:`md`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from deploy_engine.cli.formats._shared import HEAD_VERDICTS, cap_bar, change_details, ci_path, confidence_text, env_delta, footnotes, headline, item_delta, not_estimated, pct, plan_total, plan_verdict, product_notes, qty, short_source, signed_usd, summary_line, unit_price
from deploy_engine.terminal import printable
from runway_core import markdown
from runway_core.facts import Analysis
from runway_core.diagnostics import Diagnostic
from runway_core.planner import Plan
from runway_core.money import usd, usd_over

if TYPE_CHECKING:  # only `diff` imports runway_core.plan_diff
    from runway_core.plan_diff import EnvironmentDiff, ItemDiff, PlanDiff


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
        unknown = not_estimated(p)
        out.append(f"## {md(p.name)} — {plan_total(p) if unknown else usd(p.total)} / {cap}")
        out.append("")
        if plan_verdict(p) == "invalid":
            out.append(f"Verdict: **invalid — not estimated** ({md(', '.join(unknown))}: a size the catalogue lacks has no price, "
                       "so the total is a lower bound and the cap is not checked; `runway-deploy check` lists the errors).")
        elif p.verdict == "over-cap":
            assert p.cap is not None
            out.append(f"Verdict: **over cap — refused** ({usd_over(p.total - p.cap)} over the cap).")
        elif p.verdict == "unpriced" and not p.missing_prices:
            out.append(f"Verdict: **cannot check the cap — refused** "
                       f"({md(', '.join(i.name for i in p.items if not i.estimated))} not estimated: its kind has no price, RW122).")
        elif p.verdict == "unpriced":
            out.append(f"Verdict: **cannot check the cap — refused** (no {md(plan.region)} price for "
                       f"{md(', '.join(p.missing_prices))}; run `runway-deploy catalog refresh --region {md(plan.region)}`).")
        elif p.verdict == "no-cap" and p.cap_source == "invalid":
            if p.cap_error is not None and p.cap_error[0] != "RW100":
                # the key that makes the cap unreadable (`limits.currency`: RW102), not `monthly`
                out.append(f"Verdict: **cap invalid** ({p.cap_error[0]}: {md(p.cap_error[1])}; not checked).")
            else:
                out.append("Verdict: **cap invalid** (RW100: `limits.monthly` is not a valid cap; not checked).")
        elif p.verdict == "no-cap":
            out.append("Verdict: **no cap** (estimate only; set `limits.monthly` to cap it).")
        else:
            share = pct(p)
            out.append("Verdict: **ok**" + (f" ({share} of the cap)." if share else "."))
        out.append("")
        rows = [[md(i.name) + (" (implicit)" if i.implicit else "") + (" (missing prices)" if i.missing_prices else ""),
                 md(i.kind), md(i.size or "-"), "**not estimated**" if i.name in unknown else usd(i.monthly_usd)] for i in p.items]
        rows.append(["**total**", "", "", f"**{plan_total(p) if unknown else usd(p.total)}**"])
        out.extend(markdown.table(["item", "kind", "size", "monthly"], rows, right={3}))
        out.append("")
        out.append(f"Price confidence: {md(confidence_text(p)[len('prices: '):])}.")
        out.append("")
        if details:
            rows = [[md(i.name), md(li.description), f"{qty(li.quantity)} x {unit_price(li.unit_usd)} per {md(li.unit)}",
                     usd(li.monthly_usd), li.confidence + (f"; quantity from {li.quantity_source}" if li.quantity_source.startswith("usage file") else ""),
                     md(short_source(li.source, "")) + (f" (`{li.price_key}`)" if li.price_key else "")] for i in p.items for li in i.line_items]
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
#: GitHub refuses a comment body longer than this many characters ("Body is too long (maximum
#: is 65536 characters)", the REST API's issue-comment limit); counted here in UTF-16 code
#: units, which are never fewer than the characters GitHub counts.
MAX_COMMENT_CHARS = 65536


def diff_marker(tag: str | None = None) -> str:
    """The comment's marker; ``--comment-tag NAME`` makes ``<!-- runway-cost-diff:NAME -->`` so
    several jobs keep separate comments (``NAME`` may not close the HTML comment)."""
    return DIFF_MARKER if not tag else f"<!-- runway-cost-diff:{tag} -->"


def _money_cell(i: ItemDiff) -> str:
    head = "-" if i.head_monthly_usd is None else (usd(i.head_monthly_usd) if i.head_priced else "**not estimated**")
    return f"{usd(i.base_monthly_usd) if i.base_monthly_usd is not None else '-'} → {head}"


def diff_body(diff: PlanDiff, max_rows: int | None = None) -> list[str]:
    """A product's cost change without marker or title: its notes (added, removed, head's
    errors, region), a headline per environment, then per environment with changes its cap bar
    and a table of the changed items (runway text inert, :func:`md`); with ``max_rows``, at most
    that many rows per table, then a line counting the rest (:func:`diff_markdown`'s limit)."""
    strong = lambda s: f"**{s}**"  # noqa: E731
    out = [f"- **{note}**" for note in product_notes(diff, md)]
    out += [f"- {headline(e, md, strong)}" for e in diff.environments]
    if not diff.environments:
        out.append("- no environment on either side")
    for e in diff.environments:
        changed = e.changed_items
        if not changed or e.head_unread:
            continue
        out += ["", f"#### {md(e.name)}", ""]
        if e.in_head and e.cap is not None and e.head_percent is not None:
            out += [f"`{cap_bar(e.head_percent)}` {'at least ' if e.not_estimated else ''}{e.head_percent}% of the {usd(e.cap)} cap", ""]
        rows = [[
            md(i.name), md(i.kind), i.change + (f": {change_details(i, md)}" if change_details(i, md) else ""),
            f"{md(i.base_size or '-')} → {md(i.head_size or '-')}" if i.base_size != i.head_size else md(i.head_size or "-"),
            _money_cell(i), item_delta(i),
        ] for i in (changed if max_rows is None else changed[:max_rows])]
        if rows:
            out += markdown.table(["item", "kind", "change", "size", "monthly", "delta"], rows, right={5})
        if len(rows) < len(changed):
            out += ["", f"… and {len(changed) - len(rows)} more changed item(s) (comment size limit; "
                    "`runway-deploy diff --format json` lists them)."]
        unchanged = len(e.items) - len(changed)
        if unchanged:
            out += ["", f"{unchanged} item(s) unchanged."]
    return out


def _footer(base_label: str, head_label: str) -> str:
    return f"<sub>USD per month (730 h a month) from the catalogue; base `{md(base_label)}`, head `{md(head_label)}`.</sub>"


def diff_markdown(diff: PlanDiff, base_label: str, head_label: str, tag: str | None = None,
                  limit: int = MAX_COMMENT_CHARS) -> str:
    """The PR comment of one product: the marker, the title, :func:`diff_body`, the footer.

    Kept within ``limit`` UTF-16 code units (GitHub's comment limit, as
    :func:`products_markdown`): when over, each environment's table keeps its first rows and
    counts the rest (round 5 A07: 150 resources resized made 99,134 characters, a comment
    GitHub refuses); the headlines, which carry every verdict, are always kept."""
    def render(max_rows: int | None) -> str:
        out = [diff_marker(tag), f"### Cost change of **{md(diff.product or '(no product)')}**", "", *diff_body(diff, max_rows)]
        out += ["", _footer(base_label, head_label)]
        return "\n".join(out) + "\n"

    text = render(None)
    if utf16_len(text) <= limit:
        return text
    low, high = 0, max((len(e.changed_items) for e in diff.environments), default=0)
    while low < high:  # the most rows per table that fit
        mid = (low + high + 1) // 2
        if utf16_len(render(mid)) <= limit:
            low = mid
        else:
            high = mid - 1
    return render(low)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (what a JavaScript ``string.length`` counts)."""
    return len(text.encode("utf-16-le")) // 2


def _failing(e: EnvironmentDiff) -> bool:
    return e.head_verdict in ("over-cap", "unpriced", "invalid") or e.max_increase_exceeded


def products_markdown(products: Sequence[tuple[str, PlanDiff]], base_label: str, head_label: str,
                      tag: str | None = None, limit: int = MAX_COMMENT_CHARS) -> str:
    """One PR comment for several products (``(path, diff)`` pairs): the marker; a title with
    the counts of changed, added and removed products; every failing environment (over its cap,
    unpriced, invalid head, over ``--max-increase``) in a list, so no refusal hides in a folded
    block; a summary table (a row per product, a column per environment: the delta and head's
    verdict); then each product that is not ``unchanged`` in a ``<details>`` block
    (:func:`diff_body`).

    Kept within ``limit`` UTF-16 code units (GitHub's comment limit): the largest details are
    left out first, then the table's unchanged rows, then (only for thousands of failures) the
    failing list's tail; a closing note names what was left out and the command that prints it
    all."""
    counts = {c: sum(1 for _, d in products if d.change == c) for c in ("changed", "added", "removed", "unchanged")}
    title = f"### Cost change of {len(products)} product{'s' if len(products) != 1 else ''} (" + ", ".join(
        f"{n} {c}" for c, n in counts.items() if n) + ")"
    failing: list[str] = []
    for path, d in products:
        if not d.head_read:
            failing.append(f"- **{md(d.product or path)}** (`{md(path)}`): head could not be read ({d.head_errors} error(s); "
                           "`runway-deploy check` lists them): nothing is compared, no environment is ok")
        elif d.head_errors:
            # One line for an invalid head, not one per environment: every one of them is invalid.
            failing.append(f"- **{md(d.product or path)}** (`{md(path)}`): head has {d.head_errors} error(s) (`runway-deploy check` "
                           "lists them); its totals are lower bounds, no environment is ok")
        failing += [f"- **{md(d.product or path)}** {headline(e, md, lambda s: f'**{s}**')}"
                    for e in d.environments if _failing(e) and (e.head_verdict != "invalid" or e.max_increase_exceeded)]
    notes = [f"- **{md(d.product or path)}**: {note}" for path, d in products for note in product_notes(d, md, changes=False, errors=False)]
    # A cap change explains a verdict as much as a price does: said above the fold too.
    notes += [f"- **{md(d.product or path)}** {md(e.name)}: cap {usd(e.base_cap) if e.base_cap is not None else 'none'} → "
              f"{usd(e.cap) if e.cap is not None else 'none'}" for path, d in products for e in d.environments if e.cap_changed]
    def top(failing: list[str]) -> list[str]:
        out = [diff_marker(tag), title, ""]
        if failing:
            out += ["**The job fails:**", "", *failing, ""]
        if notes:
            # Under their own heading: a list right after the failing one would join it (one
            # Markdown list), and a region or cap change fails nothing by itself.
            out += ["**Region and cap changes:**", "", *notes, ""]
        return out

    head = top(failing)
    # The summary table: a row per product, a column per environment (in the order they first
    # appear), each cell the delta and head's verdict.
    env_names: list[str] = []
    for _, d in products:
        env_names += [e.name for e in d.environments if e.name not in env_names]
    rows: list[tuple[bool, list[str]]] = []
    for path, d in products:
        cells = []
        for name in env_names:
            e = d.environment(name)
            cells.append("-" if e is None else f"{env_delta(e)} {_cell_verdict(e)}")
        rows.append((d.change == "unchanged", [f"{md(d.product or '(no product)')} (`{md(path)}`)", d.change, *cells]))
    details = [(path, d, "\n".join(diff_body(d))) for path, d in products if d.change != "unchanged"]
    header = ["product", "change", *(md(n) for n in env_names)]

    def render(kept_rows: list[list[str]], folded: list[str], dropped_rows: int, cut_rows: int = 0) -> str:
        out = list(head)
        out += markdown.table(header, kept_rows, right=set(range(2, len(header))))
        if dropped_rows:
            out += ["", f"… and {dropped_rows} unchanged product(s) (comment size limit)."]
        if cut_rows:
            out += ["", f"… and {cut_rows} more changed product(s) (comment size limit; `runway-deploy diff --format json` lists them)."]
        for path, d, body in details:
            if path in folded:
                continue
            out += ["", "<details>", f"<summary><b>{md(d.product or '(no product)')}</b> <code>{md(path)}</code> — {d.change}</summary>",
                    "", body, "", "</details>"]
        if folded or dropped_rows or cut_rows:
            shown = ", ".join(f"`{md(p)}`" for p in folded[:20]) + (", …" if len(folded) > 20 else "")
            out += ["", f"<sub>Left out to stay under GitHub's {limit:,}-character comment limit: "
                    + "; ".join(part for part in (f"the details of {len(folded)} product(s) ({shown})" if folded else "",
                                                  f"{dropped_rows} unchanged table row(s)" if dropped_rows else "",
                                                  f"{cut_rows} changed table row(s)" if cut_rows else "") if part)
                    + "; `runway-deploy diff --format json` (or `--format text`) has everything.</sub>"]
        out += ["", _footer(base_label, head_label)]
        return "\n".join(out) + "\n"

    all_rows = [r for _, r in rows]
    folded: list[str] = []
    text = render(all_rows, folded, 0)
    # Largest details first: each fold saves the most.
    for path, _, _ in sorted(details, key=lambda t: -utf16_len(t[2])):
        if utf16_len(text) <= limit:
            break
        folded.append(path)
        text = render(all_rows, folded, 0)
    kept = all_rows
    if utf16_len(text) > limit:
        kept = [r for unchanged, r in rows if not unchanged]
        text = render(kept, folded, len(all_rows) - len(kept))
    total = len(failing)  # counted once, before any is cut
    while utf16_len(text) > limit and len(failing) > 1:
        # Still over: the failing list's tail (the table still marks each failure in bold).
        cut = max(1, len(failing) // 10)
        failing = failing[:-cut - 1] if failing[-1].startswith("- … and") else failing[:-cut]
        failing.append(f"- … and {total - len(failing)} more (the table marks each)")
        head[:] = top(failing)
        text = render(kept, folded, len(all_rows) - len(kept))
    dropped = len(all_rows) - len(kept)
    shown_rows = kept
    while utf16_len(text) > limit and len(shown_rows) > 1:
        # Thousands of failing products: the table's tail too, never a comment GitHub refuses.
        shown_rows = shown_rows[:-max(1, len(shown_rows) // 10)]
        if failing and failing[-1].startswith("- … and"):
            # The table no longer marks each: say where they all are.
            failing[-1] = failing[-1].replace("(the table marks each)", "(`runway-deploy diff --format json` lists each)")
            head[:] = top(failing)
        text = render(shown_rows, folded, dropped, len(kept) - len(shown_rows))
    return text


def _cell_verdict(e: EnvironmentDiff) -> str:
    """Head's verdict in a summary-table cell (failures in bold)."""
    verdict = {"over-cap": "**over cap**", "unpriced": "**unpriced**", "invalid": "**invalid**", "no-cap": "no cap",
               None: "removed"}.get(e.head_verdict, e.head_verdict or "")
    if e.max_increase_exceeded:
        # It fails the job: never "ok" beside that.
        return ("" if verdict in ("ok", "no cap") else verdict + " ") + "**over --max-increase**"
    return verdict


__all__ = ["DIFF_MARKER", "MAX_COMMENT_CHARS", "diagnostics_markdown", "diff_body", "diff_marker", "diff_markdown", "products_markdown", "md", "plan_markdown"]
