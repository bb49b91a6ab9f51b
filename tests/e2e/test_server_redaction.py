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

import pytest
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
    # A misspelt use of the token-named resource: its diagnostic's message and data name it.
    text = text.replace("uses: [main-db]\n    expose: public", f"uses: [main-db, {GITLAB[:-1]}]\n    expose: public", 1)
    root.write_text(text, encoding="utf-8")
    return dest


def views(uri: str, lines: int) -> list[tuple[str, dict]]:
    """The requests whose answers show names and values: outline, lenses, hints, plan, costs."""
    td = {"textDocument": {"uri": uri}}
    return [
        ("textDocument/documentSymbol", td),
        ("textDocument/codeLens", td),
        ("textDocument/inlayHint", {**td, "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}}}),
        ("runway/plan", {"uri": uri}),
        ("runway/costs", {"uri": uri}),
    ]


def ask_all(srv: RawServer, requests: list[tuple[str, dict]]) -> tuple[list[dict], str]:
    """Each request's answer, in order, and every message received as one JSON text."""
    answers = []
    for n, (method, params) in enumerate(requests):
        srv.send({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
        answers.append(srv.response(n))
    srv.drain(0.2)
    return answers, json.dumps(answers) + json.dumps(srv.inbox)


#: An editor that takes the outline as a tree and pulls diagnostics (VS Code): the outline,
#: lenses, hints and diagnostics are then redacted where they are built (runway_lsp/convert/
#: redacted.py), not walked at send.
TREE_AND_PULL = {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True}, "diagnostic": {}}}


@pytest.mark.parametrize("capabilities", [None, TREE_AND_PULL], ids=["plain", "tree-and-pull"])
def test_every_server_message_is_redacted(tmp_path, capabilities):
    folder = product(tmp_path)
    root = folder / "runway.yaml"
    text = root.read_text(encoding="utf-8")
    lines = text.splitlines()
    (res_line,) = [i for i, t in enumerate(lines) if t.strip() == f"{GITLAB}:"]
    (wl_line,) = [i for i, t in enumerate(lines) if t.strip() == f"{OPENAI}:"]
    uses_line = next(i for i in range(wl_line, len(lines)) if lines[i].strip().startswith("uses: ["))
    srv = RawServer(folder)
    try:
        srv.initialize(folder, capabilities)
        uri = root.as_uri()
        srv.open(uri, text)
        if capabilities is None:
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
            ("textDocument/diagnostic", td),
            # `uses` of the OpenAI-named workload: every resource is offered, the GitLab one too.
            ("textDocument/completion", {**td, "position": {"line": uses_line, "character": lines[uses_line].index("[") + 1}}),
        ]
        answers = []
        for n, (method, params) in enumerate(requests):
            srv.send({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
            answers.append(srv.response(n))
        srv.drain(0.2)
        # An edit's newText is the user's own text, kept as written (a completion inserts the
        # name as declared): everything else is checked.
        for it in answers[-1]["result"]["items"]:
            it["textEdit"].pop("newText")
        everything = json.dumps(answers) + json.dumps(srv.inbox)
    finally:
        rc, _err = srv.close()
    assert rc == 0
    assert all("result" in a for a in answers), answers
    assert answers[0]["result"] is not None and answers[5]["result"]["environments"]
    assert REDACTED in json.dumps(answers[7]) or REDACTED in json.dumps(srv.inbox)  # the misspelt use's diagnostic
    assert len(answers[8]["result"]["items"]) >= 3  # the completion offered the resources
    if capabilities is not None:
        assert any(s.get("children") for s in answers[2]["result"])  # the outline as a tree
    # ... nor as the variables their consumers receive (round 3: `GLPAT_…_URL`, `SK_…_URL`),
    # which hover, the plan and the lenses show: the suffix stays.
    for token in (GITLAB, OPENAI, "GLPAT_ABCDEFGHIJ", "SK_ABCDEFGHIJ"):
        at = everything.find(token)
        assert at < 0, everything[max(0, at - 300):at + 60]
    assert REDACTED in everything and f"{REDACTED}_URL" in everything


def test_edits_and_uris_are_kept_and_data_lists_redacted():
    doc = {"changes": {"file:///x/" + GITLAB: [{"range": {}, "newText": GITLAB}]},
           "data": {"names": [GITLAB, "ok-name"], "member": OPENAI}, "title": f"rename {GITLAB}"}
    out = redact_doc(doc, frozenset({"newText", "uri"}))
    assert out["changes"]["file:///x/" + REDACTED][0]["newText"] == GITLAB  # keys are redacted, newText never
    assert out["data"] == {"names": [REDACTED, "ok-name"], "member": REDACTED}
    assert out["title"] == f"rename {REDACTED}"
    clean = {"a": ["b", 1, None], "c": "d"}
    assert redact_doc(clean) is clean


def test_what_the_builders_redact_is_every_text_field():
    """runway_lsp/convert/redacted.py: every text field of a lens, hint, diagnostic and symbol
    (children too) is redacted, and only those lists are marked as not to be walked again."""
    from lsprotocol import types

    from runway_lsp.convert import redacted

    pos = types.Position(line=0, character=0)
    rng = types.Range(start=pos, end=pos)
    lens = types.CodeLens(range=rng, command=types.Command(title=GITLAB, command="runway.showCosts", arguments=["file:///x", {"name": GITLAB}],
                                                             tooltip=OPENAI), data={"names": [OPENAI]})
    hint = types.InlayHint(position=pos, label=GITLAB, tooltip=OPENAI, data={"n": GITLAB})
    diag = types.Diagnostic(range=rng, message=f"unknown {GITLAB}", code="RW120", source="runway", data={"names": [OPENAI]},
                            related_information=[types.DiagnosticRelatedInformation(location=types.Location(uri="file:///x", range=rng), message=OPENAI)])
    child = types.DocumentSymbol(name=OPENAI, kind=types.SymbolKind.Object, range=rng, selection_range=rng, detail=GITLAB)
    symbol = types.DocumentSymbol(name=GITLAB, kind=types.SymbolKind.Object, range=rng, selection_range=rng, children=[child])
    item = types.CompletionItem(label=GITLAB, detail=OPENAI, sort_text=GITLAB, filter_text=GITLAB,
                                label_details=types.CompletionItemLabelDetails(description=OPENAI),
                                documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=f"**{GITLAB}**"),
                                text_edit=types.TextEdit(range=rng, new_text="as typed"))
    built = [redacted.lenses([lens]), redacted.hints([hint]), redacted.diagnostics([diag]), redacted.symbols([symbol]),
             redacted.completion_items([item])]
    assert all(redacted.is_redacted(b) for b in built)
    from pygls.protocol import default_converter

    sent = json.dumps([default_converter().unstructure(list(b)) for b in built])
    assert GITLAB not in sent and OPENAI not in sent and sent.count(REDACTED) == 19
    # A shape the cleaner does not know (label parts) stays a plain list: walked at send.
    parts = types.InlayHint(position=pos, label=[types.InlayHintLabelPart(value=GITLAB)])
    assert not redacted.is_redacted(redacted.hints([parts]))
    assert redacted.is_redacted(types.CompletionList(is_incomplete=False, items=built[-1]))


# Adversary round 2 (rows L1-L5): URL passwords with an empty user or a `/`, registry
# credentials without a scheme in `image`, a Pulumi token as a resource name (a valid DNS
# label), vendor families, secret-named env values. Every message and the stderr log.
ROUND2 = """runway: 1
product: shop
region: us-east-1
environments:
  dev: {}
resources:
  pul-0123456789abcdef0123456789abcdef01234567:
    kind: queue
  q2:
    kind: queue
    size: hvs.CAESIJlWh0Yw3FZcO8tMbGt8ptTYxM2QkW9vb0J8KLn1QzdXGh4KHGh2cy5
workloads:
  api:
    image: "https://deploy:hunter2hunter2@registry.example.com/team/api@sha256:aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899"
    port: 80
    health: {path: /h}
    expose: internal
    reason: "no-managed-fit: see redis://:hunter2hunter2@cache:6379"
    uses: [pul-0123456789abcdef0123456789abcdef01234567, "mysql://u:pa/ss@h/db", "xghp_0123456789abcdefghijABCDEFGHIJ012345"]
    env:
      DB_URL: "postgres://app:Zm9v/YmFy+cXV4@db:5432/app"
      DB_PASS: value-of-db-pass
      ENCRYPTION_KEY: value-of-encryption-key
  registry-example:
    image: deploy:hunter2hunter2@registry.example.com/api:1
    port: 80
    health: {path: /h}
    expose: internal
    reason: "no-managed-fit: x"
"""
ROUND2_SECRETS = ("hunter2", "pul-0123", "hvs.CAES", "pa/ss", "ghp_0123", "Zm9v", "value-of-db-pass", "value-of-encryption-key")


def test_round2_shapes_reach_no_server_message_and_rw147_fires(tmp_path):
    folder = tmp_path / "shop"
    folder.mkdir()
    root = folder / "runway.yaml"
    root.write_text(ROUND2, encoding="utf-8")
    lines = ROUND2.splitlines()
    srv = RawServer(folder)
    try:
        srv.initialize(folder)
        uri = root.as_uri()
        srv.open(uri, ROUND2)
        publish = srv.wait_publish(uri, 1)
        td = {"textDocument": {"uri": uri}}
        hovers = [("textDocument/hover", {**td, "position": {"line": n, "character": 4}}) for n in range(len(lines))]
        _answers, everything = ask_all(srv, hovers + views(uri, len(lines)))
    finally:
        rc, err = srv.close()
    assert rc == 0
    for token in ROUND2_SECRETS:
        at = everything.find(token)
        assert at < 0, (token, everything[max(0, at - 300):at + 60])
        assert token not in err, token
    flagged = {d["range"]["start"]["line"] for d in publish["diagnostics"] if d.get("code") == "RW147"}
    for needle in ("image: \"https://deploy", "image: deploy:", "DB_URL:", "DB_PASS:", "ENCRYPTION_KEY:"):
        (line,) = [i for i, t in enumerate(lines) if needle in t]
        assert line in flagged, (needle, sorted(flagged))
