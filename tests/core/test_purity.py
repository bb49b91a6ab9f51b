"""The core stays editor- and engine-free; the server never imports Pulumi (docs/architecture.md §1)."""

import subprocess
import sys


def _modules_after(import_stmt: str) -> set[str]:
    code = f"{import_stmt}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_core_imports_no_adapter_library():
    mods = _modules_after(
        "import runway_core.analysis, runway_core.rules, runway_core.planner, runway_core.catalog, runway_core.yamlsrc"
    )
    leaked = sorted(m for m in mods if m.split(".")[0] in {"pygls", "lsprotocol", "pulumi", "pulumi_aws", "deploy_engine", "runway_lsp"})
    assert leaked == []


def test_cli_check_and_plan_do_not_import_pulumi():
    mods = _modules_after("import deploy_engine.cli")
    assert not any(m.split(".")[0] in {"pulumi", "pulumi_aws", "pygls"} for m in mods)


# --- the server's protocol edge (issue 11) ---------------------------------------------------------

import ast  # noqa: E402
from pathlib import Path  # noqa: E402

LSP_PACKAGE = Path(__file__).resolve().parents[2] / "runway_lsp"
CONVERT_PACKAGE = LSP_PACKAGE / "convert"


def _lsp_modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"), str(p))) for p in sorted(LSP_PACKAGE.rglob("*.py"))]


def _lsprotocol_constructors(tree: ast.Module) -> list[tuple[int, str]]:
    """Calls ``X(...)`` of a value of ``lsprotocol.types``: through ``from lsprotocol import
    types`` (``types.X(...)``, also ``types.X.Y(...)``), ``import lsprotocol.types`` or ``from
    lsprotocol.types import X``; (line, dotted name) each."""
    modules: set[str] = set()  # local names bound to lsprotocol.types (or lsprotocol)
    names: set[str] = set()  # local names bound to a member of lsprotocol.types
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("lsprotocol", "lsprotocol.types"):
            for alias in node.names:
                local = alias.asname or alias.name
                (modules if node.module == "lsprotocol" and alias.name == "types" else names).add(local)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "lsprotocol":
                    modules.add(alias.asname or "lsprotocol")
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        parts, func = [], node.func
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        if isinstance(func, ast.Name) and ((parts and func.id in modules) or (func.id in names)):
            dotted = [func.id, *reversed(parts)]
            if _is_lsprotocol_class(dotted[1:] if func.id in modules else dotted):
                found.append((node.lineno, ".".join(dotted)))
    return found


def _is_lsprotocol_class(path: list[str]) -> bool:
    """True when ``path`` names a class of ``lsprotocol.types`` (``Diagnostic``,
    ``Position``...): a call of it builds a value. Reading a table of the module
    (``METHOD_TO_TYPES.items()``) builds none."""
    from lsprotocol import types

    value: object = types
    for part in path:
        if part == "types" and value is types:
            continue
        value = getattr(value, part, None)
        if value is None:
            return False
    return isinstance(value, type)


def test_lsprotocol_values_are_built_only_in_the_conversion_package():
    outside = {
        f"{p.relative_to(LSP_PACKAGE.parent)}:{line}: {name}(...)"
        for p, tree in _lsp_modules()
        if CONVERT_PACKAGE not in p.parents
        for line, name in _lsprotocol_constructors(tree)
    }
    assert outside == set()
    # ... and the check sees constructors where they are.
    inside = [c for p, tree in _lsp_modules() if CONVERT_PACKAGE in p.parents for c in _lsprotocol_constructors(tree)]
    assert any(name == "types.Diagnostic" for _line, name in inside)


def test_the_server_does_not_touch_pygls_feature_manager():
    """pygls keeps one handler per method in ``protocol.fm``; rewriting it breaks on a pygls
    upgrade. runway_lsp registers every method once (runway_lsp/server.py) instead."""
    uses = sorted(
        f"{p.relative_to(LSP_PACKAGE.parent)}:{node.lineno}"
        for p, tree in _lsp_modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "fm"
    )
    assert uses == []


def test_the_server_calls_no_print():
    """stderr is the editor's log of the server: what reaches it goes through the redaction
    (runway_lsp.log_redaction). A ``print()`` is no log call (round 3, issue 16); the stream
    guard redacts one anyway, but the code logs instead."""
    calls = sorted(
        f"{p.relative_to(LSP_PACKAGE.parent)}:{node.lineno}"
        for p, tree in _lsp_modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    )
    assert calls == []
