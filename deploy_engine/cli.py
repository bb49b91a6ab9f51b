"""``runway-deploy``: the command line of the deploy side (docs/cli.md).

Pure commands only, thin adapters over :func:`runway_core.analysis.analyze` and the one
planner (STYLE.md §1):

- ``check [PATH]`` prints the diagnostics of a root runway and its members;
- ``plan [PATH]`` prints each environment's plan: items, monthly estimate (USD per month,
  730 h a month) against the cap, verdict ``ok`` / ``over-cap`` (refused) / ``no-cap``.

Exit codes are part of the interface (docs/cli.md, "Exit codes"): 0 ok, 1 invalid runway,
2 plan refused (an environment over its cap), 3 no runway found or input unreadable,
64 usage error, 70 internal error, 130 interrupted. They never collide with 2: argparse's own
usage exit status 2 is replaced by 64 (sysexits.h ``EX_USAGE``).

JSON output is a stable, versioned interface (``format_version`` 1): ranges are 0-based with
characters in UTF-16 code units (as LSP), files relative to the root runway's folder with
``/`` separators. Text output is for humans: 1-based line and column (code points).

Nothing here prints a secret value: runway files hold secret *names* only, and errors never
echo file contents beyond the diagnostic messages. Must not import pulumi (the later
``preview`` / ``up`` commands import it lazily), pygls or lsprotocol.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path
from typing import IO, Any, Mapping, NoReturn, Sequence

from runway_core.analysis import ROOT_NAMES, Analysis, analyze, find_root, read_disk
from runway_core.catalog import Catalog, CatalogError, load_catalog
from runway_core.diagnostics import Diagnostic, Severity
from runway_core.planner import FORMAT_VERSION, EnvironmentPlan, ItemPlan, Plan, plan_json
from runway_core.rules import usd

PROG = "runway-deploy"

EXIT_OK = 0
#: The runway is invalid: an error diagnostic (``check``: any error; ``plan``: any error other
#: than RW170 over-cap). Takes precedence over :data:`EXIT_REFUSED`.
EXIT_INVALID = 1
#: ``plan`` only: a selected environment is over its cap, its plan is refused (ADR 0493 §3).
EXIT_REFUSED = 2
#: No runway at PATH, PATH unreadable, or the ``--catalog`` folder missing or invalid.
EXIT_NO_INPUT = 3
#: Command-line usage error (sysexits.h EX_USAGE), instead of argparse's 2.
EXIT_USAGE = 64
#: A bug in runway-deploy (sysexits.h EX_SOFTWARE); traceback only with RUNWAY_DEBUG=1.
EXIT_INTERNAL = 70
#: Interrupted (Ctrl-C): 128 + SIGINT, as shells report it.
EXIT_INTERRUPTED = 130

OVER_CAP_CODE = "RW170"

# Footnotes printed once per text or markdown plan (CATALOG.md).
NOTE_UNITS = "Estimates are USD per month (730 h a month), unit prices x quantities from the catalogue."
NOTE_FREE_TIERS = "Free tiers are ignored: estimates are conservative."
NOTE_NETWORK = "Network (VPC, NAT gateways, endpoints, data transfer) is outside the runway and not estimated."
NOTE_IMPLICIT = "implicit: a shared pool (`shared-<kind>`, from members' `requires` and `environments.<env>.shared`) or a per-environment item (ALB, service discovery)."


class UsageError(Exception):
    """A command-line usage mistake: exit :data:`EXIT_USAGE`."""


class InputError(Exception):
    """No runway found, or PATH / the catalogue unreadable: exit :data:`EXIT_NO_INPUT`."""


class _ArgumentParser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors, which means "plan refused" here."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.format_usage().rstrip()}\n{self.prog}: error: {message}")


# --------------------------------------------------------------------------------------
# Finding the runway
# --------------------------------------------------------------------------------------


def _is_member_text(head: str) -> bool:
    # The same test as runway_core.analysis.find_root: a member has `member:` and no `product:`.
    text = "\n" + head
    return "\nmember:" in text and "\nproduct:" not in text


def resolve_root(path: str) -> str:
    """The root runway file for PATH (a folder holding runway.yaml/.yml, or a runway file).

    A member runway (``member:`` and no ``product:``) resolves to the nearest root above it
    (:func:`runway_core.analysis.find_root`). Raises :class:`InputError` when nothing is found
    or PATH is unreadable; the message names the path, never the file's contents.
    """
    p = Path(path)
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
        head = read_disk(str(candidate))[:4096]
    except UnicodeDecodeError:
        return str(candidate)  # analyze() reports RW001 on it
    except OSError as exc:
        raise InputError(f"{candidate}: cannot read: {exc.strerror or exc}") from None
    if not _is_member_text(head):
        return str(candidate)
    root = find_root(str(candidate.resolve().parent.parent))
    if root is None:
        raise InputError(f"{candidate} is a member runway and no root runway (with `product:`) was found above it")
    return root


# --------------------------------------------------------------------------------------
# Rendering helpers
# --------------------------------------------------------------------------------------


def _printable(text: str) -> str:
    """Replace control characters so a hostile runway cannot drive the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _md(text: str) -> str:
    return _printable(text).replace("\\", "\\\\").replace("|", "\\|")


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
    if p.cap is None or p.cap <= 0:
        return None
    return f"{(p.total * 100 / p.cap).to_integral_value(rounding=ROUND_FLOOR)}%"


def _verdict_text(p: EnvironmentPlan) -> str:
    if p.verdict == "over-cap":
        assert p.cap is not None
        return f"REFUSED: over its cap by {usd(p.total - p.cap)}"
    return "no cap" if p.verdict == "no-cap" else "ok"


