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
