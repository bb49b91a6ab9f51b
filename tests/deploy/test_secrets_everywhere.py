"""One test drives every output with generated credentials and secret-looking values and
asserts that none appears anywhere it should not (issue 7, deliverable 4; docs/reliability.md).

**Generated credentials** (new random values every run): the database admin password that
``up`` generates, the Pulumi passphrase and the Infisical client secret. They must appear in no
output at all: CLI ``check``/``plan`` in every format (text, json, markdown, github, sarif,
the job summary), ``preview``/``up`` output (text and json), receipts, every file the runs
leave in the product, exception messages (a Pulumi failure quoting the password, a bug with
``RUNWAY_DEBUG=1`` tracebacks), log records (caplog, every logger at DEBUG), the language
server's responses (diagnostics, hovers, lenses, hints, completion, symbols, code actions,
``runway/plan``, ``runway/costs``) and its stderr at DEBUG. In the Pulumi resource inputs
(the real program, run by ``up`` under Pulumi mocks) the password exists only as a Pulumi
secret, in the inputs that must carry it (RDS master password, the proxy's Secrets Manager
secret).

**Secret-looking values** written in a workload's plain ``env`` (an AWS access key id, an AWS
secret key, a ``*_PASSWORD``, a URL with a password): ``env`` is plain text by design
(docs/format.md), so they reach the one place the author put them, the container's plain
environment in the task definition. Everywhere else the tooling must not spread them: no CLI
output, plan, receipt, log, hover or other response quotes them; RW147 warns about each
(at its value, without quoting it).
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import re
import secrets
import shutil
import string
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pulumi = pytest.importorskip("pulumi", reason="the Pulumi program part needs the [deploy] extra")
pytest.importorskip("pulumi_aws", reason="the Pulumi program part needs the [deploy] extra")

from lsprotocol import types  # noqa: E402

from deploy_engine import automation, stack_outputs  # noqa: E402
from deploy_engine.automation import PulumiFailed  # noqa: E402
from deploy_engine.engine_events import PreviewSummary, Step, UpSummary  # noqa: E402
from deploy_engine.cli import main  # noqa: E402
from lspclient import EXAMPLES, TIMEOUT, init, make_client, vscode_caps  # noqa: E402
import test_infisical  # noqa: E402
from test_infisical import FakeInfisical  # noqa: E402
from test_program_mocks import SECRET_INPUTS, SECRET_SIG, SIG_KEY, Record  # noqa: E402

SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
NETWORK = {
    "RUNWAY_VPC_ID": "vpc-0123456789abcdef0",
    "RUNWAY_PRIVATE_SUBNET_IDS": "subnet-0123456789abcdef0,subnet-0123456789abcdef1",
    "RUNWAY_PUBLIC_SUBNET_IDS": "subnet-0123456789abcdef2,subnet-0123456789abcdef3",
}


def _random(alphabet: str, n: int) -> str:
    r = random.SystemRandom()
    return "".join(r.choice(alphabet) for _ in range(n))


def found_pulumi(name, path=None):
    return "/opt/pulumi/bin/pulumi"


def _leaks(needles: dict[str, str], where: str, text: str) -> list[str]:
    return [f"{label} in {where}" for label, value in needles.items() if value and value in text]


class Outputs:
    """Everything the test saw, by where it came from."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, where: str, value: Any) -> None:
        self.items.append((where, value if isinstance(value, str) else json.dumps(value, default=repr, ensure_ascii=False)))


# --------------------------------------------------------------------------------------
# The language server part (runs first: the Pulumi mocks own the event loop afterwards)
# --------------------------------------------------------------------------------------


