"""A composite action run the way GitHub's runner runs it, for tests/deploy/test_ci_action.py.

What is GitHub's own, taken from its source:

- every ``if:`` and every ``${{ }}`` is evaluated by GitHub's expression evaluator (npm
  ``@actions/expressions``, actions/languageservices) through .ci/actions-parser/evaluate.mjs; an
  ``if:`` with no status function is ``success() && (...)``, and ``hashFiles`` hashes only files
  under ``GITHUB_WORKSPACE`` (actions/runner src/Misc/expressionFunc/hashFiles/src/hashFiles.ts);
- a ``shell: bash`` step runs as ``bash --noprofile --norc -e -o pipefail {0}`` on a script
  file (actions/runner src/Runner.Worker/Handlers/ScriptHandlerHelpers.cs), with the file
  commands ``GITHUB_OUTPUT``, ``GITHUB_ENV``, ``GITHUB_PATH`` and ``GITHUB_STEP_SUMMARY``
  (``name=value`` lines and ``name<<DELIMITER`` blocks, as the runner's FileCommandManager
  reads them) and the default variables (``GITHUB_WORKSPACE``, ``GITHUB_EVENT_PATH``,
  ``RUNNER_TEMP``, ...); a step that fails skips the later steps whose ``if:`` does not call
  ``always()`` or ``failure()``;
- ``gh`` is the real GitHub CLI (Debian's ``gh``), talking to :class:`FakeGitHub`, a small
  REST API on 127.0.0.1 (issue comments with ``Link`` pagination as the REST API pages them,
  and ``code-scanning/sarifs``). gh reaches it as the host ``github.localhost`` (gh's
  development host, plain http: cli/cli pkg/ghinstance) through ``HTTP_PROXY``.

What is not GitHub's: ``actions/setup-python`` (this Python is on PATH instead), ``pip install``
of the action (this checkout is importable), and ``github/codeql-action/upload-sarif``, whose
stand-in makes the request the action makes (``POST /repos/{owner}/{repo}/code-scanning/sarifs``
with the gzipped, base64 log, the commit and the ref: github/codeql-action src/upload-lib.ts)
with the ``sarif_file`` and ``category`` the step passes.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[2]
PARSER = REPO / ".ci" / "actions-parser"
EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
#: GitHub's limit on an issue comment's body ("body is too long (maximum is 65536 characters)").
MAX_BODY = 65536


def available() -> str | None:
    """None when the runner can run here, else why not (for a skip reason)."""
    if shutil.which("node") is None or not (PARSER / "node_modules" / "@actions" / "expressions").is_dir():
        return "GitHub's expression evaluator not installed (.ci/run installs it: npm ci in .ci/actions-parser)"
    if shutil.which("gh") is None:
        return "the GitHub CLI (Debian package gh) is not installed (.ci/run installs it)"
    if shutil.which("git") is None:
        return "needs git"
    return None


class Expressions:
    """GitHub's evaluator in one node process (.ci/actions-parser/evaluate.mjs)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(["node", str(PARSER / "evaluate.mjs")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, cwd=PARSER)

    def evaluate(self, expr: str, context: dict, workspace: str, *, condition: bool = False, status: str = "success") -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"expr": expr, "context": context, "workspace": workspace,
                                          "condition": condition, "status": status}) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if "error" in answer:
            raise AssertionError(f"GitHub's evaluator refused {expr!r}: {answer['error']}")
        return answer

    def template(self, text: str, context: dict, workspace: str) -> str:
        """A string value with ``${{ }}`` in it, as the runner renders it."""
        return EXPR.sub(lambda m: self.evaluate(m.group(1).strip(), context, workspace)["text"], text)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


# --------------------------------------------------------------------------------------
# The fake GitHub REST API
# --------------------------------------------------------------------------------------


@dataclass
class GitHubState:
    token: str
    comments: list[dict] = field(default_factory=list)
    sarifs: list[dict] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    next_id: int = 1000
    #: False: code scanning is off for the repository (a private repository without GitHub
    #: Advanced Security) and a SARIF upload is refused with 403, as GitHub refuses it.
    code_scanning: bool = True


def send_json(handler: BaseHTTPRequestHandler, code: int, doc: Any = None, headers: dict | None = None) -> None:
    """A JSON response (no body for None) with extra ``headers``, as a REST API sends one."""
    body = b"" if doc is None else json.dumps(doc).encode()
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(body)


