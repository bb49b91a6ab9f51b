"""Packaging (issue 14): the LICENSE and its SPDX metadata, an sdist that holds what its tests
read (and whose tests pass from it), a wheel that ships the docs the help texts point at.

The sdist and the wheel are built with the installed setuptools and ``build`` (no network:
``--no-isolation``); tests run from the unpacked sdist in a fresh process.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from deploy_engine import __version__, links
from deploy_engine.cli.parser import build_parser

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
#: Test files run from the unpacked sdist: those that read examples, docs, golden files,
#: the catalogue, the extension's schemas and benchmarks/generate.py.
SDIST_TESTS = ["tests/core/test_golden.py", "tests/deploy/test_ci_formats.py", "tests/core/test_schema.py", "tests/deploy/test_cli_diff.py",
               "tests/deploy/test_deploy_docs.py"]


def test_license_file_and_spdx_metadata():
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "TERMS AND CONDITIONS" in text
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert "License ::" not in (REPO / "pyproject.toml").read_text(encoding="utf-8")  # no deprecated classifier
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "runway_core.__version__"}


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> tuple[Path, Path]:
    if importlib.util.find_spec("build") is None:
        pytest.skip("the build package is not installed (the [test] extra has it)")
    out = tmp_path_factory.mktemp("dist")
    src = tmp_path_factory.mktemp("src") / "tree"
    # Build from a copy: building writes build/ and *.egg-info into the tree.
    ignore = shutil.ignore_patterns(".git", ".venv", "node_modules", "__pycache__", "build", "dist", "*.egg-info", ".runway")
    shutil.copytree(REPO, src, ignore=ignore)
    proc = subprocess.run([sys.executable, "-m", "build", "--sdist", "--wheel", "--no-isolation", "-o", str(out), str(src)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return sdist, wheel


def tracked(folder: str) -> list[str]:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        return [p.relative_to(REPO).as_posix() for p in (REPO / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    out = subprocess.run(["git", "-C", str(REPO), "ls-files", "--", folder], capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if (REPO / f).is_file()]


def test_the_sdist_holds_what_the_tests_read(dists):
    sdist, _ = dists
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for folder in ("tests", "examples", "docs", "catalog", "runway_core", "runway_lsp", "deploy_engine"):
        missing = [f for f in tracked(folder) if f not in names]
        assert missing == [], f"{folder}: {missing[:5]}"
    for f in ("LICENSE", "README.md", "action.yml", ".pre-commit-hooks.yaml", "benchmarks/generate.py",
              "vscode-extension/schemas/runway.schema.json", "tests/golden"):
        assert f in names or any(n.startswith(f + "/") for n in names), f
    assert not any("node_modules" in n or "__pycache__" in n for n in names)


def test_tests_run_from_the_unpacked_sdist(dists, tmp_path):
    sdist, _ = dists
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path, filter="data")
    (tree,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("PYTHONPATH", "GITHUB_WORKSPACE", "GITHUB_STEP_SUMMARY")}
    env["PYTHONPATH"] = str(tree)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *SDIST_TESTS],
                          cwd=tree, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert re.search(r"\d+ passed", proc.stdout) and " failed" not in proc.stdout
    # And the code it ran was the sdist's, not this checkout's.
    probe = subprocess.run([sys.executable, "-c", "import deploy_engine; print(deploy_engine.__file__)"], cwd=tree, env=env,
                           capture_output=True, text=True, check=True)
    assert probe.stdout.strip().startswith(str(tree))


def test_the_wheel_ships_the_docs_the_help_points_at(dists, tmp_path, monkeypatch):
    _, wheel = dists
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta = zf.read(f"runway_tooling-{__version__}.dist-info/METADATA").decode("utf-8")
        data = f"runway_tooling-{__version__}.data/data/share/doc/runway-tooling/"
        for page in ("cli.md", "deploy.md", "ci.md", "diagnostics.md"):
            assert data + page in names
        assert f"runway_tooling-{__version__}.dist-info/licenses/LICENSE" in names
        assert "deploy_engine/cli/commands/diff.py" in names and "runway_core/plan_diff.py" in names
        # The catalogue's data, the AWS region list (RW164) included.
        assert {"catalog/prices.csv", "catalog/sizes.toml", "catalog/aws_regions.json"} <= names
        assert not any(n.startswith("tests/") for n in names)
        # Installed: the data files land in <scheme data>/share/doc/runway-tooling.
        prefix = tmp_path / "prefix"
        for name in names:
            if name.startswith(data):
                target = prefix / "share" / "doc" / "runway-tooling" / name[len(data):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(name))
    assert "License-Expression: Apache-2.0" in meta and "License-File: LICENSE" in meta
    assert f"Version: {__version__}" in meta
    # A wheel install has no checkout next to its packages: the help then names the installed page.
    monkeypatch.setattr(links, "SOURCE_DOCS", tmp_path / "no-checkout")
    import sysconfig

    monkeypatch.setattr(sysconfig, "get_path", lambda name, *a, **k: str(prefix) if name == "data" else "")
    epilog = build_parser().epilog
    installed = str(prefix / "share" / "doc" / "runway-tooling" / "cli.md")
    assert installed in epilog and Path(installed).is_file()
    # With RUNWAY_DOCS_URL set, the one place that decides it gives that URL.
    monkeypatch.setenv("RUNWAY_DOCS_URL", "https://docs.example.com/runway/")
    assert "https://docs.example.com/runway/cli.md" in build_parser().epilog


def test_help_points_at_docs_that_exist_in_this_checkout():
    epilog = build_parser().epilog
    paths = re.findall(r"(/\S+?\.md)", epilog)
    assert paths and all(Path(p).is_file() for p in paths)
