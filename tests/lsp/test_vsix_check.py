"""vscode-extension/scripts/check_vsix.py, the check that a platform .vsix holds the compiled
modules of its own platform for every bundled CPython (.ci/run runs it on the real linux-x64
and darwin-arm64 packages; the release workflow on every target's).

Here the .vsix files are laid out by hand, with compiled-module files that are only headers,
written as the formats define them: ELF (System V gABI: ``e_machine`` at byte 18; a
``SHT_DYNAMIC`` section of ``DT_NEEDED`` entries naming ``.dynstr`` strings), Mach-O
(``mach-o/loader.h``: ``MH_MAGIC_64`` then ``cputype``; ``mach-o/fat.h``: big-endian
``FAT_MAGIC``, ``nfat_arch``, 20-byte ``fat_arch`` records) and PE (``e_lfanew`` at 0x3C,
``PE\\0\\0``, ``Machine``). The names follow CPython's ``EXTENSION_SUFFIXES`` on each platform
and the wheel names PEP 427's ``{name}-{version}-{python}-{abi}-{platform}.whl``.
"""

from __future__ import annotations

import importlib.util
import json
import struct
import sys
import zipfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "vscode-extension" / "scripts" / "check_vsix.py"
_spec = importlib.util.spec_from_file_location("check_vsix", SCRIPT)
check_vsix = importlib.util.module_from_spec(_spec)
sys.modules["check_vsix"] = check_vsix  # its dataclass looks its module up there
_spec.loader.exec_module(check_vsix)

PYTHONS = ["3.11", "3.12"]


def elf(machine: int, needed: tuple[str, ...] = ()) -> bytes:
    """A 64-bit little-endian ELF file: the header, a ``.dynstr`` and a ``.dynamic`` with one
    ``DT_NEEDED`` per name (then ``DT_NULL``), and three section headers (null, strtab, dynamic)."""
    dynstr = b"\0" + b"".join(n.encode() + b"\0" for n in needed)
    offsets, at = [], 1
    for n in needed:
        offsets.append(at)
        at += len(n) + 1
    dynamic = b"".join(struct.pack("<qQ", 1, off) for off in offsets) + struct.pack("<qQ", 0, 0)
    str_off = 64
    dyn_off = str_off + len(dynstr)
    sh_off = dyn_off + len(dynamic)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, machine, 1, 0, 0, sh_off, 0, 64, 0, 0, 64, 3, 0)
    null = bytes(64)
    strtab = struct.pack("<IIQQQQIIQQ", 0, 3, 0, 0, str_off, len(dynstr), 0, 0, 1, 0)  # SHT_STRTAB
    dyn = struct.pack("<IIQQQQIIQQ", 0, 6, 0, 0, dyn_off, len(dynamic), 1, 0, 8, 16)  # SHT_DYNAMIC, link -> 1
    return header + dynstr + dynamic + null + strtab + dyn


def macho(cputype: int) -> bytes:
    return b"\xcf\xfa\xed\xfe" + struct.pack("<Ii", cputype, 0) + bytes(20)


def fat(*cputypes: int) -> bytes:
    return b"\xca\xfe\xba\xbe" + struct.pack(">I", len(cputypes)) + b"".join(struct.pack(">iiIII", c, 0, 4096, 0, 12) for c in cputypes)


def pe(machine: int) -> bytes:
    return b"MZ" + bytes(0x3A) + struct.pack("<I", 0x40) + b"PE\0\0" + struct.pack("<H", machine) + bytes(18)


GLIBC = ("libgcc_s.so.1", "libc.so.6")
MUSL = ("libgcc_s-f685abf1.so.1", "libc.so")


