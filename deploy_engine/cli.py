"""``runway-deploy``: the command line of the deploy side (docs/cli.md, docs/deploy.md).

Thin adapters over :func:`runway_core.analysis.analyze` and the one planner (STYLE.md §1):

- ``check [PATH]`` prints the diagnostics of a root runway and its members;
- ``plan [PATH]`` prints each environment's plan: items, monthly estimate (USD per month,
  730 h a month) against the cap, verdict ``ok`` / ``over-cap`` (refused) / ``no-cap``;
  both also speak GitHub workflow commands (``--format github``) and SARIF 2.1.0
  (``--format sarif``), and ``plan`` appends its Markdown tables to ``$GITHUB_STEP_SUMMARY``;
- ``preview|up|drift --env ENV [PATH]`` run Pulumi through the Automation API
  (:mod:`deploy_engine.automation`), after the guards, in this order: invalid runway (1), over
  the cap (2: nothing is declared and pulumi is not even imported), ``up`` outside the
  protected deploy job (4), no Pulumi CLI (5), configuration missing (3), lease held (6).
  A Pulumi or Infisical failure is 7. A database password is generated and set only by the
  ``up`` that creates the database, or that rotates it (``--rotate-credentials``, the proxy
  added or removed); only those values are written to Infisical, after logging in before
  ``pulumi up``; no run reads a stored one (docs/deploy.md, "Credentials"). SIGTERM ends a
  run like Ctrl-C (exit 143). With ``--format json`` a failed ``preview``/``drift`` prints
  ``{"error": {"exit_code", "message"}}``. Every ``up`` writes a receipt
  (:mod:`deploy_engine.receipts`); every line it prints goes through the run's
  :class:`~deploy_engine.secrets.Redactor`.

Exit codes are part of the interface (docs/cli.md, "Exit codes"): 0 ok, 1 invalid runway,
2 plan refused (an environment over its cap), 3 no runway found, input unreadable or deploy
configuration missing, 4 ``up`` refused outside the protected deploy job, 5 Pulumi CLI
missing, 6 lease held by another deploy, 7 deploy failed, 8 the plan is not the one reviewed (`--plan-digest`), 64 usage error, 70 internal error,
130 interrupted, 143 terminated (SIGTERM). They never collide with 2: argparse's own usage exit status 2 is replaced by
64 (sysexits.h ``EX_USAGE``).

JSON output is a stable, versioned interface (``format_version`` 1): ranges are 0-based with
characters in UTF-16 code units (as LSP), files relative to the root runway's folder with
``/`` separators. Text output is for humans: 1-based line and column (code points).

Nothing here prints a secret value: runway files hold secret *names* only, and errors never
echo file contents beyond the diagnostic messages. Must not import pulumi (``preview``, ``up``
and ``drift`` import it lazily, after their guards), infisical_sdk, pygls or lsprotocol.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import sys
import threading
import traceback
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, Callable, Mapping, NoReturn, Sequence

from runway_core import markdown
from runway_core.analysis import ROOT_NAMES, Analysis, analyze, find_root
from runway_core.catalog import Catalog, CatalogError, load_catalog
from runway_core.diagnostics import Diagnostic, Severity
from runway_core.planner import FORMAT_VERSION, EnvironmentPlan, ItemPlan, Plan, cap_percent, plan_digest, plan_json
from runway_core.positions import Range
from runway_core.rules import CODES, redact, usd

PROG = "runway-deploy"

EXIT_OK = 0
#: The runway is invalid: an error diagnostic (``check``: any error; ``plan``: any error other
#: than RW170 over-cap). Takes precedence over :data:`EXIT_REFUSED`.
EXIT_INVALID = 1
#: ``plan`` only: a selected environment is over its cap, its plan is refused (ADR 0493 §3).
EXIT_REFUSED = 2
#: No runway at PATH, PATH unreadable, or the ``--catalog`` folder missing or invalid; for
#: ``preview``/``up``/``drift`` also deploy configuration missing (network settings, Infisical,
#: Pulumi passphrase or backend): the message names the variables to set.
EXIT_NO_INPUT = 3
EXIT_CONFIG = EXIT_NO_INPUT
#: ``up`` outside the protected deploy job (``RUNWAY_DEPLOY_JOB`` is not ``protected``; ADR 0493 §6).
EXIT_NOT_PROTECTED = 4
#: The Pulumi CLI is not on PATH (the Automation API drives it).
EXIT_PULUMI_MISSING = 5
#: Another deploy holds the environment's lease.
EXIT_LEASE_HELD = 6
#: Pulumi failed (preview, up or refresh), or writing the generated secrets to Infisical failed.
EXIT_DEPLOY_FAILED = 7
#: ``preview``/``up``/``drift --plan-digest SHA``: the plan computed now is not the plan that was
#: reviewed (its digest differs): refused before anything else runs (docs/deploy.md).
EXIT_PLAN_MISMATCH = 8
#: Command-line usage error (sysexits.h EX_USAGE), instead of argparse's 2.
EXIT_USAGE = 64
#: A bug in runway-deploy (sysexits.h EX_SOFTWARE); traceback only with RUNWAY_DEBUG=1.
EXIT_INTERNAL = 70
#: Interrupted (Ctrl-C): 128 + SIGINT, as shells report it.
EXIT_INTERRUPTED = 130
#: Terminated (SIGTERM, what CI sends on cancel or timeout): 128 + SIGTERM, handled like Ctrl-C.
EXIT_TERMINATED = 143

OVER_CAP_CODE = "RW170"

# Footnotes printed once per text or markdown plan (CATALOG.md).
NOTE_UNITS = "Estimates are USD per month (730 h a month), unit prices x quantities from the catalogue."
NOTE_FREE_TIERS = "Free tiers are ignored: estimates are conservative."
NOTE_NETWORK = "Network (VPC, NAT gateways, endpoints, data transfer) is outside the runway and not estimated."
NOTE_IMPLICIT = "implicit: a shared pool (`shared-<kind>`, from members' `requires` and `environments.<env>.shared`) or a per-environment item (ALB, service discovery)."


class UsageError(Exception):
    """A command-line usage mistake: exit :data:`EXIT_USAGE`."""


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM during ``preview``/``up``/``drift`` (:class:`_SigtermRaises`):
    like Ctrl-C, the run ends cleanly (receipt, lease released) with :data:`EXIT_TERMINATED`."""


class _SigtermRaises:
    """``with _SigtermRaises():`` SIGTERM raises :class:`Terminated` (once; a second SIGTERM during
    the cleanup is ignored, so the receipt and the lease release complete). Only in the main
    thread, where Python runs signal handlers; the previous handler is restored on exit."""

    def __init__(self) -> None:
        self.previous: Any = None
        self.installed = False
        self.fired = False

    def _handler(self, signum: int, frame: Any) -> None:
        if self.fired:
            return
        self.fired = True
        raise Terminated()

    def __enter__(self) -> "_SigtermRaises":
        if threading.current_thread() is threading.main_thread():
            try:
                self.previous = signal.signal(signal.SIGTERM, self._handler)
                self.installed = True
            except (ValueError, OSError):
                self.installed = False
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.installed:
            signal.signal(signal.SIGTERM, self.previous)


class InputError(Exception):
    """No runway found, or PATH / the catalogue unreadable: exit :data:`EXIT_NO_INPUT`."""


class _ArgumentParser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors, which means "plan refused" here."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.format_usage().rstrip()}\n{self.prog}: error: {message}")


