"""Run the language server bundled in a ``.vsix`` with this Python, as the extension runs it.

Usage: ``python scripts/smoke_vsix.py FILE.vsix`` on a machine of the package's platform (the
release workflow runs it on each target's runner with the oldest and the newest bundled CPython;
.ci/run on linux-x64). Stdlib only, any Python 3.11+.

Unpacks the package into a temporary folder, then, from another folder:

1. ``<python> -I extension/bundled/tool/runway_server.py --check`` must answer ``"ok": true``
   (the launcher finds the compiled modules of this interpreter in the bundle);
2. ``… runway_server.py --stdio``: ``initialize`` (LSP 3.17 base protocol: ``Content-Length``
   headers, JSON-RPC 2.0), whose ``serverInfo`` must be ``runway-lsp`` at the version of the
   package's ``extension/package.json`` (the project's version, ``runway_core.__version__``);
   ``initialized``; ``textDocument/didOpen`` of a runway with an unknown size, whose
   ``textDocument/publishDiagnostics`` must carry that problem (RW130): the analysis ran, so
   pydantic-core's and ruamel.yaml's compiled modules loaded; then ``shutdown`` and ``exit``,
   after which the server must exit 0.

Prints what it saw; exit 0 when all held, 1 otherwise.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

RUNWAY = """product: smoke
region: us-east-1
environments:
  dev:
    limits: {monthly: 100}
resources:
  main-db:
    kind: postgres
    size: {dev: smal}
"""
TIMEOUT_S = 120


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def reader(stream, out: queue.Queue) -> None:
    """Put every message the server writes on ``out`` (None at end of stream)."""
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                out.put(None)
                return
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length is None:
            continue
        out.put(json.loads(stream.read(length)))


def wait_for(messages: queue.Queue, test, what: str) -> dict:
    while True:
        try:
            msg = messages.get(timeout=TIMEOUT_S)
        except queue.Empty:
            raise SystemExit(f"smoke_vsix: no {what} within {TIMEOUT_S} s") from None
        if msg is None:
            raise SystemExit(f"smoke_vsix: the server closed its output before {what}")
        if test(msg):
            return msg


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="runway-smoke-") as tmp:
        root = Path(tmp)
        with zipfile.ZipFile(argv[0]) as zf:
            zf.extractall(root / "pkg")
        ext = root / "pkg" / "extension"
        version = json.loads((ext / "package.json").read_text(encoding="utf-8"))["version"]
        launcher = ext / "bundled" / "tool" / "runway_server.py"
        work = root / "work"
        work.mkdir()
        (work / "runway.yaml").write_text(RUNWAY, encoding="utf-8")
        checked = subprocess.run([sys.executable, "-I", str(launcher), "--check"], cwd=work, capture_output=True, text=True, timeout=TIMEOUT_S)
        answer = json.loads(checked.stdout or "{}")
        print(f"smoke_vsix: --check with Python {answer.get('python')}: {answer}")
        if not answer.get("ok"):
            return 1
        server = subprocess.Popen([sys.executable, "-I", str(launcher), "--stdio"], cwd=work, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        messages: queue.Queue = queue.Queue()
        threading.Thread(target=reader, args=(server.stdout, messages), daemon=True).start()
        errors = []
        try:
            uri = (work / "runway.yaml").as_uri()
            server.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": work.as_uri(), "capabilities": {}}}))
            server.stdin.flush()
            init = wait_for(messages, lambda m: m.get("id") == 1, "initialize answer")
            info = init.get("result", {}).get("serverInfo", {})
            print(f"smoke_vsix: serverInfo {info}")
            if info != {"name": "runway-lsp", "version": version}:
                errors.append(f"serverInfo is {info}, not runway-lsp {version}")
            server.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
            server.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "runway-yaml", "version": 1, "text": RUNWAY}}}))
            server.stdin.flush()
            diags = wait_for(messages, lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"]["diagnostics"], "diagnostics")
            codes = sorted({d.get("code") for d in diags["params"]["diagnostics"]})
            print(f"smoke_vsix: diagnostics {codes}")
            if "RW130" not in codes:
                errors.append(f"no RW130 for the unknown size: {codes}")
            server.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None}))
            server.stdin.flush()
            wait_for(messages, lambda m: m.get("id") == 2, "shutdown answer")
            server.stdin.write(frame({"jsonrpc": "2.0", "method": "exit", "params": None}))
            server.stdin.flush()
            rc = server.wait(timeout=TIMEOUT_S)
            if rc != 0:
                errors.append(f"the server exited {rc} after shutdown and exit")
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
            stderr = server.stderr.read().decode("utf-8", "replace")
        for e in errors:
            print(f"smoke_vsix: {e}\n--- server stderr ---\n{stderr[-3000:]}")
        print(f"smoke_vsix: {Path(argv[0]).name} with Python {answer.get('python')}: {'FAILED' if errors else 'ok'}")
        return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
