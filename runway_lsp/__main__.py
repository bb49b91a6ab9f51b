"""``runway-lsp``: start the runway language server.

Usage: ``runway-lsp [--stdio]`` (stdio is the only transport and the default) or
``runway-lsp --version``. Logs go to stderr, never stdout: stdout carries the protocol.
Exit codes: 0 after shutdown and exit, 1 the catalogue could not be loaded or the client
left without a shutdown request (LSP 3.17 §exit), 2 bad arguments.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys

from . import __version__


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="runway-lsp", description="Language server for runway.yaml (diagnostics and cost hovers).")
    p.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"), help="stderr log level (default WARNING: editors such as Neovim log all stderr as errors)")
    return p


def main(argv: list[str] | None = None) -> int:
    args, unknown = _parser().parse_known_args(argv)
    if args.version:
        sys.stdout.write(f"runway-lsp {__version__}\n")
        return 0
    logging.basicConfig(stream=sys.stderr, level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # A log line quotes what the client sent (settings, method names, URIs): never a credential.
    from .log_redaction import guard_stray_output, redact_handlers

    redact_handlers()
    # pygls logs every message at INFO (initialize params included): keep stderr readable.
    logging.getLogger("pygls").setLevel(logging.WARNING)
    log = logging.getLogger("runway_lsp")
    if unknown:
        # Editors add flags of their own (e.g. --clientProcessId); ignore them, visibly.
        log.warning("ignoring unknown arguments: %s", " ".join(unknown))

    from .server import create_server

    # The catalogue and runway's own modules are loaded after the initialize response
    # (runway_lsp.server.RunwayLanguageServer.load; issue 16: start-up at pygls' floor).
    server = create_server()
    # The protocol owns the real stdout; a stray print() anywhere must not corrupt it.
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    # Warnings, uncaught exceptions (threads, __del__) and stray writes to sys.stdout/stderr go
    # through the same redaction as the log (runway_lsp.log_redaction.guard_stray_output).
    guard_stray_output(log)
    log.info("runway-lsp %s starting on stdio", __version__)
    # Everything loaded so far (modules, pygls and lsprotocol, the catalogue) lives as long as
    # the server: keep it out of every later garbage collection (issue 6: full collections
    # walked it after every few keystrokes, tens of milliseconds each). Then no automatic
    # collection at all: the server collects when the editor is quiet (runway_lsp.schedule.IDLE_GC_S).
    gc.freeze()
    gc.disable()
    server.idle_gc = True
    server.start_io(stdin, stdout)
    # LSP 3.17 §"Exit Notification": exit code 0 after a shutdown request, else 1 (pygls's
    # own sys.exit(1) ends the event loop but not with that code).
    return 0 if server.protocol._shutdown else 1


if __name__ == "__main__":
    sys.exit(main())