# --------------------------------------------------------------------------------------
# Finding the runway
# --------------------------------------------------------------------------------------


def _runway_file(path: str) -> str | None:
    p = Path(path)
    if p.is_dir():
        f = next((p / n for n in ROOT_NAMES if (p / n).is_file()), None)
        return str(f.resolve()) if f is not None else None
    return str(p.resolve()) if p.is_file() else None


def resolve_root(path: str) -> str:
    """The root runway file for PATH (a folder holding runway.yaml/.yml, or a runway file).

    A runway without ``product:`` (a member) resolves to the nearest root above it
    (:func:`runway_core.analysis.find_root`); with none above, it is analysed alone (a lone
    member gets RW154). Raises :class:`InputError` when nothing is found or PATH is not a
    readable file or folder; the message names the path, never the file's contents.
    """
    p = Path(path)
    if not path:
        raise InputError("no runway found: the path is empty")
    if p.is_dir():
        candidate = next((p / n for n in ROOT_NAMES if (p / n).is_file()), None)
        if candidate is None:
            raise InputError(f"no runway found: {path} holds no {' or '.join(ROOT_NAMES)}")
    elif p.is_file():
        candidate = p
    elif p.exists():
        raise InputError(f"{path}: not a runway file or a folder")
    else:
        raise InputError(f"{path}: no such file or folder")
    try:
        with open(candidate, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise InputError(f"{candidate}: cannot read: {exc.strerror or exc}") from None
    return find_root(str(candidate.resolve())) or str(candidate)


# --------------------------------------------------------------------------------------
# Rendering helpers
# --------------------------------------------------------------------------------------


def _printable(text: str) -> str:
    """Replace control characters so a hostile runway cannot drive the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _md(text: str) -> str:
    """Runway-provided text for GitHub Markdown (a table cell, the job summary), inert: control
    characters shown as escapes; ``\\``, ``|``, ``[`` and ``]`` backslash-escaped (no table
    break, no ``[text](url)`` link or image); ``&``, ``<`` and ``>`` as HTML entities (GitHub
    renders HTML in Markdown: no tag, comment or ``<url>`` autolink gets through)."""
    text = _printable(text).replace("\\", "\\\\").replace("|", "\\|").replace("[", "\\[").replace("]", "\\]")
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _Style:
    """ANSI colour, on only for a TTY with NO_COLOR unset or empty (no-color.org)."""

    def __init__(self, stream: IO[str], environ: Mapping[str, str]) -> None:
        isatty = getattr(stream, "isatty", None)
        self.on = bool(isatty and isatty()) and not environ.get("NO_COLOR")

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.on else text


_SEVERITY_COLOR = {Severity.ERROR: "1;31", Severity.WARNING: "1;33", Severity.INFORMATION: "1;34", Severity.HINT: "2"}


def _rel(path: str, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:  # another drive on Windows
        rel = path
    return Path(rel).as_posix()


def diagnostic_json(d: Diagnostic, an: Analysis, base: str) -> dict[str, Any]:
    """One diagnostic as JSON: 0-based range, characters in UTF-16 code units (docs/cli.md)."""
    src = an.files.get(d.file)
    rng = src.parsed.lines.encode_range(d.range, "utf-16") if src is not None else d.range
    return {
        "file": _rel(d.file, base),
        "range": {
            "start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character},
        },
        "severity": d.severity.label,
        "code": d.code,
        "message": d.message,
    }


def diagnostic_text(d: Diagnostic, base: str, style: _Style) -> str:
    """``file:line:col: severity CODE: message`` with 1-based line and column (code points)."""
    where = f"{_printable(_rel(d.file, base))}:{d.range.start.line + 1}:{d.range.start.character + 1}"
    return f"{where}: {style(d.severity.label, _SEVERITY_COLOR[d.severity])} {d.code}: {_printable(d.message)}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _counts(diags: Sequence[Diagnostic]) -> dict[Severity, int]:
    out = {s: 0 for s in Severity}
    for d in diags:
        out[d.severity] += 1
    return out


def _file_count(an: Analysis) -> int:
    return len(set(an.files) | set(an.diagnostics))


def summary_text(an: Analysis, diags: Sequence[Diagnostic]) -> str:
    """``N errors, M warnings, K hints in F files`` (information counted only when present)."""
    c = _counts(diags)
    parts = [_plural(c[Severity.ERROR], "error"), _plural(c[Severity.WARNING], "warning")]
    if c[Severity.INFORMATION]:
        parts.append(f"{c[Severity.INFORMATION]} information")
    parts.append(_plural(c[Severity.HINT], "hint"))
    return f"{', '.join(parts)} in {_plural(_file_count(an), 'file')}"


def _qty(x: Decimal) -> str:
    """``Decimal('182.50')`` -> ``182.5``; never exponent notation."""
    return f"{x.normalize():f}"


def _unit_price(x: Decimal) -> str:
    return f"${x.normalize():f}" if x.normalize().as_tuple().exponent < -2 else f"${x:.2f}"


def _pct(p: EnvironmentPlan) -> str | None:
    pct = cap_percent(p.total, p.cap)
    return None if pct is None else f"{pct}%"


def _verdict_text(p: EnvironmentPlan) -> str:
    if p.verdict == "over-cap":
        assert p.cap is not None
        return f"REFUSED: over its cap by {usd(p.total - p.cap)}"
    return "no cap" if p.verdict == "no-cap" else "ok"


def _heading(p: EnvironmentPlan, style: _Style) -> str:
    verdict = _verdict_text(p)
    color = {"ok": "1;32", "over-cap": "1;31", "no-cap": "1;33"}.get(p.verdict, "1")
    # A price missing for the region makes the total a lower bound (RW161): say so here too.
    total = ("at least " if p.missing_prices else "") + usd(p.total)
    if p.cap is None:
        money = total
    else:
        pct = _pct(p)
        money = f"{total} / {usd(p.cap)} cap" + (f" ({pct})" if pct else "")
    incomplete = f" (incomplete: {len(p.missing_prices)} unit price(s) missing for the region)" if p.missing_prices else ""
    return f"{style(_printable(p.name), '1')} — {money} — {style(verdict, color)}{incomplete}"


def _item_label(i: ItemPlan) -> str:
    return _printable(i.name) + ("*" if i.implicit else "") + ("!" if i.missing_prices else "")


def _line_item_text(li: Any) -> str:
    return (
        f"{_printable(li.description)}: {_qty(li.quantity)} x {_unit_price(li.unit_usd)} per {_printable(li.unit)}"
        f" = {usd(li.monthly_usd)} ({li.confidence})"
    )


def _footnotes(plan: Plan, plans: Sequence[EnvironmentPlan], esc: Callable[[str], str] = _printable) -> list[tuple[str, str]]:
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


def plan_text(plan: Plan, details: bool, style: _Style) -> str:
    """Per environment a heading and an aligned table (monthly USD right-aligned)."""
    out: list[str] = []
    for p in plan.environments:
        rows = [(_item_label(i), _printable(i.kind), i.size or "-", usd(i.monthly_usd), i) for i in p.items]
        w_name = max([len("item"), len("total")] + [len(r[0]) for r in rows])
        w_kind = max([len("kind")] + [len(r[1]) for r in rows])
        w_size = max([len("size")] + [len(r[2]) for r in rows])
        w_money = max([len("monthly"), len(usd(p.total))] + [len(r[3]) for r in rows])
        width = w_name + w_kind + w_size + w_money + 6
        out.append(_heading(p, style))
        out.append("  " + style(f"{'item':<{w_name}}  {'kind':<{w_kind}}  {'size':<{w_size}}  {'monthly':>{w_money}}", "2"))
        for name, kind, size, money, item in rows:
            out.append(f"  {name:<{w_name}}  {kind:<{w_kind}}  {size:<{w_size}}  {money:>{w_money}}")
            if details:
                for li in item.line_items:
                    out.append(f"      {_line_item_text(li)}")
                for key in item.missing_prices:
                    out.append(f"      price {key}: missing for {plan.region}, not estimated")
        out.append("  " + "-" * width)
        out.append(f"  {'total':<{w_name + w_kind + w_size + 4}}  {usd(p.total):>{w_money}}")
        out.append("")
    out.extend(f"{mark} {note}" if mark else note for mark, note in _footnotes(plan, plan.environments))
    return "\n".join(out) + "\n"


def plan_markdown(plan: Plan, details: bool) -> str:
    """A ``## <env> — $total / $cap`` heading and a GitHub table per environment."""
    out = [f"Runway plan for **{_md(plan.product)}** in {_md(plan.region)} (USD per month).", ""]
    for p in plan.environments:
        cap = usd(p.cap) if p.cap is not None else "no cap"
        out.append(f"## {_md(p.name)} — {usd(p.total)} / {cap}")
        out.append("")
        if p.verdict == "over-cap":
            assert p.cap is not None
            out.append(f"Verdict: **over cap — refused** ({usd(p.total - p.cap)} over the cap).")
        elif p.verdict == "no-cap":
            out.append("Verdict: **no cap** (estimate only; set `limits.monthly` to cap it).")
        else:
            pct = _pct(p)
            out.append("Verdict: **ok**" + (f" ({pct} of the cap)." if pct else "."))
        out.append("")
        rows = [[_md(i.name) + (" (implicit)" if i.implicit else "") + (" (missing prices)" if i.missing_prices else ""),
                 _md(i.kind), _md(i.size or "-"), usd(i.monthly_usd)] for i in p.items]
        rows.append(["**total**", "", "", f"**{usd(p.total)}**"])
        out.extend(markdown.table(["item", "kind", "size", "monthly"], rows, right={3}))
        out.append("")
        if details:
            rows = [[_md(i.name), _md(li.description), f"{_qty(li.quantity)} x {_unit_price(li.unit_usd)} per {_md(li.unit)}",
                     usd(li.monthly_usd), li.confidence] for i in p.items for li in i.line_items]
            out.extend(markdown.table(["item", "line item", "quantity x unit price", "monthly", "confidence"], rows, right={3}))
            out.append("")
    out.extend(f"- {note}" for _, note in _footnotes(plan, plan.environments, _md))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# CI formats: GitHub workflow commands and SARIF 2.1.0
# --------------------------------------------------------------------------------------

#: The OASIS schema of SARIF 2.1.0 (errata 01), as GitHub code scanning expects it.
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: Where each diagnostic code is documented, relative to the docs folder.
DIAGNOSTICS_DOC = "diagnostics.md"
#: Base URL of the docs folder (e.g. ``https://github.com/<org>/runway-tooling/blob/main/docs``):
#: when set to an absolute http(s) URL, SARIF rules get ``helpUri`` ``<base>/diagnostics.md#<anchor>``.
DOCS_URL_VARIABLE = "RUNWAY_DOCS_URL"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}
_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFORMATION: "notice", Severity.HINT: "notice"}


