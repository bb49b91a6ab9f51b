"""Ninth adversary L7 (issue 23): `runway-deploy plan` of a runway with a definition the analysis
cannot price (a workload with a schema error, a kind typo, a duplicate key) prints the same
shown verdict as the editor: ``INVALID: not estimated: …``, never ``— ok``, in text and JSON.
A real subprocess, as CI runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAD = "runway: 1\nproduct: shop\nenvironments:\n  dev: {limits: {monthly: 100}}\n"
CASES = {
    "quoted scale": (HEAD + "workloads:\n  api:\n    image: \"nginx@sha256:" + "a" * 64 + "\"\n    port: 80\n    health: {path: /}\n"
                     "    size: large\n    scale: {dev: \"3\"}\n    reason: \"no-managed-fit: x\"\n", "api"),
    "kind typo": (HEAD + "resources:\n  db: {kind: postgress, size: large}\n", "db"),
    "second db key": (HEAD + "resources:\n  db: {kind: queue}\n  db: {kind: postgres, size: large}\n", "db (second definition, line 7)"),
}


def _plan(folder: Path, *fmt: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "deploy_engine", "plan", str(folder), *fmt], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NO_COLOR": "1"})


@pytest.mark.parametrize("case", list(CASES))
def test_plan_text_and_json_say_invalid_not_ok(tmp_path: Path, case: str) -> None:
    text, name = CASES[case]
    (tmp_path / "runway.yaml").write_text(text, encoding="utf-8")
    out = _plan(tmp_path)
    assert out.returncode == 1, out.stderr  # the error fails the run
    (line,) = [ln for ln in out.stdout.splitlines() if ln.startswith("dev — ")]
    assert f"INVALID: not estimated: {name}" in line and not line.endswith("— ok"), line
    assert "may proceed" not in out.stdout
    js = _plan(tmp_path, "--format", "json")
    (dev,) = json.loads(js.stdout)["environments"]
    assert dev["verdict"] == "invalid" and dev["not_estimated"] == [name]