class FakeGitHub:
    """``/repos/{owner}/{repo}/issues/{n}/comments`` (GET, paged by ``per_page``/``page``,
    default 30, with a ``Link`` header; POST), ``/repos/{owner}/{repo}/issues/comments/{id}``
    (PATCH, DELETE), ``/repos/{owner}/{repo}/code-scanning/sarifs`` (POST); ``Authorization:
    token <the token>`` required (else 401); a comment body over 65,536 characters is refused
    with 422 as GitHub refuses it."""

    def __init__(self, token: str) -> None:
        self.state = GitHubState(token)
        state = self.state

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, doc: Any = None, headers: dict | None = None) -> None:
                send_json(self, code, doc, headers)

            def _route(self, method: str) -> None:
                url = urllib.parse.urlsplit(self.path)  # a proxied request: the absolute URL
                state.requests.append((method, url.path + (f"?{url.query}" if url.query else "")))
                if self.headers.get("Authorization") != f"token {state.token}":
                    return self._send(401, {"message": "Bad credentials"})
                length = int(self.headers.get("Content-Length") or 0)
                payload = json.loads(self.rfile.read(length) or b"null") if length else None
                query = urllib.parse.parse_qs(url.query)
                m = re.fullmatch(r"/repos/([^/]+)/([^/]+)/issues/(\d+)/comments", url.path)
                if m and method == "GET":
                    per_page = min(int(query.get("per_page", ["30"])[0]), 100)
                    page = int(query.get("page", ["1"])[0])
                    items = [c for c in state.comments if c["issue"] == int(m.group(3))]
                    chunk = items[(page - 1) * per_page: page * per_page]
                    headers = {}
                    if page * per_page < len(items):
                        nxt = f"http://{self.headers['Host']}{url.path}?per_page={per_page}&page={page + 1}"
                        headers["Link"] = f'<{nxt}>; rel="next"'
                    return self._send(200, [{k: v for k, v in c.items() if k != "issue"} for c in chunk], headers)
                if m and method == "POST":
                    if len(payload["body"]) > MAX_BODY:
                        return self._send(422, {"message": "Validation Failed", "errors": [
                            {"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}]})
                    state.next_id += 1
                    comment = {"id": state.next_id, "issue": int(m.group(3)), "body": payload["body"], "user": {"login": "github-actions[bot]"}}
                    state.comments.append(comment)
                    return self._send(201, {k: v for k, v in comment.items() if k != "issue"})
                m = re.fullmatch(r"/repos/([^/]+)/([^/]+)/issues/comments/(\d+)", url.path)
                if m:
                    comment = next((c for c in state.comments if c["id"] == int(m.group(3))), None)
                    if comment is None:
                        return self._send(404, {"message": "Not Found"})
                    if method == "PATCH":
                        if len(payload["body"]) > MAX_BODY:
                            return self._send(422, {"message": "Validation Failed"})
                        comment["body"] = payload["body"]
                        return self._send(200, {k: v for k, v in comment.items() if k != "issue"})
                    if method == "DELETE":
                        state.comments.remove(comment)
                        return self._send(204)
                if re.fullmatch(r"/repos/[^/]+/[^/]+/code-scanning/sarifs", url.path) and method == "POST":
                    if not state.code_scanning:
                        return self._send(403, {"message": "Advanced Security must be enabled for this repository to use code scanning.",
                                                "documentation_url": "https://docs.github.com/rest/code-scanning/code-scanning#upload-an-analysis-as-sarif-data"})
                    log = json.loads(gzip.decompress(base64.b64decode(payload["sarif"])))
                    state.sarifs.append({**payload, "sarif": log})
                    return self._send(202, {"id": f"sarif-{len(state.sarifs)}", "url": "http://api.github.localhost/..."})
                return self._send(404, {"message": "Not Found", "path": url.path, "method": method})

            def do_GET(self) -> None:
                self._route("GET")

            def do_POST(self) -> None:
                self._route("POST")

            def do_PATCH(self) -> None:
                self._route("PATCH")

            def do_DELETE(self) -> None:
                self._route("DELETE")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def proxy(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --------------------------------------------------------------------------------------
# The runner
# --------------------------------------------------------------------------------------


def read_file_command(path: Path) -> dict[str, str]:
    """``name=value`` lines and ``name<<DELIM`` ... ``DELIM`` blocks (the runner's file commands)."""
    out: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").split("\n") if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            j = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1: j])
            i = j + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out


@dataclass
class Run:
    """What a run left: each step's outcome and outputs, the action's outputs, the job's status."""

    steps: dict[str, dict] = field(default_factory=dict)
    outcomes: list[tuple[str, str]] = field(default_factory=list)  # (step name, success|failure|skipped)
    conclusions: list[tuple[str, str]] = field(default_factory=list)  # after continue-on-error
    outputs: dict[str, str] = field(default_factory=dict)
    failed: bool = False
    logs: dict[str, str] = field(default_factory=dict)


class Runner:
    """Runs action.yml's steps in ``workspace`` on a ``pull_request`` (or other) event."""

    def __init__(self, workspace: Path, temp: Path, github: FakeGitHub, event_name: str, event: dict, sha: str, ref: str) -> None:
        self.workspace, self.temp, self.github = workspace, temp, github
        self.event_name, self.event, self.sha, self.ref = event_name, event, sha, ref
        self.expressions = Expressions()
        self.bin = temp / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        wrapper = self.bin / "runway-deploy"
        wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -m deploy_engine \"$@\"\n", encoding="utf-8")
        wrapper.chmod(0o755)
        if not (self.bin / "python").exists():
            (self.bin / "python").symlink_to(sys.executable)
        self.runner_temp = temp / "_temp"
        self.summary = temp / "step-summary.md"

    def close(self) -> None:
        self.expressions.close()

    def github_context(self) -> dict:
        return {
            "event_name": self.event_name, "event": self.event, "repository": "acme/shop", "sha": self.sha, "ref": self.ref,
            "token": self.github.state.token, "action_path": str(REPO), "workspace": str(self.workspace),
            "server_url": "https://github.com", "api_url": "https://api.github.com", "run_id": "4242", "action_repository": "",
            "action_ref": "",
        }

    def run(self, inputs: dict[str, str], action_path: str | None = None) -> Run:
        action = YAML(typ="safe").load((REPO / "action.yml").read_text(encoding="utf-8"))
        # A fresh RUNNER_TEMP per job, as the runner empties it.
        if self.runner_temp.exists():
            shutil.rmtree(self.runner_temp)
        self.runner_temp.mkdir(parents=True)
        event_path = self.temp / "event.json"
        event_path.write_text(json.dumps(self.event), encoding="utf-8")
        github = self.github_context()
        if action_path is not None:
            github["action_path"] = action_path
        ws = str(self.workspace)
        ctx: dict[str, Any] = {"github": github, "runner": {"temp": str(self.runner_temp), "os": "Linux"}, "env": {}, "steps": {},
                               "inputs": {}, "job": {"status": "success"}}
        for name, spec in (action.get("inputs") or {}).items():
            default = str(spec.get("default", ""))
            ctx["inputs"][name] = inputs.get(name, self.expressions.template(default, ctx, ws))
        unknown = set(inputs) - set(ctx["inputs"])
        assert not unknown, f"the action has no input {unknown}"
        result = Run()
        job_env: dict[str, str] = {}
        path_extra: list[str] = []
        status = "success"
        for n, step in enumerate(action["runs"]["steps"]):
            name = step.get("name", f"step {n}")
            cond = str(step.get("if", "success()"))
            m = re.fullmatch(r"\s*\$\{\{(.*)\}\}\s*", cond, re.S)
            cond = m.group(1).strip() if m else cond
            if not self.expressions.evaluate(cond, ctx, ws, condition=True, status=status)["truthy"]:
                result.outcomes.append((name, "skipped"))
                if "id" in step:
                    ctx["steps"][step["id"]] = {"outputs": {}, "outcome": "skipped", "conclusion": "skipped"}
                continue
            env = {k: self.expressions.template(str(v), ctx, ws) for k, v in (step.get("env") or {}).items()}
            if "uses" in step:
                with_ = {k: self.expressions.template(str(v), ctx, ws) for k, v in (step.get("with") or {}).items()}
                outcome, outputs = self.uses(step["uses"], with_)
            else:
                outcome, outputs, log = self.shell(step, env, job_env, path_extra, event_path)
                result.logs[name] = log
            result.outcomes.append((name, outcome))
            # continue-on-error (a composite step has it too: GitHub's metadata syntax,
            # runs.steps[*].continue-on-error; an expression or a boolean): a failed step's
            # outcome stays "failure", its conclusion is "success" and the job's status is
            # untouched, so later steps run under success() (actions/runner
            # docs/adrs/0274-step-outcome-and-conclusion.md).
            conclusion = outcome
            if outcome == "failure" and self.continue_on_error(step, ctx, ws, status):
                conclusion = "success"
            result.conclusions.append((name, conclusion))
            if "id" in step:
                ctx["steps"][step["id"]] = {"outputs": outputs, "outcome": outcome, "conclusion": conclusion}
            if conclusion == "failure":
                status = "failure"
                ctx["job"]["status"] = "failure"
        result.steps = ctx["steps"]
        result.outputs = {k: self.expressions.template(str(v["value"]), ctx, ws) for k, v in (action.get("outputs") or {}).items()}
        result.failed = status == "failure"
        return result

    def continue_on_error(self, step: dict, ctx: dict, ws: str, status: str) -> bool:
        """``continue-on-error`` of a step: YAML ``true``/``false`` or a ``${{ }}`` expression."""
        value = step.get("continue-on-error", False)
        if isinstance(value, bool):
            return value
        m = re.fullmatch(r"\s*\$\{\{(.*)\}\}\s*", str(value), re.S)
        return bool(self.expressions.evaluate(m.group(1).strip() if m else str(value), ctx, ws, condition=True, status=status)["truthy"])

    def shell(self, step: dict, env: dict[str, str], job_env: dict[str, str], path_extra: list[str], event_path: Path) -> tuple[str, dict, str]:
        assert step.get("shell") == "bash", step
        if step["name"] == "Install runway-deploy":
            return "success", {}, "(this checkout is importable)"
        files = {k: self.temp / f"{k.lower()}-{os.urandom(4).hex()}" for k in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH")}
        for f in files.values():
            f.write_text("", encoding="utf-8")
        script = self.temp / f"script-{os.urandom(4).hex()}.sh"
        script.write_text(step["run"], encoding="utf-8")
        base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "GH_", "INPUT_"))}
        full = {
            **base, **job_env,
            "PATH": os.pathsep.join([*path_extra, str(self.bin), os.environ["PATH"]]),
            "PYTHONPATH": str(REPO), "CI": "true", "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(self.workspace), "GITHUB_REPOSITORY": "acme/shop", "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_EVENT_PATH": str(event_path), "GITHUB_SHA": self.sha, "GITHUB_REF": self.ref, "GITHUB_RUN_ID": "4242",
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_API_URL": "https://api.github.com",
            "GITHUB_ACTION_PATH": str(REPO), "RUNNER_TEMP": str(self.runner_temp), "RUNNER_OS": "Linux",
            "GITHUB_STEP_SUMMARY": str(self.summary), **{k: str(v) for k, v in files.items()},
            # gh to the fake API: its plain-http development host, through the proxy on 127.0.0.1.
            "GH_HOST": "github.localhost", "HTTP_PROXY": self.github.proxy, "http_proxy": self.github.proxy,
            "GH_CONFIG_DIR": str(self.temp / "gh-config"), "GH_NO_UPDATE_NOTIFIER": "1", "GH_PROMPT_DISABLED": "1",
            **env,
        }
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", str(script)], cwd=self.workspace,
                              env=full, capture_output=True, text=True, timeout=600)
        outputs = read_file_command(files["GITHUB_OUTPUT"])
        job_env.update(read_file_command(files["GITHUB_ENV"]))
        path_extra[:0] = [p for p in files["GITHUB_PATH"].read_text(encoding="utf-8").splitlines() if p]
        return ("success" if proc.returncode == 0 else "failure"), outputs, proc.stdout + proc.stderr

    def uses(self, uses: str, with_: dict[str, str]) -> tuple[str, dict]:
        if uses.startswith("actions/setup-python@"):
            return "success", {"python-version": sys.version.split()[0]}
        if uses.startswith("github/codeql-action/upload-sarif@"):
            sarif_file = Path(with_["sarif_file"])
            if not sarif_file.is_file():
                return "failure", {}
            payload = {"commit_sha": self.sha, "ref": self.ref, "sarif": base64.b64encode(gzip.compress(sarif_file.read_bytes())).decode(),
                       "checkout_uri": self.workspace.as_uri(), "tool_names": ["runway-deploy"], "category": with_.get("category", "")}
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": self.github.proxy}))
            req = urllib.request.Request("http://api.github.localhost/repos/acme/shop/code-scanning/sarifs", data=json.dumps(payload).encode(),
                                         method="POST", headers={"Authorization": f"token {self.github.state.token}", "Content-Type": "application/json"})
            try:
                with opener.open(req, timeout=30) as resp:
                    return ("success" if resp.status == 202 else "failure"), {"sarif-id": json.loads(resp.read())["id"]}
            except urllib.error.HTTPError:
                # upload-sarif fails the step on a refusal (403: code scanning off, or a fork's
                # read-only token: "Resource not accessible by integration").
                return "failure", {}
        raise AssertionError(f"no stand-in for {uses}")