def _ci_path(path: str, base: str, environ: Mapping[str, str]) -> str:
    """The file as CI tools want it: relative to ``$GITHUB_WORKSPACE`` (the repository) when the
    file is inside it, else relative to the root runway's folder; ``/`` separators."""
    workspace = environ.get("GITHUB_WORKSPACE")
    if workspace:
        try:
            return Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(workspace))).as_posix()
        except ValueError:
            pass
    return _rel(path, base)


def _one_based_range(d: Diagnostic, an: Analysis) -> tuple[int, int, int, int]:
    """(startLine, startColumn, endLine, endColumn), 1-based, columns in UTF-16 code units.

    The end column is exclusive, as SARIF's ``endColumn`` (the column after the last character).
    """
    src = an.files.get(d.file)
    rng: Range = src.parsed.lines.encode_range(d.range, "utf-16") if src is not None else d.range
    return rng.start.line + 1, rng.start.character + 1, rng.end.line + 1, rng.end.character + 1


def github_escape_data(text: str) -> str:
    """Escape a workflow command's message: ``%`` -> ``%25``, CR -> ``%0D``, LF -> ``%0A``.

    (GitHub Actions toolkit, ``@actions/core`` ``command.ts`` ``escapeData``.) Other control
    characters are shown as escapes so a runway cannot drive the log.
    """
    text = "".join(c if c.isprintable() or c in "\r\n" else c.encode("unicode_escape").decode("ascii") for c in text)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_escape_property(text: str) -> str:
    """Escape a workflow command property: as the message, plus ``:`` -> ``%3A`` and ``,`` -> ``%2C`` (``escapeProperty``)."""
    return github_escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_stop_commands() -> tuple[str, str]:
    """(``::stop-commands::<token>``, ``::<token>::``): GitHub's documented way to print text the
    runner must not read as workflow commands. Everything ``--format github`` prints that is not
    an intended annotation goes between the two; the token is random per run, so no runway text
    can guess it and resume command processing early."""
    token = secrets.token_hex(16)
    return f"::stop-commands::{token}", f"::{token}::"


def _print_inert(text: str, stream: IO[str]) -> None:
    """``text`` between :func:`github_stop_commands` lines (ends with a newline)."""
    stop, resume = github_stop_commands()
    stream.write(f"{stop}\n{text if text.endswith(chr(10)) else text + chr(10)}{resume}\n")


def diagnostic_github(d: Diagnostic, an: Analysis, base: str, environ: Mapping[str, str]) -> str:
    """``::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=RW140::message`` (1-based, UTF-16 columns)."""
    line, col, end_line, end_col = _one_based_range(d, an)
    props = (
        ("file", _ci_path(d.file, base, environ)),
        ("line", str(line)),
        ("col", str(col)),
        ("endLine", str(end_line)),
        ("endColumn", str(end_col)),
        ("title", d.code),
    )
    joined = ",".join(f"{k}={github_escape_property(v)}" for k, v in props)
    return f"::{_GITHUB_COMMAND[d.severity]} {joined}::{github_escape_data(d.message)}"


def _tool_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("runway-tooling")
    except metadata.PackageNotFoundError:
        return None


def _doc_anchor(code: str, title: str) -> str:
    """GitHub's anchor of the heading ``### <code> — <title>`` of docs/diagnostics.md (lower
    case, punctuation dropped, each space a hyphen)."""
    return re.sub(r"[^\w\- ]", "", f"{code} — {title}".lower()).replace(" ", "-")


def docs_base_url(environ: Mapping[str, str]) -> str | None:
    """``RUNWAY_DOCS_URL`` without a trailing ``/`` when it is an absolute http(s) URL, else None."""
    value = (environ.get(DOCS_URL_VARIABLE) or "").strip()
    return value.rstrip("/") if re.match(r"^https?://[^\s/?#]+(/[^\s?#]*)?$", value) else None


