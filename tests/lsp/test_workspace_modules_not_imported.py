"""`python -m runway_lsp` started in a workspace never imports the workspace's own modules
(tenth adversary L2; issue 23).

The Python docs (command line, `-m`): the current working directory is prepended to
`sys.path`; editors start the server with the workspace as its working directory. The packaged
catalogue was loaded with `importlib.resources.files("catalog")`, which imports a top-level
package named `catalog`: a workspace holding its own `catalog/` (a Django app of that name)
ran its `__init__.py`, and either priced with its files or made the server exit. The catalogue
is now found by path beside `runway_core/`, and the `-m` entry drops the working directory
from `sys.path` before anything else is imported (so a workspace's `lsprotocol/` cannot shadow
ours either). Raw JSON-RPC over pipes, the server started exactly that way.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from rawlsp import RawServer

ROOT = Path(__file__).resolve().parents[2]
MARK = "open({marker!r}, 'w').write('the workspace ran')\n"


def test_a_workspace_catalog_or_lsprotocol_package_is_never_imported(tmp_path: Path):
    work = tmp_path.resolve() / "work"
    shutil.copytree(ROOT / "examples" / "orders", work)
    marker = tmp_path / "RAN"
    for package in ("catalog", "lsprotocol"):
        (work / package).mkdir()
        (work / package / "__init__.py").write_text(MARK.format(marker=str(marker)) + "raise SystemExit(9)\n", encoding="utf-8")
    shutil.copy(ROOT / "catalog" / "sizes.toml", work / "catalog" / "sizes.toml")
    prices = (ROOT / "catalog" / "prices.csv").read_text(encoding="utf-8")
    (work / "catalog" / "prices.csv").write_text(prices.replace(",0.016,", ",0.001,"), encoding="utf-8")  # other prices
    srv = RawServer(work)  # sys.executable -m runway_lsp --stdio, cwd = the workspace
    try:
        srv.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": work.as_uri(), "capabilities": {}}})
        srv.response(1)
        srv.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        root = work / "runway.yaml"
        srv.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": root.as_uri(), "languageId": "yaml", "version": 1, "text": root.read_text(encoding="utf-8")}}})
        srv.send({"jsonrpc": "2.0", "id": 2, "method": "runway/costs", "params": {"uri": root.as_uri()}})
        costs = srv.response(2)["result"]
        assert {e["name"]: e["total_monthly_usd"] for e in costs["environments"]}["dev"] == 126.88  # the packaged prices
    finally:
        srv.close()
    assert not marker.exists()


def test_python_m_deploy_engine_in_a_repository_with_a_catalog_package_prices_with_ours(tmp_path: Path):
    """The same for the CLI run as `python -m deploy_engine` in the repository."""
    import subprocess
    import sys

    work = tmp_path.resolve() / "work"
    shutil.copytree(ROOT / "examples" / "orders", work)
    marker = tmp_path / "RAN"
    (work / "catalog").mkdir()
    (work / "catalog" / "__init__.py").write_text(MARK.format(marker=str(marker)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "deploy_engine", "plan", ".", "--env", "dev"], cwd=work, capture_output=True, text=True,
                          timeout=120, check=False)
    assert "dev — $126.88 / $150.00 cap" in done.stdout, (done.stdout, done.stderr)
    assert not marker.exists()