def layout(target: str, modules: dict[str, bytes], wheels: dict[str, list[str]], declared: str | None = None, skipped=()) -> dict[str, bytes]:
    files = {
        "extension.vsixmanifest": f'<PackageManifest><Metadata><Identity Id="runway-yaml" Version="0.1.0" Publisher="runway-tooling" TargetPlatform="{declared or target}"/></Metadata></PackageManifest>'.encode(),
        "extension/bundled/libs/BUNDLE.json": json.dumps(
            {"target": target, "pythons": PYTHONS, "requirements": ["pydantic-core==2.50.5", "ruamel.yaml.clib==0.2.15", "pygls==2.1.1"], "skipped": list(skipped), "wheels": wheels}
        ).encode(),
        "extension/bundled/libs/ruamel_yaml_clib-0.2.15.dist-info/RECORD": b"_ruamel_yaml.cpython-311-x86_64-linux-gnu.so,sha256=x,1\n",
        "extension/bundled/libs/pydantic_core-2.50.5.dist-info/RECORD": b"pydantic_core/_pydantic_core.cpython-311-x86_64-linux-gnu.so,sha256=x,1\n",
    }
    files.update({f"extension/bundled/libs/{k}": v for k, v in modules.items()})
    files.update(docs_files())
    return files


def docs_files(entry_html: str | None = None, format_html: str | None = None, index: dict | None = None) -> dict[str, bytes]:
    """A rendered reference as scripts/render-docs.mjs writes it: two pages linking each other."""
    entry_html = entry_html if entry_html is not None else (
        '<h1 id="diagnostics">Diagnostics</h1>\n<h3 id="rw140--image-not-pinned-by-digest">RW140 — image not pinned by digest</h3>\n'
        '<p><a href="#diagnostics">top</a>, <a href="command:runway.openDocs?%5B%22format.md%22%2C%22workloads%22%5D">format</a>, '
        '<a href="https://aws.amazon.com/">AWS</a>, <span class="unbundled" title="docs/ci.md">ci</span></p>\n'
    )
    format_html = format_html if format_html is not None else '<h1 id="format">Format</h1>\n<h2 id="workloads">Workloads</h2>\n<a href="command:runway.openDocs?%5B%22diagnostics.md%22%5D">back</a>\n'
    index = index or {
        "entry": "diagnostics.md",
        "pages": {
            "diagnostics.md": {"file": "diagnostics.html", "title": "Diagnostics", "anchors": ["diagnostics", "rw140--image-not-pinned-by-digest"]},
            "format.md": {"file": "format.html", "title": "Format", "anchors": ["format", "workloads"]},
        },
        "codes": {"RW140": "rw140--image-not-pinned-by-digest"},
    }
    return {
        "extension/bundled/libs/docs/diagnostics.md": b"# Diagnostics\n\n### RW140 \xe2\x80\x94 image not pinned by digest\n",
        "extension/bundled/docs/index.json": json.dumps(index).encode(),
        "extension/bundled/docs/diagnostics.html": entry_html.encode(),
        "extension/bundled/docs/format.html": format_html.encode(),
    }


def write(tmp_path: Path, files: dict[str, bytes]) -> str:
    path = tmp_path / "x.vsix"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return str(path)


def linux_x64(machine: int = 62, needed=GLIBC, versions=("311", "312")) -> dict[str, bytes]:
    out = {}
    for v in versions:
        out[f"pydantic_core/_pydantic_core.cpython-{v}-x86_64-linux-gnu.so"] = elf(machine, needed)
        out[f"_ruamel_yaml.cpython-{v}-x86_64-linux-gnu.so"] = elf(machine, needed)
    return out


def wheels_for(plat: str, versions=("311", "312")) -> dict[str, list[str]]:
    return {
        f"{v[0]}.{v[1:]}": [f"pydantic_core-2.50.5-cp{v}-cp{v}-{plat}.whl", f"ruamel_yaml_clib-0.2.15-cp{v}-cp{v}-{plat}.whl", "pygls-2.1.1-py3-none-any.whl"]
        for v in versions
    }


def test_a_right_linux_x64_package_passes(tmp_path):
    path = write(tmp_path, layout("linux-x64", linux_x64(), wheels_for("manylinux_2_17_x86_64.manylinux2014_x86_64")))
    target, errors, count = check_vsix.check(path)
    assert (target, errors, count) == ("linux-x64", [], 4)
    assert check_vsix.main([path]) == 0