def sarif_rule(code: str, severity: str, title: str, docs: str | None) -> dict[str, Any]:
    """One SARIF ``reportingDescriptor``: title, full description and help from the diagnostics
    table (:data:`deploy_engine.rule_help.RULE_HELP`); ``helpUri`` only with an absolute docs URL."""
    from deploy_engine.rule_help import RULE_HELP

    triggered, fix = RULE_HELP.get(code, ("", ""))
    full = f"{title}: {triggered}." if triggered else f"{title}."
    help_text = f"{title}.\nTriggered by: {triggered}.\nFix: {fix}." if triggered else f"{title}."
    rule: dict[str, Any] = {
        "id": code,
        "shortDescription": {"text": title},
        "fullDescription": {"text": full},
        "help": {"text": help_text, "markdown": f"**{title}**\n\nTriggered by: {triggered}.\n\nFix: {fix}." if triggered else f"**{title}**"},
        "defaultConfiguration": {"level": _SARIF_LEVEL[severity]},
    }
    if docs is not None:
        rule["helpUri"] = f"{docs}/{DIAGNOSTICS_DOC}#{_doc_anchor(code, title)}"
    return rule


def sarif_document(an: Analysis, diags: Sequence[Diagnostic], base: str, environ: Mapping[str, str]) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run: every diagnostic code as a rule, every diagnostic as a result.

    Regions are 1-based with columns in UTF-16 code units (``run.columnKind``), as GitHub code
    scanning reads them; artifact URIs are relative, ``/`` separators (:func:`_ci_path`). Rules
    carry their help text; ``helpUri`` (an absolute URI, as SARIF requires) only when
    ``RUNWAY_DOCS_URL`` is set (:func:`docs_base_url`).
    """
    rule_ids = list(CODES)
    index = {code: i for i, code in enumerate(rule_ids)}
    docs = docs_base_url(environ)
    rules = [sarif_rule(code, severity, title, docs) for code, (severity, title) in CODES.items()]
    results = []
    for d in diags:
        line, col, end_line, end_col = _one_based_range(d, an)
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _SARIF_LEVEL[d.severity.label],
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _ci_path(d.file, base, environ)},
                        "region": {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col},
                    }
                }
            ],
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        results.append(result)
    driver: dict[str, Any] = {"name": PROG, "rules": rules}
    version = _tool_version()
    if version:
        driver["version"] = version
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "columnKind": "utf16CodeUnits", "results": results}],
    }


def _append_step_summary(plan: Plan, details: bool, ctx: "_Context") -> None:
    """Append the Markdown plan to ``$GITHUB_STEP_SUMMARY`` when GitHub Actions set it."""
    path = ctx.environ.get("GITHUB_STEP_SUMMARY")
    if not path or not plan.environments:
        return
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(redact(plan_markdown(plan, details)) + "\n")
    except OSError as exc:
        print(f"{PROG}: warning: cannot append to GITHUB_STEP_SUMMARY ({path}): {exc.strerror or exc}", file=ctx.stderr)


# --------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------


class _Redacting:
    """A text stream whose writes pass through :func:`runway_core.rules.redact`: whatever a
    command prints (diagnostics, plans in every format, errors), a credential-shaped string
    the user pasted somewhere in a runway is never printed into a CI log. Each write is a
    whole message, line or document, so no value is split across two. Everything else
    (``isatty``, ``fileno``, ``flush``) is the wrapped stream's."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Context:
    """What a command may touch: streams, environment variables, the clock and ``which`` (STYLE.md §6)."""

    def __init__(
        self,
        stdout: IO[str],
        stderr: IO[str],
        environ: Mapping[str, str],
        clock: Callable[[], datetime] | None = None,
        which: Callable[..., str | None] = shutil.which,
    ) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.environ = environ
        self.clock = clock
        self.which = which
        self.redactor: Any = None  # set by a deploy run, for the RUNWAY_DEBUG traceback

    def now(self) -> datetime:
        if self.clock is not None:
            return self.clock()
        from deploy_engine.leases import utc_now

        return utc_now()


def _load(args: argparse.Namespace) -> tuple[Analysis, str]:
    root_file = resolve_root(args.path)
    catalog: Catalog
    if args.catalog is not None:
        try:
            catalog = load_catalog(args.catalog)
        except CatalogError as exc:
            raise InputError(f"catalogue: {exc}") from None
    else:
        catalog = load_catalog()
    an = analyze(root_file, catalog)
    asked = _runway_file(args.path)
    if asked is not None and asked not in an.files and os.path.realpath(asked) not in {os.path.realpath(f) for f in an.files}:
        # A member the root above does not list: check it alone (RW154), as the editor does,
        # rather than report on a root that never reads it.
        an = analyze(asked, catalog)
    return an, os.path.dirname(an.root_file)


def _print_diagnostics(an: Analysis, diags: Sequence[Diagnostic], base: str, stream: IO[str], style: _Style) -> None:
    for d in diags:
        print(diagnostic_text(d, base, style), file=stream)
    print(summary_text(an, diags), file=stream)


def _dump(doc: Any, stream: IO[str]) -> None:
    stream.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def cmd_check(args: argparse.Namespace, ctx: _Context) -> int:
    """Diagnostics of the root runway and its members; exit 1 when any is an error."""
    an, base = _load(args)
    diags = an.all_diagnostics()
    if args.format == "json":
        c = _counts(diags)
        _dump(
            {
                "format_version": FORMAT_VERSION,
                "diagnostics": [diagnostic_json(d, an, base) for d in diags],
                "summary": {
                    "errors": c[Severity.ERROR],
                    "warnings": c[Severity.WARNING],
                    "information": c[Severity.INFORMATION],
                    "hints": c[Severity.HINT],
                    "files": _file_count(an),
                },
            },
            ctx.stdout,
        )
    elif args.format == "sarif":
        _dump(sarif_document(an, diags, base, ctx.environ), ctx.stdout)
    elif args.format == "github":
        for d in diags:
            print(diagnostic_github(d, an, base, ctx.environ), file=ctx.stdout)
        _print_inert(summary_text(an, diags), ctx.stdout)
    else:
        _print_diagnostics(an, diags, base, ctx.stdout, _Style(ctx.stdout, ctx.environ))
    return EXIT_INVALID if an.has_errors() else EXIT_OK


def _selected_environments(an: Analysis, wanted: Sequence[str] | None) -> list[str]:
    declared = list(an.plans)
    if not wanted:
        return declared
    if an.spec is not None:
        unknown = [e for e in wanted if e not in an.plans]
        if unknown:
            known = ", ".join(declared) or "none"
            raise UsageError(f"{PROG} plan: error: --env {unknown[0]}: no such environment in {Path(an.root_file).name} (declared: {known})")
    # Declaration order, each once.
    return [e for e in declared if e in set(wanted)]


def _count(diags: list, severity: Severity) -> int:
    return sum(1 for d in diags if d.severity == severity)


