"""Ninth adversary L8 (issue 23): `runway-deploy plan` of `dev: {limits: {monthly: 20},
disposable: maybe}` printed "dev — $325.81 — cap invalid (RW100): not checked": the bad sibling
took the valid cap with it. Now the $20 cap is checked (REFUSED, over-cap; exit 1 for the
error). `limits: {monthly: 20, currency: EUR}` stays "cap invalid", blaming RW102 (the key
inside `limits`), never `monthly`. A real subprocess, as CI runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TEXT = ("runway: 1\nproduct: shop\nenvironments:\n  dev: DEV\nresources:\n  db: {kind: postgres, size: large}\n")


def _plan(folder: Path, dev: str, *fmt: str) -> subprocess.CompletedProcess:
    (folder / "runway.yaml").write_text(TEXT.replace("DEV", dev), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "deploy_engine", "plan", str(folder), *fmt], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NO_COLOR": "1"})


def test_a_bad_sibling_leaves_the_cap_checked_in_plan(tmp_path: Path) -> None:
    out = _plan(tmp_path, "{limits: {monthly: 20}, disposable: maybe}")
    assert out.returncode == 1, out.stderr  # RW100 at `disposable` (and RW170)
    (line,) = [ln for ln in out.stdout.splitlines() if ln.startswith("dev — ")]
    assert "REFUSED: over its cap" in line and "cap invalid" not in line, line
    assert "RW170" in out.stdout + out.stderr
    js = _plan(tmp_path, "{limits: {monthly: 20}, disposable: maybe}", "--format", "json")
    (dev,) = json.loads(js.stdout)["environments"]
    assert (dev["cap_monthly_usd"], dev["verdict"]) == (20, "over-cap")


def test_an_unknown_key_in_limits_is_cap_invalid_blaming_rw102(tmp_path: Path) -> None:
    out = _plan(tmp_path, "{limits: {monthly: 20, currency: EUR}}")
    (line,) = [ln for ln in out.stdout.splitlines() if ln.startswith("dev — ")]
    assert "cap invalid (RW102): not checked" in line, line
    md = _plan(tmp_path, "{limits: {monthly: 20, currency: EUR}}", "--format", "markdown")
    assert "limits.currency" in md.stdout and "`limits.monthly` is not a valid cap" not in md.stdout
