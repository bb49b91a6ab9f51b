"""Check that a platform ``.vsix`` holds the compiled modules of its own platform, for every
bundled CPython.

Usage: ``python scripts/check_vsix.py FILE.vsix [--target linux-x64]`` (the target defaults to
the one in the package's ``extension.vsixmanifest``). Any Python 3.11+ runs it (stdlib only).

The ``.vsix`` is a zip (the Open Packaging Conventions layout ``vsce`` writes): the extension's
files under ``extension/``, its identity in ``extension.vsixmanifest``
(``<Identity … TargetPlatform="linux-x64"/>``). What is checked, each against the target:

1. the manifest's ``TargetPlatform`` and ``bundled/libs/BUNDLE.json``'s ``target``;
2. every wheel ``BUNDLE.json`` records for each CPython (``scripts/bundle.py``, from pip's
   ``--report``): its tags (the wheel file name, PEP 427 / the binary distribution format spec)
   are ``py3-none-any`` or this CPython (``cpXY``, or ``abi3``) on a platform tag of the target
   (``manylinux…_x86_64`` for linux-x64, ``musllinux…_x86_64`` for alpine-x64,
   ``macosx_…_arm64`` or ``universal2`` for darwin-arm64, ``win_amd64`` …); every requirement
   has one for every CPython, except the ones ``BUNDLE.json`` lists as ``skipped``;
3. every compiled file under ``bundled/libs`` (``.so``, ``.pyd``, ``.dylib``, ``.dll``):
   its name carries the extension-module suffix CPython uses on the target for one of the
   bundled versions (``importlib.machinery.EXTENSION_SUFFIXES``: ``.cpython-312-x86_64-linux-gnu.so``,
   ``.cpython-312-x86_64-linux-musl.so``, ``.cpython-312-darwin.so``, ``.cp312-win_amd64.pyd``,
   or the stable ABI's ``.abi3.so`` / ``.pyd``), and its own header says the same machine:
   ELF ``e_machine`` (x86-64 62, AArch64 183; and the C library it needs, ``libc.so.6`` for
   glibc, ``libc.so`` or ``libc.musl-*.so.1`` for musl), Mach-O ``cputype`` (x86_64 0x01000007, arm64 0x0100000C, a
   universal binary holding it), PE ``Machine`` (AMD64 0x8664, ARM64 0xAA64);
4. every compiled module (``pydantic_core/_pydantic_core``, ``_ruamel_yaml``) exists for every
   bundled CPython (or as one ``abi3`` module), except a version ``BUNDLE.json`` says was
   skipped for that distribution;
5. the diagnostics reference rendered at package time (``scripts/render-docs.mjs``) for the
   docs view: ``bundled/docs/index.json`` and every page it lists; every code heading of the
   shipped ``bundled/libs/docs/diagnostics.md`` has its anchor, an ``id`` of the rendered page;
   every link of every page resolves inside the package (``#anchor``: an id of the page;
   ``command:runway.openDocs?["page","anchor"]``: a listed page and one of its ids) or is
   http(s)/mailto; no page holds a script, image, frame, style sheet or inline style of its own.

Prints one line per finding and a summary; exit 0 when the package is right, 1 when a check
failed, 2 when the file cannot be read as a ``.vsix`` with a bundle.
"""

from __future__ import annotations

import argparse
import json
import re
import struct
import sys
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote

LIBS = "extension/bundled/libs/"


@dataclass(frozen=True)
class Platform:
    """What CPython and the wheel tags look like on one VS Code target."""

    #: ``elf``, ``macho`` or ``pe``
    binary: str
    #: ELF e_machine, Mach-O cputype or PE Machine of the target's CPU
    machine: int
    #: the extension-module suffix for CPython ``{v}`` (``312``), from CPython's own suffixes
    suffix: str
    #: the stable-ABI module suffix
    abi3: str
    #: a regular expression a wheel's platform tag must match
    wheel_platform: str
    #: ``gnu`` or ``musl`` for Linux: the C library the modules may need
    libc: str | None = None