def cmd_plan(args: argparse.Namespace, ctx: _Context) -> int:
    """Each selected environment's plan; exit 1 invalid, 2 refused (over cap), else 0."""
    an, base = _load(args)
    names = _selected_environments(an, args.env)
    diags = an.all_diagnostics()
    spec = an.spec
    envs = tuple(an.plans[n] for n in names)
    # product / region are null in JSON when the root could not be read (docs/cli.md).
    plan = Plan(spec.product if spec else None, spec.region if spec else None, envs, an.catalog.origin)  # type: ignore[arg-type]
    if args.format == "json":
        doc = plan_json(plan)
        # Each environment's digest, for `up --plan-digest` (the plan reviewed is the plan deployed).
        for env_doc, p in zip(doc["environments"], envs):
            env_doc["plan_digest"] = plan_digest(p, plan.product, plan.region)
        doc["diagnostics"] = [diagnostic_json(d, an, base) for d in diags]
        _dump(doc, ctx.stdout)
    elif args.format == "markdown":
        if envs:
            ctx.stdout.write(plan_markdown(plan, args.details))
        else:
            ctx.stdout.write(f"**No plan:** the runway has {_count(diags, Severity.ERROR)} error(s); run `runway-deploy check`.\n")
    elif args.format == "sarif":
        _dump(sarif_document(an, diags, base, ctx.environ), ctx.stdout)
    elif args.format == "github":
        # Annotations on stdout (the runner reads workflow commands there), then the plain table,
        # which holds the runway's own names: never read as commands.
        for d in diags:
            print(diagnostic_github(d, an, base, ctx.environ), file=ctx.stdout)
        if envs:
            _print_inert(plan_text(plan, args.details, _Style(ctx.stdout, {"NO_COLOR": "1"})), ctx.stdout)
    elif envs:
        ctx.stdout.write(plan_text(plan, args.details, _Style(ctx.stdout, ctx.environ)))
    elif an.files[an.root_file].role == "member":
        ctx.stdout.write("no plan: a member runway alone has none; plan the root runway that lists it\n")
    else:
        # A PR bot posting stdout must never post an empty comment.
        ctx.stdout.write(f"no plan: the runway has {_count(diags, Severity.ERROR)} error(s) (listed on stderr)\n")
    _append_step_summary(plan, args.details, ctx)
    if diags and args.format != "github":
        _print_diagnostics(an, diags, base, ctx.stderr, _Style(ctx.stderr, ctx.environ))
    invalid = any(d.severity == Severity.ERROR and d.code != OVER_CAP_CODE for d in diags)
    if invalid or (spec is None and an.files[an.root_file].role != "member"):
        return EXIT_INVALID
    if any(p.verdict == "over-cap" for p in envs):
        return EXIT_REFUSED
    return EXIT_OK


# --------------------------------------------------------------------------------------
# Deploy commands: preview, up, drift (docs/deploy.md)
# --------------------------------------------------------------------------------------

#: ``up`` runs only where this variable is ``protected``: a protected deploy job (its CI
#: environment) sets it (ADR 0493 §6; docs/deploy.md). Anything else is refused with exit 4.
PROTECTED_VARIABLE = "RUNWAY_DEPLOY_JOB"
PROTECTED_VALUE = "protected"


