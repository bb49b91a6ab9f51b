"""The import graph of runway_core, runway_lsp and deploy_engine (issue 11), read from the
source with ``ast``: every ``import`` and ``from ... import``, at module level, inside
functions and under ``if TYPE_CHECKING:`` alike, relative imports resolved.

- no import cycle inside any of the three packages (between modules);
- runway_core imports only downward, per :data:`LAYERS` (the table of
  ``runway_core/__init__.py``'s docstring, which this test keeps in step);
- no editor query under ``runway_core.ide`` imports another query (what two share lives in
  ``ide/_*``);
- runway_core imports no pygls, lsprotocol, pulumi, runway_lsp or deploy_engine; runway_lsp
  imports no pulumi or deploy_engine (docs/architecture.md, the invariants).
- deploy_engine's split rooms (``pipeline/``, ``records/``, ``automation`` and what it reads)
  import only from lower tiers of their own room, per :data:`DEPLOY_ROOMS`.

A temporary re-export kept at an old import path is exempt from the layer rule only while
each of its import lines carries the marker :data:`SHIM_MARKER` (of its issue).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("runway_core", "runway_lsp", "deploy_engine")
SHIM_MARKER = "# shim: removed when callers move (issue 11)"
#: Any issue's marker counts (the next move names its own issue).
SHIM_RE = re.compile(r"# shim: removed when callers move \(issue \d+\)")

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def documented_layers(text: str) -> dict[str, int]:
    """The layer table of docs/architecture.md ("runway_core: the pure core, in layers"):
    module -> rank, from each ``| rank | layer | modules | what |`` row's modules column, the
    backticked names outside parentheses (``planner/`` (``spec``, ...) is ``planner``)."""
    out: dict[str, int] = {}
    for m in re.finditer(r"^\| (\d) \| [^|]+ \| ([^|]+) \|", text, re.M):
        column = m.group(2)
        while True:  # drop parenthesised detail, innermost first
            shorter = re.sub(r"\([^()]*\)", "", column)
            if shorter == column:
                break
            column = shorter
        for name in re.findall(r"`([a-z_]+)/?`", column):
            out[f"runway_core.{name}"] = int(m.group(1))
    return out


#: runway_core's layers: a module may import modules of its own rank or lower. The longest
#: matching prefix decides (``runway_core.ide.hover`` is ``runway_core.ide``'s rank). Read
#: from docs/architecture.md's layer table, which ``runway_core/__init__.py``'s docstring
#: repeats (test_the_layer_table_is_the_one_the_package_documents).
LAYERS: dict[str, int] = {"runway_core": 0, **documented_layers(ARCHITECTURE.read_text(encoding="utf-8"))}

#: The editor queries: none may import another.
QUERIES = (
    "runway_core.ide.completion",
    "runway_core.ide.fixes",
    "runway_core.ide.hover",
    "runway_core.ide.lenses",
    "runway_core.ide.navigation",
)

FORBIDDEN = {
    "runway_core": {"pygls", "lsprotocol", "pulumi", "pulumi_aws", "runway_lsp", "deploy_engine"},
    "runway_lsp": {"pulumi", "pulumi_aws", "deploy_engine"},
}


def modules(package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of ``package`` (a package is its
    ``__init__.py``)."""
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(name: str, source: str, is_package: bool, known: set[str]) -> list[tuple[str, int, bool]]:
    """``(imported module, line, shim)`` of every import statement anywhere in ``source``
    (module ``name``). Relative imports are resolved; ``from X import y`` names module
    ``X.y`` when that is a module of ``known``, else ``X``. ``shim`` is True when the
    statement's lines carry a shim marker (:data:`SHIM_RE`)."""
    lines = source.splitlines()
    base = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        text = "\n".join(lines[node.lineno - 1 : node.end_lineno]) if isinstance(node, (ast.Import, ast.ImportFrom)) else ""
        shim = SHIM_RE.search(text) is not None
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno, shim) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                target = ".".join(anchor + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.append((sub if sub in known else target, node.lineno, shim))
    return out


def graph(package: str) -> dict[str, list[tuple[str, int, bool]]]:
    """Module -> its imports (all of them, inside the package or not)."""
    mods = modules(package)
    known = set(mods)
    return {m: imports(m, p.read_text(encoding="utf-8"), p.name == "__init__.py", known) for m, p in mods.items()}


def cycles(package: str) -> list[list[str]]:
    """The import cycles between modules of ``package`` (strongly connected components of
    more than one module, or a module importing itself), each sorted."""
    g = graph(package)
    edges = {m: sorted({t for t, _l, _s in imps if t in g}) for m, imps in g.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's algorithm; the graphs are small
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges[v]:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def rank(module: str) -> int | None:
    """The layer of ``module``: its longest prefix in :data:`LAYERS` (the package itself
    only for its own ``__init__``); None for a module of no layer (a shim)."""
    if module == "runway_core":
        return LAYERS[module]
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        hit = LAYERS.get(".".join(parts[:n]))
        if hit is not None:
            return hit
    return None


def query_of(module: str) -> str | None:
    return next((q for q in QUERIES if module == q or module.startswith(q + ".")), None)


# --------------------------------------------------------------------------------------
# The reader itself
# --------------------------------------------------------------------------------------


def test_the_reader_sees_local_relative_and_type_checking_imports():
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import rules\n"
        "from ..planner import cents\n"
        "if TYPE_CHECKING:\n"
        "    from .facts import Analysis\n"
        "def f():\n"
        "    import runway_core.money\n"
        "    from .x import y  " + SHIM_MARKER + "\n"
    )
    known = {"runway_core.analysis.rules", "runway_core.analysis.facts"}
    got = imports("runway_core.analysis.run", source, False, known)
    assert sorted(got, key=lambda t: t[1]) == [
        ("typing", 1, False),
        ("runway_core.analysis.rules", 2, False),
        ("runway_core.planner", 3, False),
        ("runway_core.analysis.facts", 5, False),
        ("runway_core.money", 7, False),
        ("runway_core.analysis.x", 8, True),
    ]
    # A package's own relative imports resolve against the package itself.
    assert imports("runway_core.rules", "from ._common import _d\nfrom ..text import suggest\n", True, set()) == [
        ("runway_core.rules._common", 1, False),
        ("runway_core.text", 2, False),
    ]


def test_the_cycle_finder_finds_a_cycle(tmp_path, monkeypatch):
    pkg = tmp_path / "loop"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from . import b\n")
    (pkg / "b.py").write_text("from .a import f\n")
    (pkg / "c.py").write_text("from . import a\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert cycles("loop") == [["loop.a", "loop.b"]]


# --------------------------------------------------------------------------------------
# runway_core
# --------------------------------------------------------------------------------------


def test_runway_core_has_no_import_cycle():
    assert cycles("runway_core") == []


def test_runway_core_imports_only_downward():
    g = graph("runway_core")
    problems = []
    for mod, imps in g.items():
        own = rank(mod)
        for target, line, shim in imps:
            if not target.startswith("runway_core"):
                continue
            if shim:
                continue  # a re-export kept at an old path, marked for removal
            if own is None:
                problems.append(f"{mod}: not in the layer table (line {line} imports {target})")
            elif rank(target) is None or rank(target) > own:
                problems.append(f"{mod} (rank {own}) imports {target} (rank {rank(target)}) on line {line}")
    assert problems == []


def test_every_runway_core_module_has_a_layer_unless_it_is_a_marked_shim():
    g = graph("runway_core")
    unranked = [m for m in g if rank(m) is None]
    for m in unranked:
        inside = [(t, s) for t, _l, s in g[m] if t.startswith("runway_core")]
        assert inside and all(s for _t, s in inside), f"{m} has no layer and is not a marked shim"


def test_the_architecture_page_has_a_layer_table():
    # The parse found the table: every rank, and the modules the rows name.
    assert sorted(set(LAYERS.values())) == list(range(7))
    assert LAYERS["runway_core.kinds"] == 0 and LAYERS["runway_core.plan_diff"] == 5 and LAYERS["runway_core.ide"] == 6
    assert "runway_core.nodes" not in LAYERS  # yamlsrc's submodules, in parentheses, are not layers


def test_the_layer_table_is_the_one_the_package_documents():
    doc = ast.get_docstring(ast.parse((ROOT / "runway_core" / "__init__.py").read_text(encoding="utf-8"))) or ""
    documented = {}
    for m in re.finditer(r"^(\d)\s{2,}([a-z_, ]+)$", doc, re.M):
        for name in m.group(2).split(","):
            documented[f"runway_core.{name.strip()}"] = int(m.group(1))
    assert documented == {k: v for k, v in LAYERS.items() if k != "runway_core"}


def test_no_editor_query_imports_another():
    g = graph("runway_core")
    problems = []
    for mod, imps in g.items():
        if not mod.startswith("runway_core.ide"):
            continue
        mine = query_of(mod)
        for target, line, shim in imps:
            other = query_of(target)
            if other is not None and other != mine:
                problems.append(f"{mod} imports the query {target} on line {line}")
    assert problems == []


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_forbidden_imports(package):
    g = graph(package)
    bad = sorted(
        f"{mod} line {line}: {target}"
        for mod, imps in g.items()
        for target, line, _shim in imps
        if target.split(".")[0] in FORBIDDEN[package]
    )
    assert bad == []


# --------------------------------------------------------------------------------------
# runway_lsp and deploy_engine
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "package",
    [
        "runway_lsp",
        "deploy_engine",
    ],
)
def test_adapter_packages_have_no_import_cycle(package):
    assert cycles(package) == []


#: deploy_engine's split rooms (issue 11), each in tiers: a module imports, from its own room,
#: only modules of a lower tier (never a sibling of its tier, never one above). Within the deploy
#: pipeline, one run is below the credentials, which are below the commands' parts, which are
#: below the guards that dispatch to them; the records' interface is below the record kinds,
#: below the two stores, below the package that picks one; what automation reads is below it.
DEPLOY_ROOMS: dict[str, list[tuple[str, ...]]] = {
    "pipeline": [
        ("deploy_engine.pipeline.run",),
        ("deploy_engine.pipeline.credentials",),
        ("deploy_engine.pipeline.preview", "deploy_engine.pipeline.up", "deploy_engine.pipeline.destroy"),
        ("deploy_engine.pipeline.guards",),
    ],
    "records": [
        ("deploy_engine.records.store",),
        ("deploy_engine.records.kinds",),
        ("deploy_engine.records.file_store", "deploy_engine.records.s3_store"),
        ("deploy_engine.records",),
    ],
    "automation": [
        ("deploy_engine.backend", "deploy_engine.engine_events", "deploy_engine.stack_outputs"),
        ("deploy_engine.automation",),
    ],
}


@pytest.mark.parametrize("room", sorted(DEPLOY_ROOMS))
def test_deploy_engine_rooms_import_only_lower_tiers(room):
    g = graph("deploy_engine")
    tier = {m: n for n, mods in enumerate(DEPLOY_ROOMS[room]) for m in mods}
    assert set(tier) <= set(g), f"not modules: {sorted(set(tier) - set(g))}"
    problems = [
        f"{mod} (tier {tier[mod]}) imports {target} (tier {tier[target]}) on line {line}"
        for mod in tier
        for target, line, _shim in g[mod]
        if target in tier and target != mod and tier[target] >= tier[mod]
    ]
    assert problems == []


# --------------------------------------------------------------------------------------
# docs/architecture.md's code map names what exists (issue 21)
# --------------------------------------------------------------------------------------


def _defined(package: str) -> set[str]:
    """Every module, package, module-level name and class member of ``package``."""
    root = ROOT / package
    out = {p.stem for p in root.rglob("*.py")} | {p.name for p in root.rglob("*") if p.is_dir()}
    for path in root.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
                if isinstance(node, ast.ClassDef):
                    out.update(n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
            elif isinstance(node, ast.Assign):
                out.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.add(node.target.id)
    return out


#: LSP and custom method names the code map quotes (not modules).
_METHOD = re.compile(r"^(textDocument|workspace|runway|window)/[A-Za-z]+$")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_the_code_map_names_exists(package):
    text = ARCHITECTURE.read_text(encoding="utf-8")
    heading = f"### `{package}`"
    start = text.index(heading)
    end = text.find("\n### ", start + len(heading))
    section = text[start:end if end >= 0 else None]
    defined = _defined(package)
    named, missing = 0, []
    column = None  # the "modules" column of the table being read
    for row in re.findall(r"^\|(.*)\|$", section, re.M):
        cells = [c.strip() for c in row.split(" | ")]
        if "modules" in cells:
            column = cells.index("modules")
            continue
        if column is None or len(cells) <= column or set(cells[0]) <= {"-", " "}:
            continue
        for token in re.findall(r"`([A-Za-z_][A-Za-z0-9_./]*)`", cells[column]):
            if _METHOD.match(token):
                continue
            named += 1
            last = token.rstrip("/").split("/")[-1].split(".")[-1]
            if last not in defined:
                missing.append(token)
    assert named > 20 and missing == [], f"docs/architecture.md names what {package} does not have: {missing}"


def test_the_architecture_page_keeps_no_test_counts():
    # Counts go stale with every test added (942 against 1,727 in round 3): pytest says them.
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert not re.search(r"\b\d[\d,]* tests\b", text), re.search(r"\b\d[\d,]* tests\b", text)



#: The longest a class may be, in lines from ``class`` to its last statement (issue 21's
#: done-when: "no class over 300 lines in the three packages"; docs/architecture.md, invariants).
MAX_CLASS_LINES = 300


def test_no_class_is_over_the_line_bound():
    long = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines")
    assert not long, f"classes over {MAX_CLASS_LINES} lines (split them by responsibility):\n" + "\n".join(long)