def test_modules_of_another_machine_fail(tmp_path):
    path = write(tmp_path, layout("linux-x64", linux_x64(machine=183), wheels_for("manylinux_2_17_x86_64")))
    _t, errors, _n = check_vsix.check(path)
    assert len(errors) == 4 and all("not linux-x64" in e and "0xb7" in e for e in errors)
    assert check_vsix.main([path]) == 1


def test_glibc_modules_in_an_alpine_package_fail_on_their_c_library(tmp_path):
    modules = {k.replace("linux-gnu", "linux-musl"): v for k, v in linux_x64().items()}
    _t, errors, _n = check_vsix.check(write(tmp_path, layout("alpine-x64", modules, wheels_for("musllinux_1_1_x86_64"))))
    assert errors and all("needs libc.so.6" in e for e in errors)
    musl = {k.replace("linux-gnu", "linux-musl"): v for k, v in linux_x64(needed=MUSL).items()}
    assert check_vsix.check(write(tmp_path, layout("alpine-x64", musl, wheels_for("musllinux_1_1_x86_64"))))[1] == []


def test_a_cpython_without_its_module_fails_unless_the_bundle_skipped_it(tmp_path):
    modules = linux_x64()
    del modules["_ruamel_yaml.cpython-312-x86_64-linux-gnu.so"]
    wheels = wheels_for("manylinux2014_x86_64")
    wheels["3.12"] = [w for w in wheels["3.12"] if not w.startswith("ruamel")]
    _t, errors, _n = check_vsix.check(write(tmp_path, layout("linux-x64", modules, wheels)))
    assert errors == ["CPython 3.12: no wheel of ruamel-yaml-clib in the bundle", "_ruamel_yaml: no compiled module for CPython 3.12 on linux-x64"]
    skipped = ["ruamel.yaml.clib==0.2.15 (CPython 3.12)"]
    assert check_vsix.check(write(tmp_path, layout("linux-x64", modules, wheels, skipped=skipped)))[1] == []


def test_a_wheel_of_another_platform_or_python_is_named(tmp_path):
    wheels = wheels_for("manylinux2014_x86_64")
    wheels["3.12"][0] = "pydantic_core-2.50.5-cp311-cp311-macosx_11_0_arm64.whl"
    _t, errors, _n = check_vsix.check(write(tmp_path, layout("linux-x64", linux_x64(), wheels)))
    assert errors == [
        "CPython 3.12: pydantic_core-2.50.5-cp311-cp311-macosx_11_0_arm64.whl is for macosx_11_0_arm64, not linux-x64",
        "CPython 3.12: pydantic_core-2.50.5-cp311-cp311-macosx_11_0_arm64.whl is for cp311-cp311, not cp312",
    ]


def test_darwin_modules_are_told_apart_by_their_mach_o_cpu(tmp_path):
    modules = {f"pydantic_core/_pydantic_core.cpython-{v}-darwin.so": macho(0x0100000C) for v in ("311", "312")}
    files = layout("darwin-arm64", modules, wheels_for("macosx_11_0_arm64"))
    assert check_vsix.check(write(tmp_path, files))[1] == []
    # the same package declared darwin-x64: every module is arm64
    files = layout("darwin-x64", modules, wheels_for("macosx_10_12_x86_64"))
    errors = check_vsix.check(write(tmp_path, files))[1]
    assert len(errors) == 2 and all("0x100000c, not darwin-x64" in e for e in errors)
    # a universal2 module holds both
    both = {k: fat(0x01000007, 0x0100000C) for k in modules}
    assert check_vsix.check(write(tmp_path, layout("darwin-x64", both, wheels_for("macosx_10_12_universal2"))))[1] == []


def test_windows_modules_by_name_and_pe_machine(tmp_path):
    modules = {f"pydantic_core/_pydantic_core.cp{v}-win_amd64.pyd": pe(0x8664) for v in ("311", "312")}
    assert check_vsix.check(write(tmp_path, layout("win32-x64", modules, wheels_for("win_amd64"))))[1] == []
    linux_named = {f"pydantic_core/_pydantic_core.cpython-{v}-x86_64-linux-gnu.so": pe(0x8664) for v in ("311", "312")}
    errors = check_vsix.check(write(tmp_path, layout("win32-x64", linux_named, wheels_for("win_amd64"))))[1]
    assert "pydantic_core/_pydantic_core: no compiled module for win32-x64 at all" in errors