def _heading(p: EnvironmentPlan, style: _Style) -> str:
    verdict = _verdict_text(p)
    color = {"ok": "1;32", "over-cap": "1;31", "no-cap": "1;33"}.get(p.verdict, "1")
    if p.cap is None:
        money = usd(p.total)
    else:
        pct = _pct(p)
        money = f"{usd(p.total)} / {usd(p.cap)} cap" + (f" ({pct})" if pct else "")
    return f"{style(_printable(p.name), '1')} — {money} — {style(verdict, color)}"


def _item_label(i: ItemPlan) -> str:
    return _printable(i.name) + ("*" if i.implicit else "") + ("!" if i.missing_prices else "")


def _line_item_text(li: Any) -> str:
    return (
        f"{_printable(li.description)}: {_qty(li.quantity)} x {_unit_price(li.unit_usd)} per {_printable(li.unit)}"
        f" = {usd(li.monthly_usd)} ({li.confidence})"
    )


def _footnotes(plan: Plan, plans: Sequence[EnvironmentPlan]) -> list[tuple[str, str]]:
    """(text-table marker, note) pairs, each printed once per output."""
    notes: list[tuple[str, str]] = []
    if any(i.implicit for p in plans for i in p.items):
        notes.append(("*", NOTE_IMPLICIT))
    missing: list[str] = []
    for p in plans:
        for k in p.missing_prices:
            if k not in missing:
                missing.append(k)
    if missing:
        notes.append(("!", f"missing prices for {plan.region}: {', '.join(missing)}; those items are not fully estimated"
                      " (the total is a lower bound), and no other region's price is used."))
    for p in plans:
        if p.cap_source == "default" and p.cap is not None:
            notes.append(("", f"{p.name}: default cap of {usd(p.cap)}; set `environments.{p.name}.limits.monthly` to change it."))
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
        out.append("| item | kind | size | monthly |")
        out.append("|---|---|---|---:|")
        for i in p.items:
            name = _md(i.name) + (" (implicit)" if i.implicit else "") + (" (missing prices)" if i.missing_prices else "")
            out.append(f"| {name} | {_md(i.kind)} | {_md(i.size or '-')} | {usd(i.monthly_usd)} |")
        out.append(f"| **total** | | | **{usd(p.total)}** |")
        out.append("")
        if details:
            out.append("| item | line item | quantity x unit price | monthly | confidence |")
            out.append("|---|---|---|---:|---|")
            for i in p.items:
                for li in i.line_items:
                    out.append(
                        f"| {_md(i.name)} | {_md(li.description)} | {_qty(li.quantity)} x {_unit_price(li.unit_usd)} per {_md(li.unit)}"
                        f" | {usd(li.monthly_usd)} | {li.confidence} |"
                    )
            out.append("")
    out.extend(f"- {note}" for _, note in _footnotes(plan, plan.environments))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------


class _Context:
    def __init__(self, stdout: IO[str], stderr: IO[str], environ: Mapping[str, str]) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.environ = environ


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
        doc["diagnostics"] = [diagnostic_json(d, an, base) for d in diags]
        _dump(doc, ctx.stdout)
    elif args.format == "markdown":
        if envs:
            ctx.stdout.write(plan_markdown(plan, args.details))
    elif envs:
        ctx.stdout.write(plan_text(plan, args.details, _Style(ctx.stdout, ctx.environ)))
    if diags:
        _print_diagnostics(an, diags, base, ctx.stderr, _Style(ctx.stderr, ctx.environ))
    invalid = any(d.severity == Severity.ERROR and d.code != OVER_CAP_CODE for d in diags)
    if invalid or spec is None:
        return EXIT_INVALID
    if any(p.verdict == "over-cap" for p in envs):
        return EXIT_REFUSED
    return EXIT_OK


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (usage errors raise :class:`UsageError`, exit 64)."""
    parser = _ArgumentParser(
        prog=PROG,
        description="Check runway.yaml files and show each environment's plan and monthly estimate.",
        epilog="Exit codes: 0 ok, 1 invalid runway, 2 plan refused (over cap), 3 no runway or unreadable input, "
        "64 usage error, 70 internal error. See docs/cli.md.",
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
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    check.set_defaults(func=cmd_check)

    plan = sub.add_parser("plan", help="print each environment's plan and estimate; exit 2 when one is over its cap",
                          description="Print each environment's plan: items, monthly estimate (USD), cap and verdict.")
    common(plan)
    plan.add_argument("--env", action="append", metavar="ENV", help="only this environment (repeatable; default: all, in declaration order)")
    plan.add_argument("--format", choices=("text", "json", "markdown"), default="text", help="output format (default: text)")
    plan.add_argument("--details", action="store_true", help="show each item's line items (quantity x unit price, confidence)")
    plan.set_defaults(func=cmd_plan)
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Run ``runway-deploy`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    ``stdout``, ``stderr`` and ``environ`` default to the process's (read at call time).
    Never raises and never calls ``sys.exit``: ``--help`` returns 0, failures return their
    exit code (module docstring, docs/cli.md).
    """
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    env = environ if environ is not None else os.environ
    ctx = _Context(out, err, env)
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
    except Exception as exc:  # noqa: BLE001 - the one place a bug becomes exit 70
        if env.get("RUNWAY_DEBUG") == "1":
            traceback.print_exc(file=err)
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
    "InputError",
    "UsageError",
    "build_parser",
    "diagnostic_json",
    "main",
    "plan_markdown",
    "plan_text",
    "resolve_root",
]
