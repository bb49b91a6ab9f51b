"""Fill ``bundled/libs`` with the language server and its Python dependencies for one VS Code target.

Usage: ``python scripts/bundle.py [--target linux-x64] [--pythons 3.11,3.12,3.13,3.14] [--offline]``

Any Python with pip runs it (CI: the project's ``.venv/bin/python``). For every CPython version
of ``--pythons`` it installs ``bundled/requirements.txt`` with ``pip install --target
--platform ... --python-version X --only-binary=:all: --no-deps`` into a folder of its own, and
merges them: the pure-Python files are the same in each, the compiled modules differ by name
(``_pydantic_core.cpython-312-x86_64-linux-gnu.so``), so one ``libs`` folder serves every
version and Python's import picks the module of the running interpreter. Then the project's
own ``runway_core``, ``runway_lsp`` and ``catalog`` (with its data files, as ``pyproject.toml``
packages them) are copied in; ``deploy_engine`` is not: the server never imports it. And
``docs/diagnostics.md`` goes to ``bundled/libs/docs/``: next to the packages, as in a checkout,
where the server finds it for ``codeDescription.href`` and the extension opens a code's entry.

Wheels come from ``.bundle-cache/wheels/<target>/``; the ones missing there are downloaded from
PyPI first (``pip download``), so a second build is offline; ``--offline`` never downloads.
A compiled wheel that PyPI does not have for one version is an error, except for
``ruamel.yaml.clib`` (ruamel.yaml then uses its pure-Python parser on that version).

Writes ``bundled/libs/BUNDLE.json`` (``{"target", "pythons", "requirements", "skipped",
"wheels"}``; ``wheels`` maps each CPython version to the wheel file names pip installed for
it, from its ``--report``), read by the launcher ``bundled/tool/runway_server.py`` for its
messages and by ``scripts/check_vsix.py``. Exit 0, or 1 with pip's error.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXT = Path(__file__).resolve().parent.parent
REPO = EXT.parent
LIBS = EXT / "bundled" / "libs"
DOCS = LIBS / "docs"  # next to the packages, where runway_core looks for the docs folder too
#: Reference pages the extension opens itself (a diagnostic code's link): copied as they are.
SHIPPED_DOCS = ("diagnostics.md",)
REQUIREMENTS = EXT / "bundled" / "requirements.txt"
CACHE = EXT / ".bundle-cache" / "wheels"
def _package_data(package: str) -> tuple[str, ...]:
    """The data-file patterns pyproject.toml's ``[tool.setuptools.package-data]`` ships for
    ``package``: read from there so the bundle can never miss a file the wheel has (a catalogue
    file missing from the .vsix broke every analysis of the bundled server)."""
    import tomllib

    with open(REPO / "pyproject.toml", "rb") as f:
        table = tomllib.load(f).get("tool", {}).get("setuptools", {}).get("package-data", {})
    return tuple(table.get(package, ()))


#: Project packages the server imports, with the data files pyproject.toml ships for them.
PACKAGES = {"runway_core": ("*.py",), "runway_lsp": ("*.py",), "catalog": ("*.py", *_package_data("catalog"))}
#: Compiled dependencies the server runs without (a pure-Python fallback exists).
OPTIONAL = {"ruamel.yaml.clib"}
DEFAULT_PYTHONS = "3.11,3.12,3.13,3.14"

#: VS Code's platform targets (`vsce package --target`) -> pip platform tags (pip adds the
#: older manylinux / macOS versions each tag is compatible with, not the older musllinux
#: ones: pydantic-core 2.50.5 has musllinux_1_1 wheels only, which PEP 656 says run on any
#: musl 1.2 too, so both are listed).
PLATFORMS = {
    "linux-x64": ["manylinux_2_28_x86_64", "manylinux2014_x86_64"],
    "linux-arm64": ["manylinux_2_28_aarch64", "manylinux2014_aarch64"],
    "alpine-x64": ["musllinux_1_2_x86_64", "musllinux_1_1_x86_64"],
    "alpine-arm64": ["musllinux_1_2_aarch64", "musllinux_1_1_aarch64"],
    "darwin-x64": ["macosx_13_0_x86_64"],
    "darwin-arm64": ["macosx_13_0_arm64"],
    "win32-x64": ["win_amd64"],
    "win32-arm64": ["win_arm64"],
}


def host_target() -> str:
    machine = platform.machine().lower()
    arch = "arm64" if machine in ("arm64", "aarch64") else "x64"
    system = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)
    return f"{system}-{arch}"


def requirements() -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line]


def pip(*args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args]
    return subprocess.run(cmd, capture_output=True, text=True)


def platform_args(target: str, version: str) -> list[str]:
    nodot = version.replace(".", "")
    args = ["--only-binary=:all:", "--no-deps", "--implementation", "cp", "--python-version", version, "--abi", f"cp{nodot}", "--abi", "abi3", "--abi", "none"]
    for tag in PLATFORMS[target]:
        args += ["--platform", tag]
    return args


def installed_wheels(report: Path) -> list[str]:
    """The wheel file names pip installed, from its ``--report`` (pip's installation report,
    format version 1: ``install[].download_info.url``, here ``file://`` URLs of the cache)."""
    data = json.loads(report.read_text(encoding="utf-8"))
    return sorted(item["download_info"]["url"].rsplit("/", 1)[-1] for item in data.get("install", []))


def install(requirements: list[str], target: str, version: str, into: Path, offline: bool, wheels: list[str] | None = None) -> bool:
    """Install `requirements` for one Python version; False when PyPI has no wheel for one of
    them. The names of the wheels installed are appended to ``wheels``."""
    cache = CACHE / target
    cache.mkdir(parents=True, exist_ok=True)
    common = platform_args(target, version)
    report = into.parent / f"report-{version}-{len(requirements)}.json"
    args = ["--no-index", "--find-links", str(cache), "--target", str(into), "--upgrade", "--no-compile", "--report", str(report), *common, *requirements]

    def done_ok() -> bool:
        if wheels is not None:
            wheels.extend(installed_wheels(report))
        return True

    done = pip("install", *args)
    if done.returncode == 0:
        return done_ok()
    if offline:
        raise SystemExit(f"bundle: {' '.join(requirements)} for CPython {version} ({target}) not all in {cache} and --offline was given:\n{done.stderr}")
    got = pip("download", "--dest", str(cache), *common, *requirements)
    if got.returncode != 0:
        if "No matching distribution" in got.stderr or "Could not find a version" in got.stderr:
            return False
        raise SystemExit(f"bundle: pip download failed:\n{got.stderr}")
    done = pip("install", *args)
    if done.returncode != 0:
        raise SystemExit(f"bundle: pip install failed:\n{done.stderr}")
    return done_ok()


def merge(src: Path, dest: Path) -> None:
    """Copy `src` into `dest`; a file already there must be the same (only compiled modules differ by name)."""
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        out = dest / rel
        if path.is_dir():
            out.mkdir(parents=True, exist_ok=True)
        elif not out.exists():
            shutil.copy2(path, out)
        elif rel.parts[0].endswith(".dist-info"):
            continue  # RECORD lists the version's own compiled module; the first one is kept
        elif not filecmp.cmp(path, out, shallow=False):
            raise SystemExit(f"bundle: {rel} differs between Python versions; cannot share one libs folder")


def copy_project(dest: Path) -> None:
    for package, patterns in PACKAGES.items():
        src = REPO / package
        for pattern in patterns:
            for path in src.rglob(pattern):
                if "__pycache__" in path.parts:
                    continue
                out = dest / package / path.relative_to(src)
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--target", default=host_target(), choices=sorted(PLATFORMS))
    p.add_argument("--pythons", default=DEFAULT_PYTHONS, help=f"CPython versions, comma-separated (default {DEFAULT_PYTHONS})")
    p.add_argument("--offline", action="store_true", help="use only the wheels in .bundle-cache")
    args = p.parse_args(argv)
    versions = [v.strip() for v in args.pythons.split(",") if v.strip()]
    reqs = requirements()
    if LIBS.exists():
        shutil.rmtree(LIBS)
    LIBS.mkdir(parents=True)
    skipped: list[str] = []
    wheels: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="runway-bundle-") as tmp:
        for version in versions:
            into = Path(tmp) / version
            required = [r for r in reqs if r.split("==")[0].lower() not in OPTIONAL]
            got = wheels.setdefault(version, [])
            if not install(required, args.target, version, into, args.offline, got):
                raise SystemExit(f"bundle: PyPI lacks a wheel of {' '.join(required)} for CPython {version} on {args.target}")
            for req in (r for r in reqs if r not in required):
                if not install([req], args.target, version, into, args.offline, got):
                    skipped.append(f"{req} (CPython {version})")
            merge(into, LIBS)
    for junk in [*LIBS.rglob("__pycache__"), LIBS / "bin"]:
        shutil.rmtree(junk, ignore_errors=True)
    copy_project(LIBS)
    DOCS.mkdir(parents=True, exist_ok=True)
    for name in SHIPPED_DOCS:
        shutil.copy2(REPO / "docs" / name, DOCS / name)
    info = {"target": args.target, "pythons": versions, "requirements": reqs, "skipped": skipped, "wheels": {v: sorted(w) for v, w in wheels.items()}}
    (LIBS / "BUNDLE.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    size = sum(f.stat().st_size for f in LIBS.rglob("*") if f.is_file())
    print(f"bundle: {args.target}, CPython {', '.join(versions)}: {size / 1e6:.1f} MB in {LIBS.relative_to(EXT)}" + (f"; without {', '.join(skipped)}" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
