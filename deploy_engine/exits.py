"""Exit codes of ``runway-deploy`` and the two errors that end a run early (docs/cli.md, "Exit codes").

The codes are part of the interface: 0 ok, 1 invalid runway, 2 plan refused (an environment over
its cap), 3 no runway found, input unreadable or deploy configuration missing, 4 ``up`` refused
outside the protected deploy job, 5 Pulumi CLI missing, 6 lease held by another deploy, 7 deploy
failed, 8 the plan is not the one reviewed (``--plan-digest``), 9 ``destroy`` refused while protected
resources remain, 64 usage error, 70 internal error,
130 interrupted, 143 terminated (SIGTERM). They never collide with 2: argparse's own usage exit
status 2 is replaced by 64 (sysexits.h ``EX_USAGE``).

A leaf of :mod:`deploy_engine`: the command line (:mod:`deploy_engine.cli`) and the deploy
pipeline (:mod:`deploy_engine.pipeline`) both return these codes. Imports only the standard library.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

EXIT_OK = 0
#: The runway is invalid: an error diagnostic (``check``: any error; ``plan``: any error other
#: than a refusal, :data:`REFUSAL_CODES`). Takes precedence over :data:`EXIT_REFUSED`.
EXIT_INVALID = 1
#: A selected environment's plan is refused (ADR 0493 §3): over its cap, or its cap cannot be
#: checked because a unit price is missing for the region (verdict ``unpriced``, issue 13).
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
#: Another deploy holds the environment's lease (or took it over while ``up`` ran: stopped
#: before its next phase).
EXIT_LEASE_HELD = 6
#: Pulumi failed (preview, up or refresh), or writing the generated secrets to Infisical failed.
EXIT_DEPLOY_FAILED = 7
#: ``preview``/``up``/``drift --plan-digest SHA``: the plan computed now is not the plan that was
#: reviewed (its digest differs): refused before anything else runs (docs/deploy.md).
EXIT_PLAN_MISMATCH = 8
#: ``destroy``: resources marked ``protect`` remain in the stack and ``--include-protected`` was
#: not given: nothing was destroyed (docs/deploy.md, "Destroy").
EXIT_PROTECTED_REMAIN = 9
#: Command-line usage error (sysexits.h EX_USAGE), instead of argparse's 2.
EXIT_USAGE = 64
#: A bug in runway-deploy (sysexits.h EX_SOFTWARE); traceback only with RUNWAY_DEBUG=1.
EXIT_INTERNAL = 70
#: Interrupted (Ctrl-C): 128 + SIGINT, as shells report it.
EXIT_INTERRUPTED = 130
#: Terminated (SIGTERM, what CI sends on cancel or timeout): 128 + SIGTERM, handled like Ctrl-C.
EXIT_TERMINATED = 143

#: The one error diagnostic that refuses a plan (exit 2) rather than invalidating it (exit 1).
OVER_CAP_CODE = "RW170"
#: Error codes that refuse a plan rather than make the runway invalid: over the cap (RW170),
#: a cap that cannot be checked (RW162, and RW163 on each unpriced item).
REFUSAL_CODES: frozenset[str] = frozenset({OVER_CAP_CODE, "RW162", "RW163"})

PROG = "runway-deploy"


class UsageError(Exception):
    """A command-line usage mistake: exit :data:`EXIT_USAGE`. The message (one line, which may
    quote what was given) and ``usage``, the command's own usage text printed before it."""

    def __init__(self, message: str, usage: str = "") -> None:
        super().__init__(message)
        self.usage = usage


class InputError(Exception):
    """No runway found, or PATH / the catalogue unreadable: exit :data:`EXIT_NO_INPUT`."""


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM (or SIGHUP, SIGQUIT) during any command
    (:class:`SigtermRaises`): like Ctrl-C, the run ends cleanly (``up``: receipt, lease
    released; ``diff``, ``catalog refresh``: their temporary folders removed) with exit 128 +
    the signal's number (:data:`EXIT_TERMINATED` for SIGTERM)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = int(signum)

    @property
    def name(self) -> str:
        """``"SIGTERM"``, ``"SIGHUP"``, ``"SIGQUIT"``."""
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


#: The signals that end a command cleanly (:class:`Terminated`): SIGTERM (CI's cancel or
#: timeout), SIGHUP (the terminal or ssh session closed), SIGQUIT (Ctrl-\). Their default
#: actions killed the process on the spot, leaving a `diff --base` tree of the product's size in
#: $TMPDIR (tenth adversary C5).
ENDING_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, n))


class SigtermRaises:
    """``with SigtermRaises():`` SIGTERM, SIGHUP or SIGQUIT raises
    :class:`~deploy_engine.exits.Terminated` and Ctrl-C (SIGINT) KeyboardInterrupt, once: any
    of them arriving during the cleanup that follows is ignored, so the receipt, the lease
    release and the removal of temporary folders complete (a second Ctrl-C 20 ms after the
    first killed the cleanup of a `diff --base` tree: tenth adversary C5). Only in the main
    thread, where Python runs signal handlers; the previous handlers are restored on exit."""

    def __init__(self) -> None:
        self.previous: dict[int, Any] = {}
        self.installed = False
        self.fired = False

    def _handler(self, signum: int, frame: Any) -> None:
        if self.fired:
            return
        self.fired = True
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(signum)

    def __enter__(self) -> "SigtermRaises":
        if threading.current_thread() is threading.main_thread():
            try:
                for signum in (*ENDING_SIGNALS, signal.SIGINT):
                    current = signal.getsignal(signum)
                    if signum == signal.SIGINT and current is not signal.default_int_handler:
                        continue  # Ctrl-C ignored by the parent (`nohup`, `&` in a script): keep it so
                    if signum == getattr(signal, "SIGHUP", None) and current == signal.SIG_IGN:
                        continue  # `nohup runway-deploy ...`: a closed terminal must not end the run
                    self.previous[signum] = signal.signal(signum, self._handler)
                self.installed = True
            except (ValueError, OSError):
                self.__exit__()
                self.installed = False
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.fired:
            # The command is ending on a signal: a second one (a Ctrl-C 20 ms after the first)
            # must not kill the process between its cleanup and its exit status.
            self.previous = {}
            return
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        self.previous = {}


__all__ = [
    "SigtermRaises",
    "EXIT_CONFIG",
    "EXIT_DEPLOY_FAILED",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_INVALID",
    "EXIT_LEASE_HELD",
    "EXIT_NOT_PROTECTED",
    "EXIT_NO_INPUT",
    "EXIT_OK",
    "EXIT_PLAN_MISMATCH",
    "EXIT_PROTECTED_REMAIN",
    "EXIT_PULUMI_MISSING",
    "EXIT_REFUSED",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "InputError",
    "OVER_CAP_CODE",
    "REFUSAL_CODES",
    "PROG",
    "Terminated",
    "UsageError",
]
