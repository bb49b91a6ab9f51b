"""GitHub workflow commands (``--format github``): one annotation per diagnostic
(``::error file=F,line=L,...::message``, 1-based, UTF-16 columns), everything else printed
between ``::stop-commands::`` lines so no runway text is read as a command."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, IO, Mapping, Sequence

from deploy_engine.cli.formats._shared import change_details, ci_path, headline, item_delta, one_based_range, signed_usd
from deploy_engine.terminal import workflow_escaped, workflow_property_escaped
from runway_core.facts import Analysis
from runway_core.text import redact
from runway_core.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:  # only `diff` imports runway_core.plan_diff
    from runway_core.plan_diff import PlanDiff

_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFORMATION: "notice", Severity.HINT: "notice"}


def github_escape_data(text: str) -> str:
    """Escape a workflow command's message: ``%`` -> ``%25``, CR -> ``%0D``, LF -> ``%0A``.

    (GitHub Actions toolkit, ``@actions/core`` ``command.ts`` ``escapeData``.) Other control
    characters are shown as escapes so a runway cannot drive the log. Credential shapes are
    redacted (:func:`runway_core.text.redact`) BEFORE escaping: the output stream redacts again,
    but once a line break is ``%0A`` (a private key block) or a ``%`` is ``%25``, the escaped
    text no longer has the shape the redactor looks for (issue 23).
    """
    return workflow_escaped(redact(text))


def github_escape_property(text: str) -> str:
    """Escape a workflow command property: as the message, plus ``:`` -> ``%3A`` and ``,`` -> ``%2C`` (``escapeProperty``)."""
    return workflow_property_escaped(redact(text))


def github_stop_commands() -> tuple[str, str]:
    """(``::stop-commands::<token>``, ``::<token>::``): GitHub's documented way to print text the
    runner must not read as workflow commands. Everything ``--format github`` prints that is not
    an intended annotation goes between the two; the token is random per run, so no runway text
    can guess it and resume command processing early."""
    import secrets  # only --format github needs a token

    token = secrets.token_hex(16)
    return f"::stop-commands::{token}", f"::{token}::"


def print_inert(text: str, stream: IO[str]) -> None:
    """``text`` between :func:`github_stop_commands` lines (ends with a newline)."""
    stop, resume = github_stop_commands()
    stream.write(f"{stop}\n{text if text.endswith(chr(10)) else text + chr(10)}{resume}\n")


def diagnostic_github(d: Diagnostic, an: Analysis, base: str, environ: Mapping[str, str]) -> str:
    """``::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=RW140::message`` (1-based, UTF-16 columns)."""
    line, col, end_line, end_col = one_based_range(d, an)
    props = (
        ("file", ci_path(d.file, base, environ)),
        ("line", str(line)),
        ("col", str(col)),
        ("endLine", str(end_line)),
        ("endColumn", str(end_col)),
        ("title", d.code),
    )
    joined = ",".join(f"{k}={github_escape_property(v)}" for k, v in props)
    return f"::{_GITHUB_COMMAND[d.severity]} {joined}::{github_escape_data(d.message)}"


#: GitHub shows at most this many annotations of each level (error, warning, notice) per step
#: and drops the rest silently: actions/runner src/Runner.Worker/ExecutionContext.cs
#: (``_maxIssueCount = 10``, counted per issue type), and GitHub's REST docs ("Update a check
#: run": "GitHub Actions are limited to 10 warning annotations and 10 error annotations per
#: step"); a job shows at most 50. One run keeps within 10 per level, 30 in all.
MAX_ANNOTATIONS_PER_LEVEL = 10


def annotation_level(line: str) -> str:
    """``error``, ``warning`` or ``notice`` of a ``::level ...::message`` line."""
    return line[2:].split(" ", 1)[0].split("::", 1)[0]


def capped(annotations: Sequence[tuple[str, str]], limit: int = MAX_ANNOTATIONS_PER_LEVEL) -> tuple[list[str], list[str]]:
    """(annotation lines to print, plain lines of those left out) from ``(annotation, plain
    text)`` pairs, in order: when a level has more than ``limit``, its first ``limit - 1`` are
    kept and one more annotation of that level says how many were left out, so none is lost
    without a word; the left-out ones belong in the log as text (:func:`print_inert`)."""
    totals: dict[str, int] = {}
    for line, _ in annotations:
        totals[annotation_level(line)] = totals.get(annotation_level(line), 0) + 1
    kept: list[str] = []
    left: list[str] = []
    seen: dict[str, int] = {}
    for line, plain in annotations:
        level = annotation_level(line)
        seen[level] = seen.get(level, 0) + 1
        if totals[level] <= limit or seen[level] < limit:
            kept.append(line)
        else:
            left.append(plain)
    for level, total in totals.items():
        if total > limit:
            more = total - (limit - 1)
            kept.append(f"::{level} title={github_escape_property(f'runway-deploy: {more} more')}::"
                        + github_escape_data(f"{more} more {level} annotation(s) not shown: GitHub shows {limit} per step; "
                                             "the step's log lists every one"))
    return kept, left


def print_diagnostics_github(entries: Sequence[tuple[Diagnostic, Analysis, str]], environ: Mapping[str, str], stream: IO[str],
                             trailer: str = "") -> None:
    """Each diagnostic as an annotation, :func:`capped` (GitHub would drop the rest without a
    word), then the left-out ones as ``file:line:col: severity CODE: message`` lines and
    ``trailer``, inert (:func:`print_inert`)."""
    from deploy_engine.cli.formats.text import Style, diagnostic_text

    style = Style(stream, {"NO_COLOR": "1"})
    kept, left = capped([(diagnostic_github(d, an, base, environ), diagnostic_text(d, base, style, environ)) for d, an, base in entries])
    for line in kept:
        print(line, file=stream)
    text = "\n".join([*left, trailer] if trailer else left)
    if text:
        print_inert(text, stream)


def diff_github(diff: PlanDiff, an: Analysis | None, base: str, environ: Mapping[str, str], max_increase: Decimal | None = None) -> list[str]:
    """Workflow-command annotations of a diff, each naming the product: per changed item a
    ``notice`` (``warning`` when it costs more or is not estimated) on its declaration in head
    (``an``: head's analysis; none for a removed item or a plan JSON head), and an ``error``
    per environment over its cap, invalid or growing by more than ``max_increase`` USD per
    month. Not yet :func:`capped`: the caller caps all of a run's annotations at once."""
    lines: list[str] = []
    who = f"{diff.product} " if diff.product else ""
    for e in diff.environments:
        for i in (() if e.head_unread else e.changed_items):
            sym = an.symbols.get(i.name) if an is not None else None
            props: list[tuple[str, str]] = []
            if sym is not None and sym.file is not None and sym.range is not None:
                d = Diagnostic(sym.file, sym.range, Severity.HINT, "", "")
                line, col, end_line, end_col = one_based_range(d, an)  # type: ignore[arg-type]
                props += [("file", ci_path(sym.file, base, environ)), ("line", str(line)), ("col", str(col)),
                          ("endLine", str(end_line)), ("endColumn", str(end_col))]
            props.append(("title", f"cost {i.change}: {who}{e.name}"))
            details = change_details(i)
            delta = item_delta(i)
            msg = f"{who}{i.name} ({i.kind}) in {e.name}: {delta}" + ("" if delta == "not estimated" else "/month") + (f" ({details})" if details else "")
            level = "warning" if i.delta_monthly_usd > 0 or delta == "not estimated" else "notice"
            lines.append(f"::{level} {','.join(f'{k}={github_escape_property(v)}' for k, v in props)}::{github_escape_data(msg)}")
        if e.head_verdict == "invalid":
            lines.append(f"::error title={github_escape_property('head invalid: ' + who + e.name)}::{github_escape_data(who + headline(e))}")
        elif e.head_verdict in ("over-cap", "unpriced"):
            lines.append(f"::error title={github_escape_property('over the cap: ' + who + e.name)}::{github_escape_data(who + headline(e))}")
        elif e.max_increase_exceeded or (max_increase is not None and e.delta > max_increase):
            max_increase = e.max_increase if e.max_increase is not None else max_increase
            assert max_increase is not None
            lines.append(f"::error title={github_escape_property('over --max-increase: ' + who + e.name)}::"
                         f"{github_escape_data(who + headline(e) + f'; more than the allowed increase of {signed_usd(max_increase)}/month')}")
    return lines


__all__ = ["MAX_ANNOTATIONS_PER_LEVEL", "annotation_level", "capped", "diff_github", "print_diagnostics_github", "diagnostic_github", "github_escape_data", "github_escape_property", "github_stop_commands", "print_inert"]