X64_ELF, ARM64_ELF = 62, 183  # EM_X86_64, EM_AARCH64 (System V ABI, elf.h)
X64_MACHO, ARM64_MACHO = 0x01000007, 0x0100000C  # CPU_TYPE_X86_64, CPU_TYPE_ARM64 (mach/machine.h)
X64_PE, ARM64_PE = 0x8664, 0xAA64  # IMAGE_FILE_MACHINE_AMD64 / _ARM64 (the PE format spec)

#: VS Code's targets (``vsce package --target``) as scripts/bundle.py builds them.
PLATFORMS = {
    "linux-x64": Platform("elf", X64_ELF, ".cpython-{v}-x86_64-linux-gnu.so", ".abi3.so", r"^(manylinux\w*_x86_64|linux_x86_64)$", "gnu"),
    "linux-arm64": Platform("elf", ARM64_ELF, ".cpython-{v}-aarch64-linux-gnu.so", ".abi3.so", r"^(manylinux\w*_aarch64|linux_aarch64)$", "gnu"),
    "alpine-x64": Platform("elf", X64_ELF, ".cpython-{v}-x86_64-linux-musl.so", ".abi3.so", r"^musllinux_\d+_\d+_x86_64$", "musl"),
    "alpine-arm64": Platform("elf", ARM64_ELF, ".cpython-{v}-aarch64-linux-musl.so", ".abi3.so", r"^musllinux_\d+_\d+_aarch64$", "musl"),
    "darwin-x64": Platform("macho", X64_MACHO, ".cpython-{v}-darwin.so", ".abi3.so", r"^macosx_\d+_\d+_(x86_64|intel|universal2?)$"),
    "darwin-arm64": Platform("macho", ARM64_MACHO, ".cpython-{v}-darwin.so", ".abi3.so", r"^macosx_\d+_\d+_(arm64|universal2)$"),
    "win32-x64": Platform("pe", X64_PE, ".cp{v}-win_amd64.pyd", ".pyd", r"^win_amd64$"),
    "win32-arm64": Platform("pe", ARM64_PE, ".cp{v}-win_arm64.pyd", ".pyd", r"^win_arm64$"),
}

COMPILED = (".so", ".pyd", ".dylib", ".dll")


class Unreadable(Exception):
    """The file is not a .vsix with a bundled server."""


