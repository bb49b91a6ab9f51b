"""A minimal LSP client over stdio for the benchmarks (standard library only).

It spawns a server, speaks JSON-RPC 2.0 with ``Content-Length`` framing on its stdin/stdout,
timestamps every message the moment it is read (``time.perf_counter``), answers the requests
a server sends to an editor (``workspace/configuration``, registrations, progress tokens,
refreshes) and keeps every ``textDocument/publishDiagnostics``. The same client drives our
server and yaml-language-server, so both are measured the same way.

No pygls, no lsprotocol: nothing here depends on the code under test.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Publish:
    uri: str
    version: int | None
    count: int
    at: float  # perf_counter when read
    diagnostics: list = field(default_factory=list, repr=False)


class LspError(Exception):
    pass


def client_capabilities(refresh: bool = True) -> dict[str, Any]:
    """What a modern editor with push diagnostics announces (Neovim-like, plus refreshes).

    Push, not pull: the benchmark measures didChange -> publishDiagnostics for both servers.
    """
    return {
        "general": {"positionEncodings": ["utf-16"]},
        "workspace": {
            "configuration": True,
            "workspaceFolders": True,
            "didChangeConfiguration": {"dynamicRegistration": False},
            "codeLens": {"refreshSupport": refresh},
            "inlayHint": {"refreshSupport": refresh},
        },
        "textDocument": {
            "synchronization": {"dynamicRegistration": False, "didSave": True},
            "publishDiagnostics": {"relatedInformation": True, "versionSupport": True, "tagSupport": {"valueSet": [1, 2]}},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "completion": {
                "completionItem": {"snippetSupport": True, "labelDetailsSupport": True, "documentationFormat": ["markdown", "plaintext"]},
                "contextSupport": True,
            },
            "codeLens": {},
            "inlayHint": {},
        },
        "window": {"workDoneProgress": False},
    }


class LspClient:
    """One server process and its JSON-RPC session."""

    def __init__(self, cmd: list[str], cwd: str | None = None, settings: dict[str, Any] | None = None,
                 env: dict[str, str] | None = None, stderr_path: str | None = None) -> None:
        self.cmd = cmd
        self.cwd = cwd
        self.settings = settings or {}  # section -> value, answered to workspace/configuration
        self.env = env
        self.stderr_path = stderr_path or os.devnull
        self.proc: asyncio.subprocess.Process | None = None
        self.spawned_at = 0.0
        self._next_id = 0
        self._pending: dict[int, tuple[asyncio.Future, float]] = {}
        self.publishes: list[Publish] = []
        self._publish_waiters: list[tuple[Callable[[Publish], bool], asyncio.Future]] = []
        self.server_requests: dict[str, int] = {}
        self.on_request: dict[str, Callable[[Any], Any]] = {}
        self._reader: asyncio.Task | None = None
        self._stderr = None
        self.last_response_at = 0.0

    # --- process ------------------------------------------------------------------------

    async def start(self) -> None:
        self._stderr = open(self.stderr_path, "ab")
        self.spawned_at = time.perf_counter()
        self.proc = await asyncio.create_subprocess_exec(
            *self.cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=self._stderr,
            cwd=self.cwd, env=self.env, limit=64 * 1024 * 1024,
        )
        self._reader = asyncio.create_task(self._read_loop())

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def rss_mb(self) -> float | None:
        """VmRSS of the server process in MiB (Linux /proc), None when unavailable."""
        try:
            with open(f"/proc/{self.pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def cpu_s(self) -> float | None:
        """User + system CPU seconds the server process has used (Linux /proc), or None."""
        try:
            with open(f"/proc/{self.pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    async def stop(self, timeout: float = 10.0) -> None:
        if self.proc is None:
            return
        try:
            if self.proc.returncode is None:
                await asyncio.wait_for(self.request("shutdown", None), timeout)
                self.notify("exit", None)
                await asyncio.wait_for(self.proc.wait(), timeout)
        except (asyncio.TimeoutError, LspError, ConnectionError, BrokenPipeError):
            pass
        finally:
            if self.proc.returncode is None:
                self.proc.kill()
                await self.proc.wait()
            if self._reader is not None:
                self._reader.cancel()
            if self._stderr is not None:
                self._stderr.close()

    # --- wire -----------------------------------------------------------------------------

    def _send(self, msg: dict[str, Any]) -> float:
        assert self.proc is not None and self.proc.stdin is not None
        body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return time.perf_counter()

    async def _read_loop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = await out.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.lower() == b"content-length":
                        length = int(value)
                if length is None:
                    continue
                body = await out.readexactly(length)
                at = time.perf_counter()
                self._dispatch(json.loads(body), at)
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            for fut, _t in self._pending.values():
                if not fut.done():
                    fut.set_exception(LspError("the server exited"))
            for _pred, fut in self._publish_waiters:
                if not fut.done():
                    fut.set_exception(LspError("the server exited"))

    def _dispatch(self, msg: dict[str, Any], at: float) -> None:
        if "id" in msg and "method" not in msg:  # a response
            entry = self._pending.pop(msg["id"], None)
            if entry is None:
                return
            fut, _sent = entry
            if not fut.done():
                if "error" in msg:
                    fut.set_exception(LspError(json.dumps(msg["error"])))
                else:
                    fut.set_result((msg.get("result"), at))
            return
        method = msg.get("method")
        params = msg.get("params")
        if "id" in msg:  # a request from the server
            self.server_requests[method] = self.server_requests.get(method, 0) + 1
            try:
                result = self._answer(method, params)
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            except Exception as exc:  # noqa: BLE001
                self._send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32603, "message": str(exc)}})
            return
        if method == "textDocument/publishDiagnostics":
            pub = Publish(params["uri"], params.get("version"), len(params.get("diagnostics", [])), at, params.get("diagnostics", []))
            self.publishes.append(pub)
            keep = []
            for pred, fut in self._publish_waiters:
                if not fut.done() and pred(pub):
                    fut.set_result(pub)
                elif not fut.done():
                    keep.append((pred, fut))
            self._publish_waiters = keep

    def _answer(self, method: str, params: Any) -> Any:
        handler = self.on_request.get(method)
        if handler is not None:
            return handler(params)
        if method == "workspace/configuration":
            return [self._setting(item.get("section")) for item in (params or {}).get("items", [])]
        return None  # registrations, progress tokens, refreshes: acknowledged

    def _setting(self, section: str | None) -> Any:
        if section is None:
            return self.settings
        if section in self.settings:
            return self.settings[section]
        # "yaml.schemas" style: walk dotted sections
        node: Any = self.settings
        for part in section.split("."):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    # --- API --------------------------------------------------------------------------------

    async def request(self, method: str, params: Any) -> Any:
        result, _at = await self.timed_request(method, params)
        return result

    async def timed_request(self, method: str, params: Any) -> tuple[Any, float]:
        """``(result, seconds from send to response read)``."""
        self._next_id += 1
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        sent = self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        self._pending[self._next_id] = (fut, sent)
        result, at = await fut
        self.last_response_at = at
        return result, at - sent

    def notify(self, method: str, params: Any) -> float:
        """Send a notification; returns the perf_counter just after it was written."""
        return self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_publish(self, predicate: Callable[[Publish], bool]) -> asyncio.Future:
        """A future for the first publish from now on that satisfies ``predicate``."""
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self._publish_waiters.append((predicate, fut))
        return fut

    async def initialize(self, root_uri: str, initialization_options: Any = None, refresh: bool = True) -> float:
        """initialize + initialized; returns seconds from spawn to the initialize response."""
        _result, _elapsed = await self.timed_request("initialize", {
            "processId": os.getpid(),
            "rootUri": root_uri,
            "workspaceFolders": [{"uri": root_uri, "name": "bench"}],
            "capabilities": client_capabilities(refresh),
            "initializationOptions": initialization_options,
            "clientInfo": {"name": "runway-bench", "version": "1"},
        })
        answered = self.last_response_at
        self.notify("initialized", {})
        return answered - self.spawned_at