class _DeployRun:
    """One ``preview``/``up``/``drift`` run: its redactor, its output and (for ``up``) its receipt."""

    def __init__(self, args: argparse.Namespace, ctx: _Context, an: Analysis, env_plan: EnvironmentPlan) -> None:
        from deploy_engine.receipts import Receipt, actor, ci_run, git_commit
        from deploy_engine.secrets import Redactor

        assert an.spec is not None
        self.args = args
        self.ctx = ctx
        self.command: str = args.command
        self.product = an.spec.product
        self.region = an.spec.region
        self.env = args.env
        self.plan = env_plan
        self.root = Path(an.root_file).resolve().parent
        self.redactor = Redactor()
        self.ci = ci_run(ctx.environ)
        self.actor = actor(ctx.environ)
        self.stack = f"{self.product}-{self.env}"
        self.receipt: Any = None
        self.finished = False
        if self.command == "up":
            self.receipt = Receipt(
                product=self.product,
                environment=self.env,
                region=self.region,
                stack=self.stack,
                plan=env_plan,
                started_at=ctx.now(),
                git_commit=git_commit(self.root),
                ci=self.ci,
                actor=self.actor,
            )

    # Every line goes through the redactor (ADR 0493 §4: nobody reads a value).
    def err(self, text: str) -> None:
        print(self.redactor.scrub(_printable_lines(text)), file=self.ctx.stderr)

    def pulumi_line(self, line: str) -> None:
        self.ctx.stderr.write(self.redactor.scrub(line) + "\n")

    def out(self, text: str) -> None:
        self.ctx.stdout.write(self.redactor.scrub(text))

    def holder(self) -> str:
        if self.ci:
            return f"{self.actor} ({self.ci['provider']} run {self.ci['run_id']})"
        return self.actor

    def finish(self, code: int, outcome: str, reason: str | None = None, *, announce: bool = True) -> int:
        """End the run with ``code``; an ``up`` writes its receipt (and prints it with ``--format json``)."""
        self.finished = True
        if reason and announce:
            self.err(f"{PROG} {self.command}: {reason}")
        if self.receipt is None:
            if code != EXIT_OK and self.args.format == "json":
                self.out(json.dumps(json_error(code, reason or outcome), indent=2, ensure_ascii=False) + "\n")
            return code
        from deploy_engine.receipts import write_receipt

        self.receipt.outcome = outcome
        self.receipt.exit_code = code
        self.receipt.reason = self.redactor.scrub(reason) if reason else None
        self.receipt.finished_at = self.ctx.now()
        path = write_receipt(self.root, self.receipt, self.redactor)
        shown = _rel(str(path), str(self.root))
        if self.args.format == "json":
            doc = json.loads(path.read_text(encoding="utf-8"))
            doc["receipt"] = shown
            self.out(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        self.err(f"{PROG} up: {outcome}; receipt {shown}")
        return code


def _printable_lines(text: str) -> str:
    return "\n".join(_printable(line) for line in text.split("\n"))


def json_error(code: int, message: str) -> dict[str, Any]:
    """What ``preview``/``drift --format json`` (and an ``up`` that wrote no receipt) print on
    stdout when they fail: ``{"error": {"exit_code": <code>, "message": <why>}}``."""
    return {"error": {"exit_code": code, "message": _printable_lines(message)}}


def _print_json_error(args: argparse.Namespace, ctx: "_Context", code: int, message: str) -> None:
    if getattr(args, "format", None) == "json":
        ctx.stdout.write(json.dumps(json_error(code, message), indent=2, ensure_ascii=False) + "\n")


def _deploy_header(run: _DeployRun, backend_url: str) -> dict[str, Any]:
    from deploy_engine.automation import project_name
    from deploy_engine.receipts import estimate_json, public_backend_url

    return {
        "format_version": FORMAT_VERSION,
        "command": run.command,
        "product": run.product,
        "environment": run.env,
        "region": run.region,
        "project": project_name(run.product),
        "stack": run.stack,
        "backend": public_backend_url(backend_url),
        "plan_digest": plan_digest(run.plan, run.product, run.region),
        "estimate": estimate_json(run.plan),
    }


def _changes_text(changes: Mapping[str, int]) -> str:
    parts = [f"{op} {n}" for op, n in sorted(changes.items()) if n]
    return ", ".join(parts) or "no changes"


def _deploy_config(run: _DeployRun) -> tuple[Any, Any, Any, Any] | None:
    """(network, infisical config or None, backend, passphrase), or None after printing every problem (exit 3)."""
    from deploy_engine.automation import ENV_BACKEND, DeployConfigError, resolve_backend, resolve_passphrase
    from deploy_engine.infisical import InfisicalConfig, InfisicalConfigError
    from deploy_engine.receipts import url_secrets
    from deploy_engine.settings import SettingsError, load_network_settings, plan_network_check

    problems: list[str] = []
    network = infisical = backend = passphrase = None
    # A backend URL's user info is a credential: scrubbed from every line from now on.
    for value in url_secrets((run.args.backend or run.ctx.environ.get(ENV_BACKEND) or "").strip()):
        run.redactor.add(value)
    try:
        network = load_network_settings(run.ctx.environ, run.args.network)
    except SettingsError as exc:
        problems.append(str(exc))
    else:
        # What this environment's plan needs from the network (public subnets, domain, HTTPS):
        # refused here, before Pulumi, rather than as an error inside the program.
        check = plan_network_check(network, run.plan, run.ctx.environ)
        problems.extend(check.problems)
        for warning in check.warnings:
            run.err(f"{PROG} {run.command}: warning: {warning}")
    if run.command == "up":
        try:
            infisical = InfisicalConfig.from_environ(run.ctx.environ, [run.env])
            run.redactor.add(infisical.client_secret)
        except InfisicalConfigError as exc:
            problems.append(str(exc))
    try:
        backend = resolve_backend(run.args.backend, run.ctx.environ, run.root)
        passphrase = resolve_passphrase(backend, run.ctx.environ, run.root)
        run.redactor.add(passphrase)
    except DeployConfigError as exc:
        problems.append(str(exc))
    except OSError as exc:
        problems.append(f"backend or passphrase folder: {exc.strerror or exc}")
    if problems:
        for p in problems:
            run.err(f"{PROG} {run.command}: configuration: {p}")
        return None
    return network, infisical, backend, passphrase


def cmd_deploy(args: argparse.Namespace, ctx: _Context) -> int:
    """``preview``, ``up`` or ``drift`` of one environment through the Automation API.

    Guards in order (module docstring): 1 invalid runway, 2 over the cap (no pulumi import,
    nothing declared), 4 ``up`` outside the protected job, 5 no Pulumi CLI, 3 configuration
    missing, 6 lease held (``up``); then 7 when Pulumi or Infisical fails, else 0.
    """
    # SIGTERM (CI cancel or timeout) ends the run like Ctrl-C: receipt, lease released, exit 143.
    with _SigtermRaises():
        try:
            an, base = _load(args)
            spec = an.spec
            if spec is not None and args.env not in an.plans:
                known = ", ".join(an.plans) or "none"
                raise UsageError(f"{PROG} {args.command}: error: --env {args.env}: no such environment in {Path(an.root_file).name} (declared: {known})")
        except InputError as exc:
            _print_json_error(args, ctx, EXIT_NO_INPUT, str(exc))
            raise
        except UsageError as exc:
            _print_json_error(args, ctx, EXIT_USAGE, str(exc).splitlines()[-1])
            raise
        diags = an.all_diagnostics()
        if diags:
            _print_diagnostics(an, diags, base, ctx.stderr, _Style(ctx.stderr, ctx.environ))
        if spec is None or any(d.severity == Severity.ERROR and d.code != OVER_CAP_CODE for d in diags):
            print(f"{PROG} {args.command}: the runway has errors; nothing was run", file=ctx.stderr)
            _print_json_error(args, ctx, EXIT_INVALID, "the runway has errors; nothing was run (run `runway-deploy check`)")
            return EXIT_INVALID
        run = _DeployRun(args, ctx, an, an.plans[args.env])
        ctx.redactor = run.redactor
        try:
            return _guarded_deploy(run)
        except BaseException as exc:
            # Every `up` leaves a receipt, and a JSON run its error object, a bug, Ctrl-C and
            # SIGTERM included (the type only: no message, no value).
            if not run.finished:
                if isinstance(exc, (KeyboardInterrupt, Terminated)):
                    code = EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED
                    what = "cancelled: terminated (SIGTERM)" if isinstance(exc, Terminated) else "cancelled: interrupted (Ctrl-C)"
                    run.finish(code, "cancelled", what, announce=False)
                else:
                    run.finish(EXIT_INTERNAL, "failed", f"internal error ({type(exc).__name__})", announce=False)
            raise


def _guarded_deploy(run: _DeployRun) -> int:
    ctx, env_plan = run.ctx, run.plan

    # The cap check runs before Pulumi is called (ADR 0493 §3): nothing declared, pulumi not imported.
    if env_plan.verdict == "over-cap":
        assert env_plan.cap is not None
        return run.finish(
            EXIT_REFUSED, "refused",
            f"refused: {run.env} is over its cap ({usd(env_plan.total)}/month > {usd(env_plan.cap)}); nothing was declared",
        )
    reviewed = getattr(run.args, "plan_digest", None)
    if reviewed is not None:
        current = plan_digest(env_plan, run.product, run.region)
        if run.receipt is not None:
            run.receipt.reviewed_plan_digest = reviewed
        if reviewed != current:
            return run.finish(
                EXIT_PLAN_MISMATCH, "refused",
                f"refused: the plan of {run.env} is not the reviewed one: --plan-digest {reviewed}, but the runway now "
                f"plans {current}; nothing was declared. Review the new plan (`{PROG} plan --env {run.env} --format json` "
                "gives its plan_digest) and pass that digest",
            )
    if run.command == "up" and ctx.environ.get(PROTECTED_VARIABLE) != PROTECTED_VALUE:
        return run.finish(
            EXIT_NOT_PROTECTED, "refused",
            f"refused: `up` runs only in a protected deploy job ({PROTECTED_VARIABLE}={PROTECTED_VALUE}, "
            "set by that job's protected environment; ADR 0493 §6). Use `preview` anywhere else",
        )

    from deploy_engine import automation

    try:
        automation.require_pulumi_cli(ctx.environ, ctx.which)
    except automation.PulumiMissing as exc:
        return run.finish(EXIT_PULUMI_MISSING, "failed", str(exc))
    config = _deploy_config(run)
    if config is None:
        return run.finish(EXIT_CONFIG, "failed", "configuration missing; see the lines above")
    network, infisical, backend, passphrase = config
    if run.receipt is not None:
        run.receipt.backend = backend.url

    # Credentials are chosen once the stack is open (`up`: under the lease): _credentials().
    target = automation.StackTarget(
        product=run.product, environment=run.env, region=run.region, plan=env_plan, network=network,
        credentials={}, backend=backend, passphrase=passphrase, redactor=run.redactor,
    )
    header = _deploy_header(run, backend.url)
    if run.command == "preview":
        return _run_preview(run, target, header)
    if run.command == "drift":
        return _run_drift(run, target, header)
    return _run_up(run, target, infisical)


def _credentials(run: _DeployRun, target: Any, *, generate: bool, rotate: bool = False) -> tuple[Any, Any]:
    """(stored state, credential plan) of this run; sets ``target.credentials`` and ``target.set_passwords``.

    Reads which databases the stack holds from its **non-secret** outputs
    (:func:`automation.stored_state`: never ``--show-secrets``), then
    :func:`secrets.plan_credentials`: a password is set only for a new database, a rotation
    (``--rotate-credentials``, a proxy added or removed); ``preview`` never generates (a
    placeholder stands in). Raises ``automation.PulumiFailed``.
    """
    from deploy_engine import automation
    from deploy_engine.secrets import plan_credentials

    stored = automation.stored_state(target)
    cplan = plan_credentials(run.plan, stored.databases, generate=generate, rotate=rotate)
    run.redactor.add_credentials(cplan.secret_credentials())
    target.credentials = cplan.credentials
    target.set_passwords = cplan.set_passwords
    return stored, cplan


def _run_preview(run: _DeployRun, target: Any, header: dict[str, Any]) -> int:
    from deploy_engine import automation

    try:
        _, cplan = _credentials(run, target, generate=False)
        for name in cplan.placeholders:
            run.err(f"{PROG} preview: {name}: {cplan.reasons[name]}: previewed with a placeholder password; `up` will generate one")
        summary = automation.preview(target, run.pulumi_line)
    except automation.PulumiFailed as exc:
        return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc))
    if run.args.format == "json":
        doc = {**header, "credentials": dict(cplan.sources), "changes": dict(summary.changes),
               "steps": [{"urn": s.urn, "type": s.type, "op": s.op} for s in summary.steps]}
        run.out(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        lines = [f"preview of {run.stack} ({header['estimate']['text']}, {run.plan.verdict}): {_changes_text(summary.changes)}"]
        lines += [f"  {s.op:<20} {s.type}  {s.urn}" for s in summary.steps]
        run.out("\n".join(lines) + "\n")
    return EXIT_OK


def _run_drift(run: _DeployRun, target: Any, header: dict[str, Any]) -> int:
    from deploy_engine import automation

    from deploy_engine.secrets import plan_credentials

    # A refresh does not run the program and reads no credential: placeholders, under ignore_changes.
    target.credentials = plan_credentials(run.plan, {}, generate=False).credentials
    target.set_passwords = ()
    try:
        report = automation.drift(target, run.pulumi_line)
    except automation.PulumiFailed as exc:
        return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc))
    if run.args.format == "json":
        doc = {
            **header,
            "checked": report.checked,
            "drifted": [{"urn": i.urn, "type": i.type, "change": i.change, "properties": list(i.properties)} for i in report.items],
        }
        run.out(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        lines = [f"drift of {run.stack}: {len(report.items)} of {report.checked} resources changed outside Pulumi"]
        for i in report.items:
            props = f" ({', '.join(i.properties)})" if i.properties else ""
            lines.append(f"  {i.change:<8} {i.type}  {i.urn}{props}")
        run.out("\n".join(lines) + "\n")
    return EXIT_OK


def _rotate_advice(names: Sequence[str]) -> str:
    return (
        f"; the credentials of {', '.join(names)} may now be set on the database but not in Infisical: "
        f"once the cause is fixed, run `{PROG} up --rotate-credentials` (a new value, set and written to Infisical)"
    )


def _run_up(run: _DeployRun, target: Any, infisical: Any) -> int:
    from deploy_engine.leases import LeaseError, LeaseHeld, acquire, release
    from deploy_engine.receipts import lease_json

    receipt = run.receipt
    try:
        lease = acquire(run.root, run.product, run.env, holder=run.holder(), clock=run.ctx.now)
    except LeaseHeld as exc:
        receipt.lease = lease_json(exc.lease, "held-by-another")
        return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
    except LeaseError as exc:
        receipt.lease = {"status": "unreadable"}
        return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
    try:
        receipt.lease = lease_json(lease, "held")
        if lease.takeover:
            run.err(_takeover_text(lease.takeover))
        return _up_under_lease(run, target, infisical, receipt)
    finally:
        # On every way out: success, failure, a bug, Ctrl-C and SIGTERM (Terminated).
        release(lease)


def _takeover_text(takeover: Mapping[str, Any]) -> str:
    reason = str(takeover.get("reason") or "expired")
    if reason == "expired":
        return f"{PROG} up: took over the expired lease of {takeover.get('previous_holder')}"
    return f"{PROG} up: took over the lease of {takeover.get('previous_holder')}: {reason}"


def _up_under_lease(run: _DeployRun, target: Any, infisical: Any, receipt: Any) -> int:
    """``up`` once the lease is held: choose the credentials, log in to Infisical when one will be
    written, ``pulumi up``, write the new credentials, check no password was set unawares."""
    from deploy_engine import automation
    from deploy_engine.infisical import Endpoint, InfisicalWriteError, InfisicalWriter

    cplan = None
    writer = None
    slug = infisical.slug(run.env)
    try:
        try:
            # Under the lease: which databases exist is read once, and two deploys never both
            # create one. Only non-secret outputs are read (no stored password is ever read).
            stored, cplan = _credentials(run, target, generate=True, rotate=bool(getattr(run.args, "rotate_credentials", False)))
            receipt.credentials = dict(cplan.sources)
            for name in cplan.new:
                run.err(f"{PROG} up: {name}: {cplan.reasons[name]}: setting a new password ({cplan.sources[name]})")
            if cplan.new:
                # Fail fast: never create a database whose password could not be stored.
                writer = InfisicalWriter(infisical, run.redactor)
                try:
                    writer.login()
                except InfisicalWriteError as exc:
                    receipt.credentials = {n: "unchanged" for n in cplan.sources}
                    return run.finish(EXIT_DEPLOY_FAILED, "failed",
                                      f"{exc}; nothing was deployed (`up` would set the password of {', '.join(cplan.new)}, "
                                      "which must then be written to Infisical)")
            result = automation.up(target, run.pulumi_line)
        except automation.StackLocked as exc:
            # Pulumi's own backend lock: another runner is deploying this stack (docs/deploy.md, "Lease").
            return run.finish(EXIT_LEASE_HELD, "refused", f"refused: {exc}")
        except automation.PulumiFailed as exc:
            receipt.resources = exc.resources
            advice = _rotate_advice(cplan.new) if cplan is not None and cplan.new else ""
            return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc) + advice)
        receipt.resources = result.resources
        receipt.changes = result.changes
        # Written to Infisical: only the credentials set by this up (new database, rotation).
        # Never a read.
        written: list[str] = []
        receipt.secrets_written = written
        for name in cplan.new:
            endpoint = automation.postgres_endpoint(result.outputs, name)
            if endpoint is None:
                return run.finish(
                    EXIT_DEPLOY_FAILED, "failed",
                    f"the program exported no endpoint for {name} (stack output `resources.{name}.endpoint`); its secrets were not written"
                    + _rotate_advice([name]),
                )
            try:
                names = writer.write_postgres(slug, cplan.credentials[name], Endpoint(*endpoint))
            except InfisicalWriteError as exc:
                return run.finish(EXIT_DEPLOY_FAILED, "failed", str(exc) + _rotate_advice(cplan.new))
            written += [f"{slug}:/runtime/{name}/{n}" for n in names]
            run.err(f"{PROG} up: {name}: {cplan.sources[name]} credential: wrote {len(names)} values to Infisical at {slug}:/runtime/{name}/")
        # Safety nets for the databases this up did not set a password for.
        created = {urn.rsplit("::", 1)[-1] for urn in result.created}
        unawares = [n for n in cplan.credentials if n not in cplan.new and created & set(automation.password_holders(run.env, n))]
        if unawares:
            return run.finish(
                EXIT_DEPLOY_FAILED, "failed",
                f"{', '.join(unawares)}: this up created or replaced the database or its proxy secret although the stack "
                "recorded it, so it got a throwaway password that nobody knows" + _rotate_advice(unawares),
            )
        moved = []
        for name in cplan.credentials:
            if name in cplan.new:
                continue
            before = stored.databases[name].endpoint if name in stored.databases else None
            after = automation.postgres_endpoint(result.outputs, name)
            if before is not None and after is not None and before != after:
                moved.append(f"{name} ({before[0]}:{before[1]} -> {after[0]}:{after[1]})")
        if moved:
            return run.finish(
                EXIT_DEPLOY_FAILED, "failed",
                f"the endpoint of {', '.join(moved)} changed: its URL and host in Infisical are stale, and runway never reads "
                "the password to rewrite them" + _rotate_advice([m.split(" ", 1)[0] for m in moved]),
            )
        return run.finish(EXIT_OK, "succeeded")
    finally:
        if writer is not None:
            writer.close()


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------