async def _lsp_session(product: Path, stderr_file: Path, seen: Outputs) -> None:
    client = make_client()
    cmd = ["sh", "-c", f'exec "$0" -m runway_lsp --stdio --log-level DEBUG 2>>"{stderr_file}"', sys.executable]
    await client.start_io(*cmd)
    try:
        await asyncio.wait_for(init(client, vscode_caps(), product), TIMEOUT)
        root = product / "runway.yaml"
        text = root.read_text(encoding="utf-8")
        uri = root.as_uri()
        td = types.TextDocumentIdentifier(uri=uri)
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))

        async def ask(what: str, coro) -> Any:
            result = await asyncio.wait_for(coro, TIMEOUT)
            seen.add(f"lsp {what}", client.protocol._converter.unstructure(result) if result is not None else None)
            return result

        report = await ask("diagnostics", client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=td)))
        rw147 = [d for d in report.items if d.code == "RW147"]
        assert len(rw147) == 4, [d.code for d in report.items]
        lines = text.splitlines()
        positions = [types.Position(line=i, character=c) for i, line in enumerate(lines) for c in range(0, len(line) + 1, 3)
                     if any(k in line for k in ("AWS_", "DB_PASSWORD", "LEGACY", "metabase", "main-db", "dev:", "MB_DB_TYPE"))]
        for pos in positions:
            await ask(f"hover {pos.line}:{pos.character}", client.text_document_hover_async(types.HoverParams(text_document=td, position=pos)))
            await ask(f"completion {pos.line}:{pos.character}", client.text_document_completion_async(types.CompletionParams(text_document=td, position=pos)))
        for d in report.items:
            await ask(f"code actions {d.code}", client.text_document_code_action_async(types.CodeActionParams(
                text_document=td, range=d.range, context=types.CodeActionContext(diagnostics=[d]))))
        await ask("code lens", client.text_document_code_lens_async(types.CodeLensParams(text_document=td)))
        full = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(lines), character=0))
        await ask("inlay hints", client.text_document_inlay_hint_async(types.InlayHintParams(text_document=td, range=full)))
        await ask("symbols", client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=td)))
        for method in ("runway/plan", "runway/costs"):
            seen.add(f"lsp {method}", await asyncio.wait_for(client.protocol.send_request_async(method, {"uri": uri}), TIMEOUT))
        seen.add("lsp publishes", [client.protocol._converter.unstructure(p) for p in client.published])  # type: ignore[attr-defined]
        await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
    finally:
        await client.stop()


# --------------------------------------------------------------------------------------
# The test
# --------------------------------------------------------------------------------------


