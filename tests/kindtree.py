"""A copy of the packages with one more kind declared in ``runway_core/kinds.py``, and a way to
run code against it in a fresh interpreter (issue 21: "adding a kind to the registry alone").

The registry is built once at import time and derived everywhere (model, catalogue, planner,
rules, editor queries, program), so a kind added to it is seen only by a process that imports
the changed file: the copy is put first on ``PYTHONPATH`` of a subprocess.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("runway_core", "deploy_engine", "catalog")
#: Where a declaration goes: after the last kind of ``REGISTRY``.
REGISTRY_END = "\n)\n\n#: name -> declaration."

#: A kind declared alone: its words, variables and component token, nothing to price it with
#: (no size table, quantities or price keys) and, in the copy, no component, prices or docs.
STREAM_ALONE = '''
    Kind(
        name="stream",
        label="stream (Kinesis Data Streams)",
        service="Kinesis Data Streams",
        summary="Amazon Kinesis data stream (provisioned shards)",
        synonyms=("stream", "streams", "kinesis", "clickstream"),
        variables=("NAME", "ARN"),
        in_vpc=False,
        holds_data=True,
        component="runway:aws:Stream",
    ),'''


def tree_with_kind(dest: Path, declaration: str = STREAM_ALONE) -> Path:
    """Copy the packages to ``dest`` and append ``declaration`` (Python source of one ``Kind(...),``)
    to ``REGISTRY``; returns ``dest``. Raises AssertionError when kinds.py has no such place."""
    for name in PACKAGES:
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    kinds = dest / "runway_core" / "kinds.py"
    text = kinds.read_text(encoding="utf-8")
    assert text.count(REGISTRY_END) == 1, "runway_core/kinds.py: the end of REGISTRY moved"
    kinds.write_text(text.replace(REGISTRY_END, declaration + REGISTRY_END), encoding="utf-8")
    return dest


def run_python(tree: Path, code: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -c code args...`` with ``tree`` first on the import path (the venv's other
    packages, pydantic and pulumi among them, as installed)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd or tree, env=env, capture_output=True, text=True, timeout=300)


def cli(tree: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``runway-deploy args...`` from the copy."""
    return run_python(tree, "import sys; from deploy_engine.cli import main; sys.exit(main(sys.argv[1:]))", *args, cwd=cwd)