def _digest_arg(text: str) -> str:
    """A ``--plan-digest`` value: 64 hex digits (any case; compared in lowercase)."""
    value = text.strip().lower()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise argparse.ArgumentTypeError("a plan digest is 64 hex digits (the plan_digest of `plan --format json`)")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (usage errors raise :class:`UsageError`, exit 64)."""
    parser = _ArgumentParser(
        prog=PROG,
        description="Check runway.yaml files, show each environment's plan and monthly estimate, and deploy it with Pulumi.",
        epilog="Exit codes: 0 ok, 1 invalid runway, 2 plan refused (over cap), 3 no runway, unreadable input or deploy "
        "configuration missing, 4 up outside the protected deploy job, 5 Pulumi CLI missing, 6 lease held, "
        "7 deploy failed, 8 plan differs from --plan-digest, 64 usage error, 70 internal error, 143 terminated (SIGTERM). See docs/cli.md and docs/deploy.md.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("path", nargs="?", default=".", metavar="PATH",
                       help="a folder holding runway.yaml (or runway.yml), or a runway file; a member runway resolves to its root (default: the current folder)")
        p.add_argument("--catalog", metavar="DIR", default=None,
                       help="catalogue folder holding sizes.toml and prices.csv (default: the packaged catalogue)")

    check = sub.add_parser("check", help="print diagnostics; exit 1 when any is an error",
                           description="Print the diagnostics of a root runway and its members.")
    common(check)
    check.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text",
                       help="output format: text, json, github (workflow-command annotations) or sarif (SARIF 2.1.0); default text")
    check.set_defaults(func=cmd_check)

    plan = sub.add_parser("plan", help="print each environment's plan and estimate; exit 2 when one is over its cap",
                          description="Print each environment's plan: items, monthly estimate (USD), cap and verdict.")
    common(plan)
    plan.add_argument("--env", action="append", metavar="ENV", help="only this environment (repeatable; default: all, in declaration order)")
    plan.add_argument("--format", choices=("text", "json", "markdown", "github", "sarif"), default="text",
                      help="output format: text, json, markdown, github (annotations, then the text table) or sarif; default text. "
                      "The markdown tables are also appended to $GITHUB_STEP_SUMMARY when it is set")
    plan.add_argument("--details", action="store_true", help="show each item's line items (quantity x unit price, confidence)")
    plan.set_defaults(func=cmd_plan)

    def cmd_schema(args: argparse.Namespace, ctx: _Context) -> int:
        """The JSON Schema of runway.yaml (runway_core.schema); exit 3 when FILE cannot be written."""
        from runway_core.schema import schema_text

        text = schema_text(member=args.member)
        if args.output is None:
            ctx.stdout.write(text)
            return EXIT_OK
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
        return EXIT_OK

    schema = sub.add_parser("schema", help="print the JSON Schema of runway.yaml (for YAML editors)",
                            description="Print the JSON Schema (draft-07) of runway.yaml: a root runway when it has `product`, else a member.")
    schema.add_argument("--member", action="store_true", help="the schema of a member runway only")
    schema.add_argument("--output", metavar="FILE", default=None, help="write the schema to FILE instead of standard output")
    schema.set_defaults(func=cmd_schema)

    deploy_help = {
        "preview": ("show what `up` would change (pulumi preview); any CI job", "Run pulumi preview of one environment's plan."),
        "up": ("create or update one environment (pulumi up); only in the protected deploy job",
               "Run pulumi up of one environment's plan, write its generated secrets to Infisical and a receipt."),
        "drift": ("report resources changed outside Pulumi (refresh, preview only)",
                  "Run pulumi refresh --preview-only and report resources changed outside Pulumi."),
    }
    for name, (short, long) in deploy_help.items():
        cmd = sub.add_parser(name, help=short, description=long + " See docs/deploy.md.")
        common(cmd)
        cmd.add_argument("--env", required=True, metavar="ENV", help="the environment (one)")
        cmd.add_argument("--backend", metavar="URL", default=None,
                         help="Pulumi state backend: file://<folder> or s3://<bucket>[/<prefix>] "
                         "(default: $PULUMI_BACKEND_URL, else file://<product repo>/.runway/state)")
        cmd.add_argument("--network", metavar="FILE", default=None,
                         help="JSON file of network settings (RUNWAY_VPC_ID, RUNWAY_PRIVATE_SUBNET_IDS... override its keys)")
        cmd.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
        cmd.add_argument("--plan-digest", metavar="SHA256", type=_digest_arg, default=None,
                         help="refuse (exit 8) unless the environment's plan has this digest: the plan_digest that "
                         "`plan --format json` printed for the reviewed plan (64 hex digits)")
        if name == "up":
            cmd.add_argument("--rotate-credentials", action="store_true",
                             help="generate a new admin password for every database, set it and write it to Infisical after "
                             "a successful up (default: leave existing passwords alone; generate only for a new database)")
        cmd.set_defaults(func=cmd_deploy)
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    environ: Mapping[str, str] | None = None,
    clock: Callable[[], datetime] | None = None,
    which: Callable[..., str | None] = shutil.which,
) -> int:
    """Run ``runway-deploy`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    ``stdout``, ``stderr`` and ``environ`` default to the process's (read at call time);
    ``clock`` (aware UTC datetimes, for leases and receipts) to the system clock; ``which``
    (how the ``pulumi`` binary is looked up on ``environ["PATH"]``) to :func:`shutil.which`.
    Never raises and never calls ``sys.exit``: ``--help`` returns 0, failures return their
    exit code (module docstring, docs/cli.md).
    """
    out = _Redacting(stdout if stdout is not None else sys.stdout)
    err = _Redacting(stderr if stderr is not None else sys.stderr)
    env = environ if environ is not None else os.environ
    ctx = _Context(out, err, env, clock, which)
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        return args.func(args, ctx)
    except UsageError as exc:
        print(str(exc), file=err)
        return EXIT_USAGE
    except InputError as exc:
        print(f"{PROG}: {_printable(str(exc))}", file=err)
        return EXIT_NO_INPUT
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=err)
        return EXIT_INTERRUPTED
    except Terminated:
        print(f"{PROG}: terminated (SIGTERM)", file=err)
        return EXIT_TERMINATED
    except Exception as exc:  # noqa: BLE001 - the one place a bug becomes exit 70
        if env.get("RUNWAY_DEBUG") == "1":
            # A deploy run's redactor scrubs the traceback too (generated values never print).
            redactor = ctx.redactor
            text = traceback.format_exc()
            err.write(redactor.scrub(text) if redactor is not None else text)
        # The exception's type only: its message might quote a runway's contents.
        print(f"{PROG}: internal error ({type(exc).__name__}); rerun with RUNWAY_DEBUG=1 for the traceback", file=err)
        return EXIT_INTERNAL


__all__ = [
    "EXIT_OK",
    "EXIT_INVALID",
    "EXIT_REFUSED",
    "EXIT_NO_INPUT",
    "EXIT_USAGE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "EXIT_CONFIG",
    "EXIT_NOT_PROTECTED",
    "EXIT_PULUMI_MISSING",
    "EXIT_LEASE_HELD",
    "EXIT_DEPLOY_FAILED",
    "EXIT_PLAN_MISMATCH",
    "InputError",
    "UsageError",
    "build_parser",
    "diagnostic_github",
    "diagnostic_json",
    "github_escape_data",
    "github_escape_property",
    "sarif_document",
    "main",
    "plan_markdown",
    "plan_text",
    "resolve_root",
]
