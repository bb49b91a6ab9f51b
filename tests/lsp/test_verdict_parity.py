"""Issue 23: the language server's plan verdict (``runway/plan``, ``runway/costs``: the status
bar and the plan view) is the CLI's (``runway-deploy plan --format json``), computed by one
function (:func:`runway_core.planner.shown_verdict`). For runways within their caps, over one,
unprovable (a price missing for the region, an item whose size the catalogue lacks, a workload
with a schema error, a resource kind typo), and an environment without a cap, each environment's verdict from the real server equals the CLI's.

Before, the server showed the planner's verdict alone: an item not estimated (an unknown size,
RW130) counted as $0 and the server said ``ok`` where ``plan`` says ``invalid``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import catalog_without
from lspclient import EXAMPLES
from rawlsp import RawServer

#: name -> (edit of examples/orders/runway.yaml, prices left out of the catalogue, expected verdicts)
VARIANTS = {
    "within": (lambda t: t, set(), {"dev": "ok", "staging": "ok", "production": "ok"}),
    "over": (lambda t: t.replace("    limits:\n      monthly: 500\n", "    limits:\n      monthly: 20\n"), set(), {"staging": "over-cap"}),
    "no cap": (lambda t: t.replace("  production:\n    limits:\n      monthly: 2500\n", "  production:\n"), set(), {"production": "no-cap"}),
    "missing price": (lambda t: t, {("rds:db.m7g.large:multi-az", "us-east-1")}, {"production": "unpriced"}),
    "unknown size": (lambda t: t.replace("      production: large\n", "      production: largish\n", 1), set(), {"production": "invalid"}),
    "unknown size, no cap": (lambda t: t.replace("      production: large\n", "      production: largish\n", 1)
                             .replace("  production:\n    limits:\n      monthly: 2500\n", "  production:\n"), set(), {"production": "invalid"}),
    # ninth adversary L7: a workload dropped by validation, a kind typo, a definition a
    # duplicate key hides: not estimated in every environment, never "ok"
    "workload schema error": (lambda t: t.replace("    port: 3000\n", '    port: "3000"\n', 1), set(),
                              {"dev": "invalid", "staging": "invalid", "production": "invalid"}),
    "kind typo": (lambda t: t.replace("    kind: topic\n", "    kind: topicc\n", 1), set(), {"dev": "invalid", "production": "invalid"}),
}


def cli_verdicts(root: Path, catalog: Path | None) -> dict[str, str]:
    cmd = [sys.executable, "-m", "deploy_engine", "plan", str(root), "--format", "json"] + (["--catalog", str(catalog)] if catalog else [])
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert out.returncode in (0, 1, 2), out.stderr
    return {e["name"]: e["verdict"] for e in json.loads(out.stdout)["environments"]}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_server_s_verdict_is_the_cli_s(tmp_path: Path, name: str) -> None:
    edit, gaps, expected = VARIANTS[name]
    ws = tmp_path.resolve() / "orders"
    shutil.copytree(EXAMPLES / "orders", ws)
    root = ws / "runway.yaml"
    text = edit(root.read_text(encoding="utf-8"))
    assert text != root.read_text(encoding="utf-8") or name in ("within", "missing price")
    root.write_text(text, encoding="utf-8")
    catalog = None
    if gaps:
        catalog = tmp_path.resolve() / "catalog"
        catalog_without(catalog, gaps)
    cli = cli_verdicts(root, catalog)

    srv = RawServer(ws)
    try:
        srv.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                  "params": {"processId": None, "rootUri": ws.as_uri(), "capabilities": {},
                             "initializationOptions": {"runway": {"catalogPath": str(catalog)} if catalog else {}}}})
        srv.response("init")
        srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        srv.open(root.as_uri(), text)
        srv.wait_publish(root.as_uri(), 1)
        srv.send({"jsonrpc": "2.0", "id": "plan", "method": "runway/plan", "params": {"uri": root.as_uri()}})
        srv.send({"jsonrpc": "2.0", "id": "costs", "method": "runway/costs", "params": {"uri": root.as_uri()}})
        plan, costs = srv.response("plan")["result"], srv.response("costs")["result"]
    finally:
        srv.close()
    lsp_plan = {e["name"]: e["verdict"] for e in plan["environments"]}
    lsp_costs = {e["name"]: e["verdict"] for e in costs["environments"]}
    assert {k: cli[k] for k in expected} == expected, cli  # the case is what it says
    assert lsp_plan == cli
    assert lsp_costs == cli