def _manifest_target(zf: zipfile.ZipFile) -> str | None:
    try:
        text = zf.read("extension.vsixmanifest").decode("utf-8")
    except KeyError:
        raise Unreadable("no extension.vsixmanifest: not a .vsix") from None
    m = re.search(r"<Identity\b[^>]*\bTargetPlatform=\"([^\"]+)\"", text)
    return m.group(1) if m else None


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them (``ruamel.yaml.clib`` = ``ruamel_yaml_clib``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_tags(filename: str) -> tuple[str, list[str], list[str], list[str]]:
    """``(distribution, python tags, abi tags, platform tags)`` of a wheel file name
    (``{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl``, compressed tag sets split at ``.``)."""
    parts = filename[: -len(".whl")].split("-")
    if not filename.endswith(".whl") or len(parts) not in (5, 6):
        raise ValueError(f"not a wheel file name: {filename}")
    py, abi, plat = parts[-3:]
    return normalise(parts[0]), py.split("."), abi.split("."), plat.split(".")


def check_wheels(bundle: dict, target: str, plat: Platform) -> list[str]:
    """Check 2 of the module docstring."""
    errors: list[str] = []
    wheels: dict[str, list[str]] = bundle.get("wheels") or {}
    skipped = {(normalise(s.split("==")[0]), m.group(1)) for s in bundle.get("skipped", []) if (m := re.search(r"CPython (\d+\.\d+)", s))}
    wanted = {normalise(r.split("==")[0]) for r in bundle.get("requirements", [])}
    if not wheels:
        return ["BUNDLE.json records no wheels (built by an older scripts/bundle.py?)"]
    for version in bundle.get("pythons", []):
        nodot = version.replace(".", "")
        got: set[str] = set()
        for name in wheels.get(version, []):
            try:
                dist, pys, abis, plats = wheel_tags(name)
            except ValueError as e:
                errors.append(str(e))
                continue
            got.add(dist)
            if plats == ["any"]:
                continue
            if not any(re.match(plat.wheel_platform, p) for p in plats):
                errors.append(f"CPython {version}: {name} is for {'.'.join(plats)}, not {target}")
            if not (f"cp{nodot}" in pys or "abi3" in abis):
                errors.append(f"CPython {version}: {name} is for {'.'.join(pys)}-{'.'.join(abis)}, not cp{nodot}")
        for dist in sorted(wanted - got):
            if (dist, version) not in skipped:
                errors.append(f"CPython {version}: no wheel of {dist} in the bundle")
    return errors


def machine_of(data: bytes) -> tuple[str, set[int]]:
    """``(format, machines)`` from a compiled file's header: ``elf``/``macho``/``pe`` and the
    machine numbers it is built for (several for a universal Mach-O); ``("unknown", set())``."""
    if data[:4] == b"\x7fELF":
        order = "<" if data[5] == 1 else ">"
        return "elf", {struct.unpack_from(order + "H", data, 18)[0]}
    if data[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"):  # MH_MAGIC(_64), little-endian
        return "macho", {struct.unpack_from("<I", data, 4)[0]}
    if data[:4] in (b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf"):  # FAT_MAGIC(_64), big-endian
        count = struct.unpack_from(">I", data, 4)[0]
        step = 20 if data[3] == 0xBE else 32
        return "macho", {struct.unpack_from(">I", data, 8 + k * step)[0] for k in range(min(count, 16))}
    if data[:2] == b"MZ" and len(data) >= 0x40:
        pe = struct.unpack_from("<I", data, 0x3C)[0]
        if data[pe : pe + 4] == b"PE\0\0":
            return "pe", {struct.unpack_from("<H", data, pe + 4)[0]}
    return "unknown", set()


def elf_needed(data: bytes) -> list[str]:
    """The ``DT_NEEDED`` libraries of a 64-bit ELF file (its ``.dynamic`` section's entries,
    names in the section it links to); [] when it has none or is not 64-bit."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return []
    o = "<" if data[5] == 1 else ">"
    shoff, = struct.unpack_from(o + "Q", data, 0x28)
    shentsize, shnum = struct.unpack_from(o + "HH", data, 0x3A)
    sections = [struct.unpack_from(o + "IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    out = []
    for _name, sh_type, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if sh_type != 6 or not entsize:  # SHT_DYNAMIC
            continue
        strtab = sections[link]
        for k in range(size // entsize):
            tag, val = struct.unpack_from(o + "qQ", data, offset + k * entsize)
            if tag == 0:  # DT_NULL
                break
            if tag == 1:  # DT_NEEDED
                start = strtab[4] + val
                out.append(data[start : data.index(b"\0", start)].decode("ascii", "replace"))
    return out


def check_modules(zf: zipfile.ZipFile, bundle: dict, target: str, plat: Platform) -> tuple[list[str], int]:
    """Checks 3 and 4 of the module docstring; also the number of compiled files checked."""
    errors: list[str] = []
    versions = [v.replace(".", "") for v in bundle.get("pythons", [])]
    have: dict[str, set[str]] = {}  # module stem -> CPython versions ("abi3": all)
    compiled = [n for n in zf.namelist() if n.startswith(LIBS) and (n.endswith(COMPILED) or ".so." in PurePosixPath(n).name)]
    for name in compiled:
        rel = name[len(LIBS) :]
        kind, machines = machine_of(zf.read(name))
        if kind != plat.binary or plat.machine not in machines:
            errors.append(f"{rel}: a {kind} file for machine(s) {', '.join(hex(m) for m in sorted(machines)) or '?'}, not {target} ({plat.binary} {hex(plat.machine)})")
        if kind == "elf" and plat.libc is not None:
            libcs = [lib for lib in elf_needed(zf.read(name)) if lib.startswith(("libc.so", "libc.musl"))]
            # glibc's soname is libc.so.6; musl's is libc.so (Alpine also names it libc.musl-<arch>.so.1)
            wrong = [lib for lib in libcs if (lib != "libc.so.6") != (plat.libc == "musl")]
            if wrong:
                errors.append(f"{rel}: needs {', '.join(wrong)}, not the {plat.libc} C library of {target}")
        for v in versions:
            if rel.endswith(plat.suffix.format(v=v)):
                have.setdefault(rel[: -len(plat.suffix.format(v=v))], set()).add(v)
                break
        else:
            if rel.endswith(plat.abi3) and not re.search(r"\.(cpython-|cp)\d+", rel):
                have.setdefault(rel[: -len(plat.abi3)], set()).add("abi3")
            elif rel.endswith((".so", ".pyd")) and not re.search(r"\.(libs|dylibs)/", rel):  # auditwheel's / delocate's vendored libraries are not modules
                errors.append(f"{rel}: not an extension module of CPython {', '.join(bundle.get('pythons', []))} on {target}")
    # Which distribution each module stem belongs to: the RECORD files of the dist-infos.
    owner: dict[str, str] = {}
    for name in zf.namelist():
        if name.startswith(LIBS) and name.endswith(".dist-info/RECORD"):
            dist = normalise(PurePosixPath(name).parent.name.split("-", 1)[0])
            for line in zf.read(name).decode("utf-8", "replace").splitlines():
                path = line.split(",", 1)[0]
                for stem in have:
                    if path.startswith(stem + "."):
                        owner[stem] = dist
    skipped = {(normalise(s.split("==")[0]), m.group(1).replace(".", "")) for s in bundle.get("skipped", []) if (m := re.search(r"CPython (\d+\.\d+)", s))}
    for stem, got in sorted(have.items()):
        if "abi3" in got:
            continue
        for v in versions:
            if v not in got and (owner.get(stem, ""), v) not in skipped:
                errors.append(f"{stem}: no compiled module for CPython {v[0]}.{v[1:]} on {target}")
    if "pydantic_core/_pydantic_core" not in have:
        errors.append(f"pydantic_core/_pydantic_core: no compiled module for {target} at all")
    return errors, len(compiled)


DOCS = "extension/bundled/docs/"
OPEN_DOCS = "command:runway.openDocs?"


def check_docs(zf: zipfile.ZipFile) -> tuple[list[str], int]:
    """Check 5 of the module docstring; also the number of links checked."""
    names = set(zf.namelist())
    if DOCS + "index.json" not in names:
        return [f"{DOCS}index.json missing: the diagnostics reference is not rendered (scripts/render-docs.mjs)"], 0
    try:
        index = json.loads(zf.read(DOCS + "index.json"))
        pages: dict[str, dict] = index["pages"]
        entry: str = index["entry"]
        codes: dict[str, str] = index["codes"]
    except (ValueError, KeyError, TypeError) as e:
        return [f"{DOCS}index.json is not the renderer's index: {e}"], 0
    errors: list[str] = []
    ids: dict[str, set[str]] = {}
    html: dict[str, str] = {}
    for page, info in pages.items():
        name = DOCS + str(info.get("file", ""))
        if name not in names or ".." in PurePosixPath(name).parts:
            errors.append(f"{page}: its rendered page {name} is not in the package")
            continue
        html[page] = zf.read(name).decode("utf-8")
        ids[page] = set(re.findall(r'\sid="([^"]+)"', html[page]))
        if missing := [a for a in info.get("anchors", []) if a not in ids[page]]:
            errors.append(f"{page}: the index lists anchors the page lacks: {', '.join(missing[:5])}")
        if m := re.search(r"<(script|img|iframe|link|object|embed|style)\b", html[page], re.I):
            errors.append(f"{page}: holds a <{m.group(1)}> (raw HTML must be text)")
        if re.search(r'\sstyle="', html[page]):
            errors.append(f"{page}: an inline style attribute (the docs view's CSP refuses it)")
    if entry not in html:
        return errors + [f"the entry page {entry} is not rendered"], 0
    try:
        shipped = zf.read(LIBS + "docs/diagnostics.md").decode("utf-8")
    except KeyError:
        shipped = ""
    for code in re.findall(r"^#{2,4}\s+(RW\d{3})\b", shipped, re.M):
        if codes.get(code) not in ids[entry]:
            errors.append(f"{code}: no heading of the rendered {entry} for its link")
    links = 0
    for page, text in html.items():
        for href in re.findall(r'<a\s[^>]*?href="([^"]*)"', text):
            links += 1
            href = href.replace("&amp;", "&")
            if href.startswith("#"):
                if href[1:] not in ids[page]:
                    errors.append(f"{page}: dead link {href}")
            elif href.startswith(OPEN_DOCS):
                try:
                    to = json.loads(unquote(href[len(OPEN_DOCS) :]))
                    target, anchor = to[0], (to[1] if len(to) > 1 else "")
                except (ValueError, IndexError, TypeError):
                    errors.append(f"{page}: a link that is not the docs view's: {href}")
                    continue
                if target not in ids:
                    errors.append(f"{page}: link to {target}, which is not rendered")
                elif anchor and anchor not in ids[target]:
                    errors.append(f"{page}: dead link to {target}#{anchor}")
            elif not re.match(r"^(https?|mailto):", href):
                errors.append(f"{page}: a link that does not work in the package: {href}")
    return errors, links


def check(path: str, target: str | None = None) -> tuple[str, list[str], int]:
    """``(target, findings, compiled files checked)`` of the .vsix at ``path``; raises
    :class:`Unreadable`."""
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as e:
        raise Unreadable(f"{path}: {e}") from None
    with zf:
        declared = _manifest_target(zf)
        target = target or declared
        if target not in PLATFORMS:
            raise Unreadable(f"{path}: target {target!r} is not one of {', '.join(PLATFORMS)}")
        errors = []
        if declared != target:
            errors.append(f"extension.vsixmanifest says TargetPlatform {declared!r}, not {target}")
        try:
            bundle = json.loads(zf.read(LIBS + "BUNDLE.json"))
        except KeyError:
            raise Unreadable(f"{path}: no {LIBS}BUNDLE.json: the server is not bundled") from None
        if bundle.get("target") != target:
            errors.append(f"BUNDLE.json says target {bundle.get('target')!r}, not {target}")
        plat = PLATFORMS[target]
        errors += check_wheels(bundle, target, plat)
        found, count = check_modules(zf, bundle, target, plat)
        docs, _links = check_docs(zf)
        return target, errors + found + docs, count


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("vsix", nargs="+")
    p.add_argument("--target", choices=sorted(PLATFORMS), help="default: the package's own TargetPlatform")
    args = p.parse_args(argv)
    failed = False
    for path in args.vsix:
        try:
            target, errors, count = check(path, args.target)
        except Unreadable as e:
            print(f"check_vsix: {e}", file=sys.stderr)
            return 2
        for e in errors:
            print(f"{path}: {e}")
        failed = failed or bool(errors)
        print(f"check_vsix: {path} ({target}): {count} compiled files, {'FAILED, ' + str(len(errors)) + ' finding(s)' if errors else 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
