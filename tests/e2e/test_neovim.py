"""A real editor: Neovim attaches runway-lsp to a copy of examples/orders.

Neovim (headless, 0.7 or later; Debian's 0.7.2 in CI) runs tests/neovim/e2e.lua, which loads
the README's one-shared-client recipe (tests/neovim/runway_client.lua: ``vim.lsp.start_client``
+ ``buf_attach_client``), opens the runways, and drives the server through Neovim's own LSP
client: diagnostics, a hover, code lenses, completion, a quick fix applied with
``vim.lsp.util.apply_workspace_edit`` and saved, and a rename across the root and its members.
The Lua script records what the editor saw as JSON; every assertion is here.

One Neovim session serves the whole module (a module-scoped fixture); the subprocess has a
generous timeout as a guard against a hang, never as a measure. HOME and XDG_* point into the
test's temporary folder, so nothing is written outside it (Neovim's LSP log included).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

HERE = Path(__file__).resolve().parents[1]  # tests/
LUA = HERE / "neovim"
EXAMPLES = HERE.parent / "examples"

#: Guard on the whole Neovim session, in seconds (a run takes a few seconds).
SESSION_TIMEOUT_S = 120
#: Longest the Lua script waits for one answer or notification, in milliseconds.
WAIT_MS = 20_000

NVIM = shutil.which("nvim")


def _position(text: str, needle: str, offset: int = 0) -> dict[str, int]:
    """The LSP position (0-based line, utf-16 character) of ``needle``'s first character plus
    ``offset``; the example is ASCII, so characters are code units."""
    for line_no, line in enumerate(text.splitlines()):
        col = line.find(needle)
        if col >= 0:
            return {"line": line_no, "character": col + offset}
    raise AssertionError(f"{needle!r} not found")


def _writable_copy(src: Path, dst: Path) -> None:
    """Copy ``src`` to ``dst`` writable by its owner (examples/ is kept read-only)."""
    shutil.copytree(src, dst)
    for path in [dst, *dst.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is not alive: its parent (Neovim) has exited and not reaped it yet.
    try:
        return Path(f"/proc/{pid}/status").read_text().find("State:\tZ") < 0
    except OSError:
        return False


class Session:
    """What one Neovim session produced: its JSON results and the files it worked on."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.orders = work / "orders"
        self.broken = work / "broken"
        self.results: dict = {}
        self.log = ""

    def explain(self) -> str:
        return f"errors: {self.results.get('errors')}\n{self.log}"


