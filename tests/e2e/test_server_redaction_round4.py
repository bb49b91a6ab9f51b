"""Issue 23 item 6: the round-4 credential shapes (tests/core/test_secret_shapes_round4.py) as
`env` values, through the real runway-lsp over raw JSON-RPC (every answer and notification of
hover, outline, lenses, hints, completion, `runway/plan`, `runway/costs`, diagnostics) and
through `runway-deploy plan --format json`: none is quoted. Before, `runway/plan` and the plan
JSON printed each of them verbatim."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rawlsp import RawServer
from deploy_engine.cli import main

REPO = Path(__file__).resolve().parents[2]
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
VALUES = {
    "STS_EXAMPLE": ("AQoDYXdzEJr1K0fQNo6hjYvbEFUxbsNhcpvmbYsKtkYNQeKwL7eIkjW4k9YhKWZnZ1hD", "EJr1K0fQNo6hjYvbEFUxbsNh"),
    "SLACK_CAPS": ("XOXB-123456789012-1234567890123-ABCDEFGHIJKLMNOPQRSTUVWX", "ABCDEFGHIJKLMNOPQRSTUVWX"),
    "JWT_UNSIGNED": ("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.", "eyJzdWIiOiIxMjM0NTY3ODkwIn0"),
    "JWT_SHORT_SIG": ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIyIn0.c2ln", "eyJzdWIiOiIyIn0"),
    "PG_URL": ("postgres://app:Zm9v//YmFy+cXV4@db.internal:5432/app", "Zm9v//YmFy"),
}


def product(tmp_path: Path) -> Path:
    dest = tmp_path / "orders"
    shutil.copytree(REPO / "examples" / "orders", dest)
    root = dest / "runway.yaml"
    extra = "".join(f'      {k}: "{v}"\n' for k, (v, _) in VALUES.items())
    text = root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0")
    text = text.replace("      MB_DB_TYPE: postgres\n", "      MB_DB_TYPE: postgres\n" + extra, 1)
    root.write_text(text, encoding="utf-8")
    return dest


def assert_clean(text: str) -> None:
    for name, (_, secret) in VALUES.items():
        at = text.find(secret)
        assert at < 0, (name, text[max(0, at - 200):at + 60])


def test_no_answer_of_the_server_quotes_a_round_4_shape(tmp_path):
    folder = product(tmp_path)
    root = folder / "runway.yaml"
    text = root.read_text(encoding="utf-8")
    lines = text.splitlines()
    srv = RawServer(folder)
    try:
        srv.initialize(folder, None)
        uri = root.as_uri()
        srv.open(uri, text)
        srv.wait_publish(uri, 1)
        td = {"textDocument": {"uri": uri}}
        requests = [("textDocument/documentSymbol", td), ("textDocument/codeLens", td),
                    ("textDocument/inlayHint", {**td, "range": {"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}}}),
                    ("runway/plan", {"uri": uri}), ("runway/costs", {"uri": uri}), ("textDocument/diagnostic", td)]
        for i, line in enumerate(lines):
            if any(line.strip().startswith(k) for k in VALUES):
                for ch in (8, line.index(":") + 4, len(line) - 2):
                    pos = {**td, "position": {"line": i, "character": ch}}
                    requests += [("textDocument/hover", pos), ("textDocument/completion", pos),
                                 ("textDocument/codeAction", {**td, "range": {"start": {"line": i, "character": 0}, "end": {"line": i, "character": len(line)}},
                                                              "context": {"diagnostics": []}})]
        answers = []
        for n, (method, params) in enumerate(requests):
            srv.send({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
            answers.append(srv.response(n))
        srv.drain(0.2)
    finally:
        rc, _err = srv.close()
    assert rc == 0
    plan = answers[3]["result"]
    assert plan["environments"], plan  # the plan was answered: its env values were in it
    assert_clean(json.dumps(answers) + json.dumps(srv.inbox))


def test_plan_json_quotes_no_round_4_shape(tmp_path, capsys):
    folder = product(tmp_path)
    rc = main(["plan", str(folder), "--format", "json"], environ={})
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "SLACK_CAPS" in out
    assert_clean(out + err)
