"""The VS Code extension's launcher (vscode-extension/bundled/tool/runway_server.py), run as the
extension runs it: ``<python> -I runway_server.py`` from another folder.

The real bundle (``bundled/libs``, built by ``scripts/bundle.py`` with pip) is exercised by the
E2E run in code-server; here a ``libs`` folder is laid out by hand next to a copy of the launcher
so the launcher's own decisions are checked: which Python it accepts, what ``--check`` prints,
that ``libs`` wins over a ``runway_lsp`` in the working folder (issue 15: the checkout's
``runway_lsp`` imported without its dependencies), and that its arguments reach the server.
"""

from __future__ import annotations

import importlib.machinery
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LAUNCHER = Path(__file__).resolve().parents[2] / "vscode-extension" / "bundled" / "tool" / "runway_server.py"


def _layout(tmp_path: Path, native: bool = True) -> Path:
    """``ext/bundled/tool/runway_server.py`` and ``ext/bundled/libs`` with a ``pydantic_core``
    compiled-module file named for this interpreter (empty: only its name is checked) and a
    ``runway_lsp`` whose ``main`` reports where it was imported from and what it was given."""
    tool = tmp_path / "ext" / "bundled" / "tool"
    libs = tmp_path / "ext" / "bundled" / "libs"
    tool.mkdir(parents=True)
    shutil.copy2(LAUNCHER, tool / "runway_server.py")
    (libs / "pydantic_core").mkdir(parents=True)
    if native:
        (libs / "pydantic_core" / ("_pydantic_core" + importlib.machinery.EXTENSION_SUFFIXES[0])).write_bytes(b"")
    (libs / "runway_lsp").mkdir()
    (libs / "runway_lsp" / "__init__.py").write_text("")
    (libs / "runway_lsp" / "__main__.py").write_text(
        "import json, sys\n"
        "def main(argv=None):\n"
        "    print(json.dumps({'file': __file__, 'argv': argv, 'cwd_on_path': '' in sys.path}))\n"
        "    return 0\n"
    )
    (libs / "BUNDLE.json").write_text(json.dumps({"target": "linux-x64", "pythons": ["3.11", "3.12"]}))
    return tool / "runway_server.py"


