"""``runway-deploy``: the command line of the deploy side (docs/cli.md, docs/deploy.md).

Thin adapters over :func:`runway_core.analysis.analyze` and the one planner
(docs/architecture.md §1). The CLI parses (:mod:`~deploy_engine.cli.parser`), calls a command
(:mod:`~deploy_engine.cli.commands`, one module each) and renders (:mod:`~deploy_engine.cli.formats`,
one module per format):

- ``check [PATH]`` prints the diagnostics of a root runway and its members;
- ``plan [PATH]`` prints each environment's plan: items, monthly estimate (USD per month,
  730 h a month) against the cap, verdict ``ok`` / ``over-cap`` (refused) / ``no-cap``;
  both also speak GitHub workflow commands (``--format github``) and SARIF 2.1.0
  (``--format sarif``), and ``plan`` appends its Markdown tables to ``$GITHUB_STEP_SUMMARY``;
- ``schema`` prints the JSON Schema of runway.yaml;
- ``preview|up|drift --env ENV [PATH]`` run the deploy pipeline (:mod:`deploy_engine.pipeline`:
  guards, configuration, lease, Pulumi through the Automation API, receipt).

Exit codes are part of the interface (:mod:`deploy_engine.exits`; docs/cli.md, "Exit codes").
JSON output is a stable, versioned interface (``format_version`` 1): ranges are 0-based with
characters in UTF-16 code units (as LSP), files relative to the root runway's folder with
``/`` separators. Text output is for humans: 1-based line and column (code points).

Nothing here prints a secret value: runway files hold secret *names* only, every stream is
redacted (:class:`deploy_engine.context.Redacting`), and errors never echo file contents beyond
the diagnostic messages. Must not import pulumi (``preview``, ``up`` and ``drift`` import it
lazily, after their guards), infisical_sdk, pygls or lsprotocol.
"""

from __future__ import annotations

import errno
import gc
import os
import shutil
import sys
import traceback
from datetime import datetime
from typing import IO, Any, Callable, Mapping, Sequence

from deploy_engine.cli import gitrun
from deploy_engine.cli.formats.github import diagnostic_github, github_escape_data, github_escape_property
from deploy_engine.cli.formats.json import diagnostic_json
from deploy_engine.cli.formats.markdown import plan_markdown
from deploy_engine.cli.formats.sarif import sarif_document
from deploy_engine.cli.formats.text import plan_text
from deploy_engine.cli.inputs import resolve_root
from deploy_engine.cli.parser import build_parser
from deploy_engine.context import Context, Redacting
from deploy_engine.exits import (
    EXIT_CONFIG,
    EXIT_DEPLOY_FAILED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_LEASE_HELD,
    EXIT_NO_INPUT,
    EXIT_NOT_PROTECTED,
    EXIT_OK,
    EXIT_PLAN_MISMATCH,
    EXIT_PULUMI_MISSING,
    EXIT_REFUSED,
    EXIT_TERMINATED,
    EXIT_USAGE,
    PROG,
    InputError,
    SigtermRaises,
    Terminated,
    UsageError,
)
from deploy_engine.pipeline.guards import DEPLOY_EXTRA_MODULES, deploy_extra_message
from deploy_engine.terminal import printable


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    environ: Mapping[str, str] | None = None,
    clock: Callable[[], datetime] | None = None,
    which: Callable[..., str | None] = shutil.which,
    stdin: IO[Any] | None = None,
) -> int:
    """Run ``runway-deploy`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    ``stdout``, ``stderr``, ``stdin`` (``check -``) and ``environ`` default to the process's
    (read at call time);
    ``clock`` (aware UTC datetimes, for leases and receipts) to the system clock; ``which``
    (how the ``pulumi`` binary is looked up on ``environ["PATH"]``) to :func:`shutil.which`.
    Never raises and never calls ``sys.exit``: ``--help`` and ``--version`` return 0, failures
    return their exit code (module docstring, docs/cli.md). Ordinary situations are no
    failures: a closed pipe ends the output quietly and the command still returns the status
    its work had; a stream that cannot encode a character gets an ASCII fallback
    (:class:`~deploy_engine.context.Redacting`); a missing ``[deploy]`` extra is exit 3.
    """
    raw_out = stdout if stdout is not None else sys.stdout
    raw_err = stderr if stderr is not None else sys.stderr
    if raw_err is None:  # `2>&-`: the interpreter has no sys.stderr; messages go nowhere
        raw_err = open(os.devnull, "w", encoding="utf-8")
    out = Redacting(raw_out if raw_out is not None else open(os.devnull, "w", encoding="utf-8"))
    err = Redacting(raw_err)
    env = environ if environ is not None else os.environ
    ctx = Context(out, err, env, clock, which, stdin)
    if raw_out is None:
        # `runway-deploy plan >&-`: no standard output at all (sys.stdout is None). Said once,
        # exit 3, rather than an AttributeError at the first write (docs/cli.md, "Exit codes").
        print(f"{PROG}: standard output is closed; nothing can be reported (open it, or redirect it to a file)", file=err)
        err.flush()
        return EXIT_NO_INPUT
    try:
        code = _run(argv, ctx)
        try:
            out.flush()
        except OSError as exc:
            code = _output_failed(exc, ctx)
    finally:
        try:
            out.flush()
        except OSError:
            pass  # reported above (or the run failed already); the descriptor is /dev/null now
        err.flush()
    if argv is None and stdout is None and stderr is None and environ is None:
        # Run as the process (the console script, `python -m deploy_engine`): the interpreter's
        # last collections would walk every object of the analysis once more before exiting
        # (~50 ms of a 0.5 s `plan --format json` on the 3,218-line workspace). Frozen objects
        # are never collected, so this is only for a process about to end.
        gc.freeze()
    return code


