"""A `runway.yml` opened beside a `runway.yaml` (eighth adversary F6; issue 23).

docs/format.md "Files": a folder holding both is read from `runway.yaml`; the `.yml` is ignored,
and `runway-deploy check`/`plan` warn so. The server analysed the opened `.yml` as the product's
root: it published RW170 against the `.yml`'s own $10 cap and `runway/costs` priced it, while
CI and the deploy read the `runway.yaml` beside it (production well under its cap). A member
folder holding both got RW154 ("not listed by a root"), which was not the reason either.

Now the `.yml` gets one diagnostic, RW158 (docs/diagnostics.md), and no plan; the
`runway.yaml` beside it keeps its own analysis. Real runway-lsp over stdio through pytest-lsp.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, codes, did_open, init, neovim_caps, until

ROOT = ("runway: 1\nproduct: shop\nregion: us-east-1\nenvironments:\n  production: {limits: {monthly: 2500}}\n"
        "resources:\n  db:\n    kind: postgres\n    size: small\n")
DEAD = ("runway: 1\nproduct: shop\nregion: us-east-1\nenvironments:\n  production: {limits: {monthly: 10}}\n"
        "resources:\n  db:\n    kind: postgres\n    size: small\n")


async def _costs(client: LanguageClient, path: Path):
    # pygls hands back an unknown method's result as nested named tuples (fields as attributes).
    return await asyncio.wait_for(client.protocol.send_request_async("runway/costs", {"uri": path.as_uri()}), TIMEOUT)


async def test_a_root_yml_beside_runway_yaml_is_only_told_it_is_not_read(client: LanguageClient, tmp_path: Path):
    folder = tmp_path.resolve()
    (folder / "runway.yaml").write_text(ROOT, encoding="utf-8")
    dead = folder / "runway.yml"
    dead.write_text(DEAD, encoding="utf-8")
    await init(client, neovim_caps(), folder)
    did_open(client, dead, DEAD)
    await until(client, lambda: bool(codes(client, dead)))
    assert codes(client, dead) == ["RW158"]  # not RW170 against the dead file's $10 cap
    (d,) = client.diagnostics[dead.as_uri()]
    assert d.severity == types.DiagnosticSeverity.Warning and "runway.yaml" in d.message
    costs = await _costs(client, dead)
    assert costs.environments == []  # nothing priced from a file no deploy reads

    live = folder / "runway.yaml"
    did_open(client, live, ROOT)
    costs = await _costs(client, live)
    assert [e.verdict for e in costs.environments] == ["ok"]  # the file CI reads, under its $2,500
    assert "RW158" not in codes(client, live)


async def test_a_member_yml_beside_its_runway_yaml_is_told_so_not_rw154(client: LanguageClient, tmp_path: Path):
    folder = tmp_path.resolve()
    (folder / "runway.yaml").write_text(ROOT + "members: [svc]\n", encoding="utf-8")
    (folder / "svc").mkdir()
    (folder / "svc" / "runway.yaml").write_text("runway: 1\nuses: [db]\n", encoding="utf-8")
    dead = folder / "svc" / "runway.yml"
    dead.write_text("runway: 1\nuses: [nothing]\n", encoding="utf-8")
    await init(client, neovim_caps(), folder)
    did_open(client, dead, dead.read_text(encoding="utf-8"))
    await until(client, lambda: bool(codes(client, dead)))
    assert codes(client, dead) == ["RW158"]