def _run(launcher: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", str(launcher), *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_check_accepts_this_python_when_the_bundle_has_its_compiled_module(tmp_path):
    launcher = _layout(tmp_path)
    done = _run(launcher, "--check", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["ok"] is True
    assert answer["python"] == "{}.{}.{}".format(*sys.version_info[:3])
    assert answer["executable"] == sys.executable


def test_check_names_the_bundled_versions_when_this_python_has_no_compiled_module(tmp_path):
    launcher = _layout(tmp_path, native=False)
    answer = json.loads(_run(launcher, "--check", cwd=tmp_path).stdout)
    assert answer["ok"] is False
    assert answer["code"] == "no-native"
    assert "CPython 3.11, 3.12 (linux-x64)" in answer["reason"]
    # Without --check: one line on stderr and exit 3, nothing on stdout (the LSP channel).
    done = _run(launcher, "--stdio", cwd=tmp_path)
    assert done.returncode == 3
    assert done.stdout == ""
    assert done.stderr.startswith("runway-lsp: the bundled server has pydantic_core for CPython 3.11, 3.12")
    assert len(done.stderr.strip().splitlines()) == 1


def test_check_without_a_bundle_says_to_reinstall(tmp_path):
    launcher = _layout(tmp_path)
    shutil.rmtree(launcher.parent.parent / "libs")
    answer = json.loads(_run(launcher, "--check", cwd=tmp_path).stdout)
    assert answer["code"] == "no-bundle"
    assert "reinstall the extension" in answer["reason"]


def test_the_bundle_wins_over_a_runway_lsp_in_the_working_folder(tmp_path):
    launcher = _layout(tmp_path)
    # A checkout opened as the workspace: its own runway_lsp, which would fail to import.
    checkout = tmp_path / "checkout"
    (checkout / "runway_lsp").mkdir(parents=True)
    (checkout / "runway_lsp" / "__init__.py").write_text("import lsprotocol_that_is_not_installed\n")
    done = _run(launcher, "--log-level", "INFO", "--stdio", cwd=checkout)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert Path(answer["file"]).resolve() == (launcher.parent.parent / "libs" / "runway_lsp" / "__main__.py").resolve()
    assert answer["argv"] == ["--log-level", "INFO", "--stdio"]
    assert answer["cwd_on_path"] is False


@pytest.mark.parametrize("version", [(3, 10), (3, 8)])
def test_an_older_python_is_told_it_is_too_old(tmp_path, version):
    """The launcher's own check, fed an older version (any 3.6+ interpreter parses the file)."""
    launcher = _layout(tmp_path)
    code = (
        "import sys, runpy, json\n"
        f"ns = runpy.run_path({str(launcher)!r})\n"
        f"sys.version_info = ({version[0]}, {version[1]}, 9)  # the launcher reads it from sys\n"
        "print(json.dumps(ns['problem']()))\n"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    kind, reason = json.loads(done.stdout)
    assert kind == "too-old"
    assert reason == f"Python {version[0]}.{version[1]}.9 is too old: the runway server needs Python 3.11 or newer"


def test_the_bundle_copies_every_project_file_the_server_reads(tmp_path):
    # The .vsix once shipped catalog/ without aws_regions.json (bundle.py listed its own
    # patterns, pyproject.toml had one more): every analysis of the bundled server failed.
    # Here: the project's packages laid out by bundle.copy_project, then the orders example
    # analysed from that copy alone (python -I, no checkout on the path).
    import importlib.util

    bundle_py = LAUNCHER.parents[2] / "scripts" / "bundle.py"
    spec = importlib.util.spec_from_file_location("runway_bundle", bundle_py)
    bundle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bundle)
    libs = tmp_path / "libs"
    bundle.copy_project(libs)
    repo = LAUNCHER.parents[3]
    shipped = {p.relative_to(repo / "catalog") for p in (repo / "catalog").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    copied = {p.relative_to(libs / "catalog") for p in (libs / "catalog").rglob("*") if p.is_file()}
    assert shipped - copied == set() or all(p.suffix in {".pyc"} for p in shipped - copied), shipped - copied
    code = ("import sys; sys.path.insert(0, sys.argv[1]);"
            "from runway_core.catalog import load_catalog, aws_regions;"
            "from runway_core.analysis import analyze;"
            "an = analyze(sys.argv[2], load_catalog());"
            "print(len(aws_regions()) > 20, sorted({d.code for d in an.all_diagnostics()}))")
    # The dependencies (pydantic, ruamel) come from this venv's site-packages; the project's
    # own packages only from the copy (-I drops the working folder and PYTHONPATH).
    out = subprocess.run([sys.executable, "-I", "-c", code, str(libs), str(repo / "examples" / "orders" / "runway.yaml")],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "True" and "RW140" in out.stdout, out.stdout


def test_the_bundled_server_reports_the_projects_version_without_a_dist_info(tmp_path):
    """The bundle (scripts/bundle.py) copies ``runway_core`` and ``runway_lsp`` without a
    ``runway_tooling-*.dist-info``: ``runway_lsp.__version__`` (``serverInfo.version`` in the
    ``initialize`` answer, LSP 3.17 §"Initialize Request") is still the project's version, the
    one ``pyproject.toml`` reads from ``runway_core.__version__`` (issue 26: it was ``0+unknown``)."""
    repo = LAUNCHER.parents[3]
    for package in ("runway_core", "runway_lsp"):
        (tmp_path / package).mkdir()
        shutil.copy2(repo / package / "__init__.py", tmp_path / package / "__init__.py")
    code = "import sys; sys.path.insert(0, sys.argv[1]); import runway_lsp, runway_core; print(runway_lsp.__version__, runway_core.__version__)"
    # -I -S: no site-packages, so no dist-info of this checkout's editable install is on sys.path.
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    server, core = done.stdout.split()
    assert server == core and server != "0+unknown"
    assert server == _source_version(repo)


def _source_version(repo: Path) -> str:
    """``runway_core.__version__`` as written in its source (what setuptools' ``attr:`` reads)."""
    import re

    return re.search(r'^__version__ = "([^"]+)"', (repo / "runway_core" / "__init__.py").read_text(encoding="utf-8"), re.M).group(1)


def test_check_refuses_a_bundle_built_for_another_platform(tmp_path):
    """A darwin-arm64 .vsix installed on Linux: its ``_pydantic_core.cpython-3XY-darwin.so``
    ends with ``.so``, one of Linux's ``EXTENSION_SUFFIXES``, but is not a name this Python
    imports; ``--check`` says ``no-native`` instead of starting a server that dies at import."""
    launcher = _layout(tmp_path, native=False)
    nodot = "{}{}".format(*sys.version_info[:2])
    other = "darwin.so" if sys.platform != "darwin" else "x86_64-linux-gnu.so"
    (launcher.parent.parent / "libs" / "pydantic_core" / f"_pydantic_core.cpython-{nodot}-{other}").write_bytes(b"")
    answer = json.loads(_run(launcher, "--check", cwd=tmp_path).stdout)
    assert answer["ok"] is False and answer["code"] == "no-native"