@pytest.mark.usefixtures("account_checks_pass")
def test_no_generated_credential_or_secret_looking_value_leaks_anywhere(tmp_path, monkeypatch, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    # Generated for this run: the values the deploy knows as secrets...
    passphrase = "pp-" + secrets.token_urlsafe(24)
    infisical_secret = "is-" + secrets.token_urlsafe(24)
    # ... and secret-looking values an author wrote in a plain `env`.
    looking = {
        "AWS access key id": "AKIA" + _random(string.ascii_uppercase + string.digits, 16),
        "AWS secret key": _random(string.ascii_letters + string.digits, 30) + "/" + _random(string.ascii_letters + string.digits, 9),
        "env password": "envpw-" + secrets.token_urlsafe(16),
        "password in a URL": "urlpw-" + secrets.token_urlsafe(16),
    }
    product = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", product)
    root = product / "runway.yaml"
    text = root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0").replace(
        "      MB_DB_TYPE: postgres\n",
        "      MB_DB_TYPE: postgres\n"
        f"      AWS_ACCESS_KEY_ID: {looking['AWS access key id']}\n"
        f"      AWS_SECRET_ACCESS_KEY: {looking['AWS secret key']}\n"
        f"      DB_PASSWORD: {looking['env password']}\n"
        f"      LEGACY_DB_URL: \"postgres://app:{looking['password in a URL']}@legacy-db:5432/app\"\n",
    )
    root.write_text(text, encoding="utf-8")
    seen = Outputs()

    # 1. The language server: every response and its DEBUG stderr.
    server_log = tmp_path / "runway-lsp.stderr"
    asyncio.run(_lsp_session(product, server_log, seen))
    seen.add("lsp stderr", server_log.read_text(encoding="utf-8", errors="replace"))

    # 2. check and plan, every format; the job summary.
    summary = tmp_path / "step-summary.md"
    for argv in (["check"], ["check", "--format", "json"], ["check", "--format", "github"], ["check", "--format", "sarif"],
                 ["plan", "--details"], ["plan", "--format", "json"], ["plan", "--format", "markdown", "--details"],
                 ["plan", "--format", "github"], ["plan", "--format", "sarif"]):
        out, err = io.StringIO(), io.StringIO()
        rc = main([*argv, str(product)], stdout=out, stderr=err, environ={"GITHUB_STEP_SUMMARY": str(summary)})
        assert rc == 0, (argv, err.getvalue())
        seen.add(f"runway-deploy {' '.join(argv)} (stdout)", out.getvalue())
        seen.add(f"runway-deploy {' '.join(argv)} (stderr)", err.getvalue())
        if argv == ["check", "--format", "json"]:
            codes = [d["code"] for d in json.loads(out.getvalue())["diagnostics"]]
            assert codes.count("RW147") == 4, codes
    seen.add("GITHUB_STEP_SUMMARY", summary.read_text(encoding="utf-8"))

    # 3. preview and up (twice: a success writing to Infisical, a Pulumi failure quoting
    #    the password) and a bug with RUNWAY_DEBUG=1, the real program under Pulumi mocks.
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setattr(automation, "stored_state", lambda target: stack_outputs.StoredState())
    monkeypatch.setattr(automation, "preview", lambda target, on_output: PreviewSummary({"create": 1}, (Step("urn:x", "aws:rds/instance:Instance", "create"),)))
    generated: dict[str, str] = {}
    recorded: list[Record] = []
    endpoint = {"main-db": {"endpoint": "dev-main-db.mock.rds.amazonaws.com", "proxy_endpoint": "dev-main-db.proxy-mock.rds.amazonaws.com", "port": 5432}}

    def run_program_under_mocks(target) -> None:
        from deploy_engine.resources import run_under_mocks

        records, _ = run_under_mocks(target.program(), product=target.product, environment=target.environment, region="us-east-1", mask=False)
        recorded[:] = [Record(r["type"], r["name"], r["inputs"], r["options"], r["parent"], r["urn"]) for r in records]

    def good_up(target, on_output):
        for name, cred in target.credentials.items():
            generated[name] = cred.password.reveal()
        run_program_under_mocks(target)
        for pw in generated.values():  # a careless provider echoing what it got
            on_output(f"  + aws:rds/instance:Instance password={pw} url=postgresql://runway_admin:{pw}@h:5432/x")
        on_output(f"  PULUMI_CONFIG_PASSPHRASE={passphrase}")
        return UpSummary({"create": len(recorded)}, tuple(r.urn for r in recorded[:5]), {"resources": endpoint})

    def failing_up(target, on_output):
        pw = target.credentials["main-db"].password.reveal()
        generated["main-db (failed run)"] = pw
        on_output(f"error: InvalidParameterValue: MasterUserPassword {pw} rejected")
        raise PulumiFailed(f"pulumi up failed: MasterUserPassword {pw}; passphrase {passphrase}; client secret {infisical_secret}")

    def buggy_up(target, on_output):
        pw = target.credentials["main-db"].password.reveal()
        generated["main-db (buggy run)"] = pw
        raise RuntimeError(f"bug holding {pw} and {infisical_secret} and {passphrase}")

    monkeypatch.setattr(test_infisical, "CLIENT_SECRET", infisical_secret)  # the fake accepts this run's generated secret
    srv = FakeInfisical()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    environ = {"RUNWAY_DEPLOY_JOB": "protected", **NETWORK, "PULUMI_CONFIG_PASSPHRASE": passphrase, "INFISICAL_HOST": srv.url,
               "INFISICAL_CLIENT_ID": "machine-identity-id", "INFISICAL_CLIENT_SECRET": infisical_secret, "INFISICAL_PROJECT_ID": "proj-123",
               "GITHUB_STEP_SUMMARY": str(summary)}
    try:
        runs = [("preview", None, ["preview", "--format", "json"]), ("up", good_up, ["up", "--format", "json"]),
                ("up", failing_up, ["up"]), ("up", buggy_up, ["up", "--format", "json"])]
        for n, (command, stub, argv) in enumerate(runs):
            if stub is not None:
                monkeypatch.setattr(automation, "up", stub)
            env = dict(environ, RUNWAY_DEBUG="1") if stub is buggy_up else environ
            out, err = io.StringIO(), io.StringIO()
            rc = main([*argv, str(product), "--env", "dev"], stdout=out, stderr=err, environ=env, which=found_pulumi)
            assert rc == {0: 0, 1: 0, 2: 7, 3: 70}[n], (argv, err.getvalue())
            seen.add(f"runway-deploy {' '.join(argv)} #{n} (stdout)", out.getvalue())
            seen.add(f"runway-deploy {' '.join(argv)} #{n} (stderr)", err.getvalue())
            if stub is good_up:
                doc = json.loads(out.getvalue())
                assert doc["outcome"] == "succeeded" and len(doc["secrets_written"]) == 6, doc
            if stub is buggy_up:
                assert "Traceback" in err.getvalue() and "[redacted]" in err.getvalue()
    finally:
        srv.shutdown()
        srv.server_close()
    captured = capsys.readouterr()
    seen.add("captured stdout", captured.out)
    seen.add("captured stderr", captured.err)
    assert generated.get("main-db") and srv.secrets[("dev", "/runtime/main-db", "MAIN_DB_PASSWORD")] == generated["main-db"]

    # 4. Every file the runs left in the product (receipts, lease folder, state...) and the logs.
    for path in sorted(p for p in product.rglob("*") if p.is_file()):
        data = path.read_bytes().decode("utf-8", "replace")
        seen.add(f"file {path.relative_to(product)}", data)
    assert list((product / ".runway" / "receipts" / "dev").glob("*.json"))
    for record in caplog.records:
        # In this process, pygls is the test's own LSP client logging what it sent (the
        # runway file's text): the server's logs are its stderr, checked above.
        if not record.name.startswith(("pygls", "asyncio")):
            seen.add(f"log {record.name}", record.getMessage() + (record.exc_text or ""))

    # 5. The Pulumi resource inputs of the real program.
    assert recorded, "the program declared nothing"
    inputs_leaks: list[str] = []
    secret_holders: set[tuple[str, str]] = set()
    for record in recorded:
        def scrub(value: Any, top: str = "") -> Any:
            if isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG:
                secret_holders.add((record.type, top))
                return "<secret>" if (record.type, top) in SECRET_INPUTS else scrub(value["value"], top)
            if isinstance(value, dict):
                return {k: scrub(v, top or k) for k, v in value.items()}
            if isinstance(value, list):
                return [scrub(v, top) for v in value]
            return value
        plain = json.dumps(scrub(record.inputs), sort_keys=True, default=str)
        inputs_leaks += _leaks({"generated password": generated["main-db"], "passphrase": passphrase, "Infisical secret": infisical_secret},
                               f"Pulumi inputs of {record.type} {record.name}", plain)
        if record.type == "aws:ecs/taskDefinition:TaskDefinition" and "metabase" in record.name:
            env_plain = json.dumps(scrub(record.inputs.get("containerDefinitions")), default=str)
            assert all(v in env_plain for v in looking.values()), "the author's plain env reaches the container's environment"
            continue  # the one place the author put them
        inputs_leaks += _leaks(looking, f"Pulumi inputs of {record.type} {record.name}", plain)
    assert not inputs_leaks, inputs_leaks
    assert {h for h in secret_holders if h in SECRET_INPUTS} == {("aws:rds/instance:Instance", "password"),
                                                                 ("aws:secretsmanager/secretVersion:SecretVersion", "secretString")}

    # 6. Nothing anywhere.
    known = {"generated password": generated["main-db"], "generated password (failed run)": generated["main-db (failed run)"],
             "generated password (buggy run)": generated["main-db (buggy run)"], "Pulumi passphrase": passphrase,
             "Infisical client secret": infisical_secret}
    leaks: list[str] = []
    # The plan is the deploy's input: its JSON (`plan --format json`, `runway/plan`) holds each
    # container's plain `env` verbatim, as the task definition does (docs/reliability.md).
    plain_env_allowed = ("file runway.yaml", "runway-deploy plan --format json (stdout)", "lsp runway/plan")
    for where, value in seen.items:
        leaks += _leaks(known, where, value)
        if where not in plain_env_allowed:
            leaks += _leaks(looking, where, value)
    assert not leaks, "\n".join(leaks)
    assert len(seen.items) > 100  # every face was driven
    assert re.search(r"RW147", " ".join(v for w, v in seen.items if w.startswith("runway-deploy check")))