def test_the_manifest_target_must_match(tmp_path):
    path = write(tmp_path, layout("linux-x64", linux_x64(), wheels_for("manylinux2014_x86_64"), declared="darwin-arm64"))
    _t, errors, _n = check_vsix.check(path, "linux-x64")
    assert errors[0] == "extension.vsixmanifest says TargetPlatform 'darwin-arm64', not linux-x64"


@pytest.mark.parametrize("content", [b"not a zip", None])
def test_an_unreadable_file_exits_2(tmp_path, content, capsys):
    path = tmp_path / "bad.vsix"
    if content is None:
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("extension.vsixmanifest", '<Identity TargetPlatform="linux-x64"/>')
    else:
        path.write_bytes(content)
    assert check_vsix.main([str(path)]) == 2
    assert "check_vsix:" in capsys.readouterr().err


def _right_linux_x64(tmp_path, **docs) -> str:
    files = layout("linux-x64", linux_x64(), wheels_for("manylinux2014_x86_64"))
    files.update(docs_files(**docs))
    return write(tmp_path, files)


def test_the_rendered_reference_passes_when_every_link_resolves(tmp_path):
    assert check_vsix.check(_right_linux_x64(tmp_path))[1] == []


def test_a_package_without_the_rendered_reference_fails(tmp_path):
    files = layout("linux-x64", linux_x64(), wheels_for("manylinux2014_x86_64"))
    files = {k: v for k, v in files.items() if not k.startswith("extension/bundled/docs/")}
    errors = check_vsix.check(write(tmp_path, files))[1]
    assert errors == ["extension/bundled/docs/index.json missing: the diagnostics reference is not rendered (scripts/render-docs.mjs)"]


def test_dead_links_and_anchors_of_the_rendered_pages_are_named(tmp_path):
    entry = (
        '<h1 id="diagnostics">Diagnostics</h1>\n<h3 id="rw140--image-not-pinned-by-digest">RW140</h3>\n'
        '<a href="#nope">a</a> <a href="command:runway.openDocs?%5B%22format.md%22%2C%22gone%22%5D">b</a> '
        '<a href="command:runway.openDocs?%5B%22ci.md%22%5D">c</a> <a href="format.md#workloads">d</a> <a href="javascript:x">e</a>'
    )
    errors = check_vsix.check(_right_linux_x64(tmp_path, entry_html=entry))[1]
    assert errors == [
        "diagnostics.md: dead link #nope",
        "diagnostics.md: dead link to format.md#gone",
        "diagnostics.md: link to ci.md, which is not rendered",
        "diagnostics.md: a link that does not work in the package: format.md#workloads",
        "diagnostics.md: a link that does not work in the package: javascript:x",
    ]


def test_a_code_heading_without_its_rendered_anchor_and_raw_html_fail(tmp_path):
    entry = '<h1 id="diagnostics">Diagnostics</h1>\n<script>alert(1)</script>'
    index = {
        "entry": "diagnostics.md",
        "pages": {"diagnostics.md": {"file": "diagnostics.html", "title": "D", "anchors": ["diagnostics"]}, "format.md": {"file": "format.html", "title": "F", "anchors": []}},
        "codes": {},
    }
    errors = check_vsix.check(_right_linux_x64(tmp_path, entry_html=entry, index=index))[1]
    assert errors == ["diagnostics.md: holds a <script> (raw HTML must be text)", "RW140: no heading of the rendered diagnostics.md for its link"]


def test_an_inline_style_of_a_rendered_page_fails(tmp_path):
    fmt = '<h1 id="format">Format</h1>\n<h2 id="workloads">Workloads</h2>\n<td style="text-align:right">1</td>'
    assert check_vsix.check(_right_linux_x64(tmp_path, format_html=fmt))[1] == ["format.md: an inline style attribute (the docs view's CSP refuses it)"]
