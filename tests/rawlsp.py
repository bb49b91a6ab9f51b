"""A runway-lsp child process spoken to in raw JSON-RPC over pipes (no client library to tidy
up the messages): for protocol faults, lifecycle rules and message sequences no well-behaved
client sends. Every read is bounded by a deadline that only detects a hang."""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lspclient import TIMEOUT


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class RawServer:
    """runway-lsp over pipes, spoken to in raw JSON-RPC (no client library to tidy up the
    messages); every read is bounded by a deadline that only detects a hang."""

    def __init__(self, cwd: Path, hooks: bool = False, env: dict[str, str] | None = None) -> None:
        """``env``: variables set for the server beside this process's (a ``PATH`` with a
        recording ``git`` first, say)."""
        # stderr to a file: a pipe nobody reads would fill up with the server's log and block it.
        self.stderr = tempfile.TemporaryFile()
        env = {**os.environ, **({"RUNWAY_LSP_TEST_HOOKS": "1"} if hooks else {}), **(env or {})} if hooks or env else None
        self.proc = subprocess.Popen([sys.executable, "-m", "runway_lsp", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, cwd=cwd, env=env)
        self.buf = b""
        self.inbox: list[dict] = []

    def send(self, obj) -> None:
        body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _pump(self, deadline: float) -> None:
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise TimeoutError("the server did not answer (hung?)")
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise EOFError("the server exited")
        self.buf += chunk
        while b"\r\n\r\n" in self.buf:
            head, rest = self.buf.split(b"\r\n\r\n", 1)
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
            if len(rest) < length:
                break
            self.inbox.append(json.loads(rest[:length]))
            self.buf = rest[length:]

    def response(self, msg_id, timeout: float = TIMEOUT) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for m in self.inbox:
                if "method" not in m and m.get("id") == msg_id:
                    self.inbox.remove(m)
                    return m
            self._pump(deadline)

    def notifications(self, method: str) -> list[dict]:
        """Every notification of ``method`` received so far (read what is pending first)."""
        self.drain(0.05)
        return [m for m in self.inbox if m.get("method") == method and "id" not in m]

    def drain(self, quiet: float) -> None:
        """Read until the server has been silent for ``quiet`` seconds."""
        while True:
            try:
                self._pump(time.monotonic() + quiet)
            except TimeoutError:
                return

    def publishes(self, uri: str) -> list[dict]:
        return [m["params"] for m in self.notifications("textDocument/publishDiagnostics") if m["params"]["uri"] == uri]

    def wait_publish(self, uri: str, version: int | None, timeout: float = TIMEOUT) -> dict:
        """The first diagnostics published for ``uri`` at ``version``."""
        deadline = time.monotonic() + timeout
        while True:
            for m in self.inbox:
                if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"].get("version") == version:
                    return m["params"]
            self._pump(deadline)

    def wait_message(self, predicate, timeout: float = TIMEOUT) -> dict:
        """The first message received so far or from now on for which ``predicate`` holds."""
        deadline = time.monotonic() + timeout
        while True:
            for m in self.inbox:
                if predicate(m):
                    return m
            self._pump(deadline)

    def initialize(self, folder: Path, capabilities: dict | None = None) -> dict:
        self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                   "params": {"processId": None, "rootUri": folder.as_uri(), "capabilities": capabilities or {}}})
        result = self.response("init")["result"]
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return result

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                   "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": version, "text": text}}})

    def change(self, uri: str, version: int, text: str) -> None:
        self.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                   "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}})

    def close(self) -> tuple[int, str]:
        self.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
        assert self.response("bye")["result"] is None
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.proc.stdin.close()
        rc = self.proc.wait(TIMEOUT)
        self.stderr.seek(0)
        return rc, self.stderr.read().decode("utf-8", "replace")