def _run(argv: Sequence[str] | None, ctx: Context) -> int:
    err = ctx.stderr
    args: Any = None
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        except BrokenPipeError:
            return EXIT_OK  # `--help | head -1`, as for any output
        except OSError as exc:  # `--help > /dev/full`: the help could not be written
            if exc.errno not in _OUTPUT_ERRNOS:
                raise
            return _output_failed(exc, ctx)
        ctx.command = args.command
        # SIGTERM (CI's cancel or timeout) raises Terminated in every command, so what a run
        # made is removed on the way out (a `diff --base` tree the size of the product, a
        # refresh's staging folder: sixth adversary F10), then exit 143 below.
        gitrun.new_command(ctx.environ)  # the command's git calls share one deadline (RUNWAY_GIT_TIMEOUT_S)
        with SigtermRaises():
            return args.func(args, ctx)
    except UsageError as exc:
        # A usage error quotes the argument given (`--env $'dev\x1b[2J'`, argparse's
        # "unrecognized arguments: ..."): control characters are shown as escapes, never sent
        # to the terminal, a newline or CR too (a line of its own in a CI log could pass for
        # the tool's). Only the usage text, which is the parser's own, keeps its line breaks.
        if exc.usage:
            print(exc.usage, file=err)
        print(printable(str(exc)), file=err)
        return EXIT_USAGE
    except InputError as exc:
        print(f"{PROG}: {printable(str(exc))}", file=err)
        return EXIT_NO_INPUT
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=err)
        return EXIT_INTERRUPTED
    except Terminated as exc:
        print(f"{PROG}: terminated ({exc.name})", file=err)
        return exc.exit_code
    except ModuleNotFoundError as exc:
        # The [deploy] extra not installed, met past the pipeline's own check: exit 3, said plainly.
        if (exc.name or "").split(".")[0] not in DEPLOY_EXTRA_MODULES:
            return _internal_error(exc, ctx)
        print(f"{PROG}: {deploy_extra_message(getattr(args, 'command', PROG), [exc.name or ''])}", file=err)
        return EXIT_NO_INPUT
    except BrokenPipeError:
        # The reader went away (`| head -1`): not a failure of the work, which had gone well so far.
        return EXIT_OK
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS or not _raised_writing(exc, ctx.stdout):
            return _internal_error(exc, ctx)
        return _output_failed(exc, ctx)
    except Exception as exc:  # noqa: BLE001 - the one place a bug becomes exit 70
        return _internal_error(exc, ctx)


#: Write errors of a standard stream (``>/dev/full``, a full disk or quota, an I/O error): exit 3.
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG, errno.EBADF})


def _raised_writing(exc: BaseException, stream: Any) -> bool:
    """Whether ``exc`` was raised by a write or flush of ``stream`` (a frame of its own method
    in the traceback), not by a file the command writes (a receipt, a lease: those stay exit 70
    or their own code)."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_locals.get("self") is stream and tb.tb_frame.f_code.co_name in ("write", "flush"):
            return True
        tb = tb.tb_next
    return False


def _output_failed(exc: OSError, ctx: Context) -> int:
    """Standard output could not be written (``>/dev/full``): one line on stderr, exit 3; when
    it is the process's own, its descriptor is pointed at /dev/null so that the interpreter's
    last flush cannot fail too."""
    print(f"{PROG}: cannot write standard output: {exc.strerror or exc}", file=ctx.stderr)
    if sys.stdout is None or getattr(ctx.stdout, "_stream", None) is not sys.stdout:
        return EXIT_NO_INPUT
    try:
        fd = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    return EXIT_NO_INPUT


def _internal_error(exc: BaseException, ctx: Context) -> int:
    err = ctx.stderr
    if ctx.environ.get("RUNWAY_DEBUG") == "1":
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