@pytest.fixture(scope="module")
def nvim_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    if NVIM is None:
        pytest.skip("Neovim is not installed: .ci/run installs it with apt-get")
    tmp = tmp_path_factory.mktemp("neovim")
    work = tmp / "work"
    work.mkdir()
    s = Session(work)
    _writable_copy(EXAMPLES / "orders", s.orders)
    _writable_copy(EXAMPLES / "orders", s.broken)

    root_text = (s.orders / "runway.yaml").read_text()
    # The broken copy: one size misspelt (RW130, unknown size); its quick fix restores it.
    broken_root = s.broken / "runway.yaml"
    assert "      staging: medium\n" in root_text
    broken_root.write_text(root_text.replace("      staging: medium\n", "      staging: medum\n", 1))

    config = {
        "out": str(tmp / "results.json"),
        "wait_ms": WAIT_MS,
        "root": str(s.orders / "runway.yaml"),
        "hover": _position(root_text, "main-db:", 2),
        "completion": _position(root_text, "staging: medium", len("staging: medium")),  # after `medium`
        "broken": str(broken_root),
        "fix_code": "RW130",
        "rename": {"position": _position(root_text, "main-db:", 1), "new_name": "primary-db"},
    }
    (tmp / "config.json").write_text(json.dumps(config))

    home = tmp / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "NVIM", "VIM"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_RUNTIME_DIR=str(home / "run"),
        TMPDIR=str(tmp),
        RUNWAY_NVIM_CONFIG=str(tmp / "config.json"),
        RUNWAY_NVIM_CMD=json.dumps([sys.executable, "-m", "runway_lsp"]),
        PYTHONPATH=os.pathsep.join([str(HERE.parent), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    for d in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"):
        Path(env[d]).mkdir(parents=True, exist_ok=True)

    cmd = [NVIM, "--headless", "--clean", "-i", "NONE", "-n", "-c", f"luafile {LUA / 'e2e.lua'}"]
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=SESSION_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # Neovim and the server it started, by group id
        stdout, stderr = proc.communicate()
        pytest.fail(f"Neovim did not finish within {SESSION_TIMEOUT_S}s\nstdout: {stdout!r}\nstderr: {stderr!r}")

    lsp_log = home / ".cache" / "nvim" / "lsp.log"
    s.log = f"nvim exit {proc.returncode}\nstdout: {stdout.decode(errors='replace')[-2000:]}\nstderr: {stderr.decode(errors='replace')[-2000:]}\n"
    if lsp_log.exists():
        s.log += "lsp.log (tail):\n" + lsp_log.read_text(errors="replace")[-4000:]
    out = Path(config["out"])
    assert out.exists(), f"the Lua script wrote no results\n{s.log}"
    s.results = json.loads(out.read_text())
    yield s
    pid = s.results.get("server_pid")
    if isinstance(pid, int) and _alive(pid):
        os.kill(pid, signal.SIGKILL)  # the server we started, by its pid, should it outlive Neovim


def test_recipe_is_the_readme_one():
    """tests/neovim/runway_client.lua is the README's init.lua recipe, but for `cmd`."""
    readme = (HERE.parent / "README.md").read_text()
    start = readme.index("```lua\n", readme.index("**Neovim**")) + len("```lua\n")
    documented = readme[start : readme.index("```", start)].splitlines()
    documented = ["        cmd = server_cmd," if line.strip().startswith("cmd = {") else line for line in documented]
    lua = (LUA / "runway_client.lua").read_text().splitlines()
    used = lua[lua.index("local runway_client = nil") :]
    assert used == documented


def test_no_step_failed(nvim_session: Session):
    r = nvim_session.results
    assert not r["errors"], nvim_session.explain()  # json_encode writes an empty table as []
    assert r["attached"] is True
    assert r["offset_encoding"] == "utf-16"  # 0.7 offers no utf-8 (positionEncodings is 3.17)


def test_diagnostics_received(nvim_session: Session):
    r = nvim_session.results
    assert r["diagnostics_arrived"] is True, nvim_session.explain()
    rw140 = [d for d in r["diagnostics"] if d["code"] == "RW140"]
    assert len(rw140) == 1, r["diagnostics"]
    d = rw140[0]
    # The metabase image value: 0-based line 48, from column 11 to the line's end (99).
    assert (d["lnum"], d["col"], d["end_lnum"], d["end_col"]) == (48, 11, 48, 99)
    assert d["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert d["source"] == "runway"
    assert "63 hex digits, not 64" in d["message"]
    # The example's one real error: nothing else is reported for it.
    assert [x["code"] for x in r["diagnostics"]] == ["RW140"]


def test_hover_shows_cost_per_environment(nvim_session: Session):
    hover = nvim_session.results.get("hover")
    assert hover is not None, nvim_session.explain()
    assert hover["kind"] == "markdown"
    text = hover["value"]
    assert "### main-db" in text
    # Neovim shows the markdown source: the table's columns line up.
    assert "| monthly | $36.28 | $139.47 |    $325.81 |" in text
    assert "|         |    dev | staging | production |" in text


def test_code_lenses(nvim_session: Session):
    lenses = nvim_session.results.get("code_lenses")
    assert lenses, nvim_session.explain()
    titles = {(lens["line"], lens["title"]) for lens in lenses}
    assert (10, "dev $126.88 / $150 · 85%") in titles  # on `dev:`
    assert (14, "staging $258.11 / $500 · 52%") in titles
    assert (19, "production $828.03 / $2,500 · 33%") in titles
    assert (27, "dev $36.28 · staging $139 · production $326") in titles  # on `main-db:`
    assert (27, "used by 4") in titles


def test_start_client_settings_reach_the_server(nvim_session: Session):
    """runway_client.lua passes `settings = { runway = { inlayHints = { environment =
    "production" } } }` to start_client: Neovim 0.7 never sends them, but answers the server's
    workspace/configuration with them, so the single `size: medium` is priced in production."""
    hints = nvim_session.results.get("inlay_hints")
    assert hints, nvim_session.explain()
    line = _position((nvim_session.orders / "runway.yaml").read_text(encoding="utf-8"), "    size: medium")["line"]
    assert [h["label"] for h in hints if h["line"] == line] == ["≈ $96.04/mo in production"]


def test_completion_offers_sizes_with_costs(nvim_session: Session):
    items = nvim_session.results.get("completion")
    assert items, nvim_session.explain()
    by_label = {i["label"]: i for i in items}
    assert list(by_label) == ["small", "medium", "large"]  # sorted by cost
    assert by_label["small"]["detail"] == "$36.28/mo in staging"
    assert by_label["medium"]["detail"].startswith("$139.47/mo in staging")
    assert by_label["large"]["detail"] == "$325.81/mo in staging"
    # Each replaces the word under the cursor: `medium` on line 33, characters 15-21.
    edit = by_label["large"]["textEdit"]
    assert edit["newText"] == "large"
    assert edit["range"] == {"start": {"line": 33, "character": 15}, "end": {"line": 33, "character": 21}}


def test_quick_fix_applied_and_saved(nvim_session: Session):
    s = nvim_session
    r = s.results
    assert r.get("fix_diagnostic_arrived") is True, s.explain()
    assert r.get("broken_same_client") is True  # one shared client for every runway buffer
    titles = [a["title"] for a in r["code_actions"]]
    assert any(t.startswith("Change size to small") for t in titles), titles
    assert any(t.startswith("Change size to large") for t in titles), titles
    assert all(a["kind"] == "quickfix" for a in r["code_actions"])
    assert r["applied_action"].startswith("Change size to medium ($139.47/mo in staging)"), r["code_actions"]
    # Saved by Neovim: the file is the original, byte for byte (comments and layout kept).
    assert (s.broken / "runway.yaml").read_text() == (EXAMPLES / "orders" / "runway.yaml").read_text()
    assert r["fix_diagnostic_cleared"] is True, s.explain()
    assert [d["code"] for d in r["broken_diagnostics"]] == ["RW140"]


def test_rename_across_files(nvim_session: Session):
    s = nvim_session
    r = s.results
    assert r.get("prepare_rename") is not None, s.explain()
    files = sorted(Path(u.removeprefix("file://")).resolve() for u in r["rename_files"])
    assert files == sorted(p.resolve() for p in (s.orders / "runway.yaml", s.orders / "services/checkout/runway.yaml", s.orders / "services/billing/runway.yaml"))
    original = {p: (EXAMPLES / "orders" / p).read_text() for p in ("runway.yaml", "services/checkout/runway.yaml", "services/billing/runway.yaml")}
    for rel, text in original.items():
        expected = text.replace("main-db", "primary-db")
        assert (s.orders / rel).read_text() == expected, rel
    assert "main-db" not in (s.orders / "runway.yaml").read_text()
    # The members were loaded by apply_workspace_edit; the recipe's autocmd attached them too.
    assert all(r["rename_attached"].values()), r["rename_attached"]
    assert r["rename_settled"] is True, s.explain()


def test_client_stopped_and_server_exited(nvim_session: Session):
    r = nvim_session.results
    assert r.get("stopped") is True, nvim_session.explain()
    pid = r.get("server_pid")
    assert isinstance(pid, int)
    assert not _alive(pid), "the server outlived Neovim"
