"""Issue 16 item 3: one redaction at every output edge of the server, as the CLI has one.

A resource named like a GitLab token and a workload named like an OpenAI key (both valid DNS
labels, so the model accepts them) are shown by hover, outline, code lenses, inlay hints,
``runway/plan``, ``runway/costs`` and diagnostics' ``data``. Every message the real
runway-lsp sends (raw JSON-RPC over pipes) is checked: neither token appears, the CLI's plan
does not show them either, and an edit's ``newText`` is left as the user wrote it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rawlsp import RawServer
from runway_core.text import REDACTED, redact_doc

REPO = Path(__file__).resolve().parents[2]
GITLAB = "glpat-abcdefghijklmnopqrst12"
OPENAI = "sk-abcdefghijklmnopqrstuvwxyz012345"


def product(tmp_path: Path) -> Path:
    dest = tmp_path / "orders"
    shutil.copytree(REPO / "examples" / "orders", dest)
    root = dest / "runway.yaml"
    text = root.read_text(encoding="utf-8").replace("invoices", GITLAB).replace("metabase:\n", f"{OPENAI}:\n", 1)
    root.write_text(text, encoding="utf-8")
    return dest


def test_every_server_message_is_redacted(tmp_path):
    folder = product(tmp_path)
    root = folder / "runway.yaml"
    text = root.read_text(encoding="utf-8")
    lines = text.splitlines()
    (res_line,) = [i for i, t in enumerate(lines) if t.strip() == f"{GITLAB}:"]
    (wl_line,) = [i for i, t in enumerate(lines) if t.strip() == f"{OPENAI}:"]
    srv = RawServer(folder)
    try:
        srv.initialize(folder)
        uri = root.as_uri()
        srv.open(uri, text)
        srv.wait_publish(uri, 1)
        td = {"textDocument": {"uri": uri}}
        requests = [
            ("textDocument/hover", {**td, "position": {"line": res_line, "character": 4}}),
            ("textDocument/hover", {**td, "position": {"line": wl_line, "character": 4}}),
            ("textDocument/documentSymbol", td),
            ("textDocument/codeLens", td),
            ("textDocument/inlayHint", {**td, "range": {"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}}}),
            ("runway/plan", {"uri": uri}),
            ("runway/costs", {"uri": uri}),
        ]
        answers = []
        for n, (method, params) in enumerate(requests):
            srv.send({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
            answers.append(srv.response(n))
        srv.drain(0.2)
        everything = json.dumps(answers) + json.dumps(srv.inbox)
    finally:
        rc, _err = srv.close()
    assert rc == 0
    assert all("result" in a for a in answers), answers
    assert answers[0]["result"] is not None and answers[5]["result"]["environments"]
    for token in (GITLAB, OPENAI):
        at = everything.find(token)
        assert at < 0, everything[max(0, at - 300):at + 60]
    assert REDACTED in everything


def test_edits_and_uris_are_kept_and_data_lists_redacted():
    doc = {"changes": {"file:///x/" + GITLAB: [{"range": {}, "newText": GITLAB}]},
           "data": {"names": [GITLAB, "ok-name"], "member": OPENAI}, "title": f"rename {GITLAB}"}
    out = redact_doc(doc, frozenset({"newText", "uri"}))
    assert out["changes"]["file:///x/" + REDACTED][0]["newText"] == GITLAB  # keys are redacted, newText never
    assert out["data"] == {"names": [REDACTED, "ok-name"], "member": REDACTED}
    assert out["title"] == f"rename {REDACTED}"
    clean = {"a": ["b", 1, None], "c": "d"}
    assert redact_doc(clean) is clean
