"""Golden tests of the diagnostics: one folder per case under tests/golden/.

Each case is a small product (root ``runway.yaml``, member folders when needed) and an
``expected.txt`` listing every diagnostic of one :func:`analyze` call, one per line, in the
order the analysis sorts them (file, start, end, code, message)::

    <file relative to case>:<line>:<char>-<line>:<char> <severity> <CODE> <message>

Positions are 0-based, characters count code points (the core's one convention, docs/architecture.md §4).
A few cases need files that cannot live in git (bytes that are not UTF-8, a symlink leaving
the case folder, a runway over the 1 MiB size limit); :data:`SETUP` writes them into the
case's temporary copy at run time (an oversized file is its committed small version, padded).

Each case is analysed as ``analyze(<case>/runway.yaml)`` (or the file :data:`ANALYSED` names): a
case whose runway.yaml is a member runway (rw154_*) is a lone member folder, with no root above it. A case holding a
``prices.csv`` is analysed with that price table (and the packaged sizes): the packaged
catalogue prices every key in each of its regions, so a missing price needs its own table.

``UPDATE_GOLDEN=1 pytest tests/core/test_golden.py`` rewrites the expected files. Review every
changed line by hand: an expected file states what a user should see, not what the code
happens to print today.

This module also keeps docs/diagnostics.md in step with :data:`runway_core.diagnostics.CODES`.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Callable

import pytest

from runway_core.analysis import Analysis, analyze
from runway_core.catalog import load_catalog
from runway_core.changes import with_recorded_changes
from runway_core.diagnostics import CODES
from runway_core.workspace import MAX_FILE_CHARS
from kindtree import STREAM_ALONE, run_python, tree_with_kind

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
DOCS = Path(__file__).resolve().parents[2] / "docs"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


# --- run-time setup of cases that git cannot hold --------------------------------------


def _root_not_utf8(case: Path) -> None:
    # Latin-1 "é" (0xE9) in the product name: not UTF-8, so the root cannot be read at all.
    (case / "runway.yaml").write_bytes(b"runway: 1\nproduct: caf\xe9\n")


def _member_not_utf8(case: Path) -> None:
    folder = case / "services" / "legacy"
    folder.mkdir(parents=True, exist_ok=True)
    # A member saved as Latin-1 ("Ä" is 0xC4): the member is refused, never half-read.
    (folder / "runway.yaml").write_bytes(b"runway: 1\n# \xc4nderung: uses the main db\nuses: [main-db]\n")


def _member_symlink_escape(case: Path) -> None:
    # A folder outside the product, holding a valid member runway, reached through a symlink
    # inside the product: refused, and never read.
    outside = case.parent / "outside-the-repository"
    outside.mkdir(exist_ok=True)
    (outside / "runway.yaml").write_text("runway: 1\nuses: [secrets-of-another-product]\n", encoding="utf-8")
    (case / "services").mkdir(exist_ok=True)
    os.symlink(outside, case / "services" / "escape", target_is_directory=True)


def _member_file_symlink_escape(case: Path) -> None:
    # A member folder inside the product whose runway.yaml is a symlink to a file outside it.
    outside = case.parent / "outside-the-repository-file"
    outside.mkdir(exist_ok=True)
    (outside / "runway.yaml").write_text("runway: 1\nuses: [secrets-of-another-product]\n", encoding="utf-8")
    (case / "services" / "api").mkdir(parents=True, exist_ok=True)
    os.symlink(outside / "runway.yaml", case / "services" / "api" / "runway.yaml")


def _pad(path: Path, size: int) -> None:
    """Pad the runway at ``path`` with comment lines to exactly ``size`` bytes (ASCII, so as
    many characters): still a valid runway, only too large."""
    text = path.read_bytes()
    need = size - len(text)
    assert need > 1 and text.endswith(b"\n")
    line = b"# padding: this line only makes the file larger than a runway may be\n"
    path.write_bytes(text + (line * (need // len(line) + 1))[: need - 1] + b"\n")
    assert path.stat().st_size == size


def _root_too_large(case: Path) -> None:
    # One byte past the limit: the smallest root that is refused.
    _pad(case / "runway.yaml", MAX_FILE_CHARS + 1)


def _member_too_large(case: Path) -> None:
    # Twice the limit: the message gives the file's whole size, though only the limit + 1
    # bytes are read.
    _pad(case / "services" / "huge" / "runway.yaml", 2 * MAX_FILE_CHARS)


#: Case name -> function that completes the case's temporary copy.
def _too_many_members(case: Path) -> None:
    # 1,001 member folders (the committed root lists them): too many to commit one by one.
    for i in range(1, 1002):
        folder = case / "services" / f"svc-{i:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "runway.yaml").write_text(f"runway: 1\nmember: svc-{i:04d}\n")


def _deployed_records(case: Path) -> None:
    """`.runway/` records (git ignores that folder) of the case's deployed.yaml: per environment
    a succeeded `up` receipt naming its plan digest and the reviewed plan stored under it."""
    import json

    from runway_core.planner import environment_json, plan_digest

    before = analyze(str(case / "deployed.yaml"), load_catalog())
    for env, plan in before.plans.items():
        digest = plan_digest(plan, before.spec.product, before.spec.region)
        record = {"format_version": 1, "plan_digest": digest, "env_values": "sha256", "plan": {
            "format_version": 1, "product": before.spec.product, "region": before.spec.region, "environment": environment_json(plan)}}
        for folder, name, doc in (("plans", f"{digest}.json", record),
                                  ("receipts", "20261130T091502.123456Z.json", {"command": "up", "outcome": "succeeded", "plan_digest": digest})):
            (case / ".runway" / folder / env).mkdir(parents=True, exist_ok=True)
            (case / ".runway" / folder / env / name).write_text(json.dumps(doc))


SETUP: dict[str, Callable[[Path], None]] = {
    "rw190_rw193_against_deployed": _deployed_records,
    "rw155_too_many_members": _too_many_members,
    "rw001_root_not_utf8": _root_not_utf8,
    "rw011_member_too_large": _member_too_large,
    "rw011_root_too_large": _root_too_large,
    "rw151_member_not_utf8": _member_not_utf8,
    "rw151_symlink_escape": _member_symlink_escape,
    "rw151_file_symlink_escape": _member_file_symlink_escape,
}


#: Cases whose analysed file is not ``runway.yaml``: case name -> the file (relative to the case).
#: rw158: the editor opens the `runway.yml` that the `runway.yaml` beside it shadows.
ANALYSED: dict[str, str] = {"rw158_shadowed_yml": "runway.yml"}

#: Cases analysed by a copy of the packages whose registry declares one more kind
#: (tests/kindtree.py), in a fresh interpreter: case name -> the declaration.
KIND_CASES: dict[str, str] = {"rw122_kind_without_price": STREAM_ALONE}

#: The analysis of a KIND_CASES case, run inside that copy: expected.txt's lines on stdout.
_ANALYSE = """
import os, sys
from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
case = sys.argv[1]
for d in analyze(os.path.join(case, "runway.yaml"), load_catalog()).all_diagnostics():
    r = d.range
    rel = os.path.relpath(d.file, case).replace(os.sep, "/")
    print(f"{rel}:{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character} {d.severity.label} {d.code} {d.message}")
"""


def _cases() -> list[Path]:
    return sorted(p for p in GOLDEN.iterdir() if (p / "expected.txt").is_file())


def format_diagnostics(an: Analysis, case: Path) -> list[str]:
    """The analysis' diagnostics as expected.txt lines (paths relative to ``case``)."""
    out = []
    for d in an.all_diagnostics():
        rel = Path(os.path.relpath(d.file, case)).as_posix()
        r = d.range
        out.append(f"{rel}:{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character} {d.severity.label} {d.code} {d.message}")
    return out


def _read_expected(case: Path) -> list[str]:
    text = (case / "expected.txt").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()]


def _run(case: Path, tmp_path: Path, catalog) -> list[str]:
    work = tmp_path / case.name
    shutil.copytree(case, work, symlinks=True, ignore=shutil.ignore_patterns("expected.txt", "prices.csv"))
    if case.name in SETUP:
        SETUP[case.name](work)
    if (case / "prices.csv").is_file():
        # A case with its own prices.csv is analysed with it (and the packaged sizes.toml):
        # the packaged catalogue prices every key in its regions, so a gap needs its own.
        folder = tmp_path / "catalog"
        folder.mkdir()
        shutil.copy(Path(__file__).resolve().parents[2] / "catalog" / "sizes.toml", folder / "sizes.toml")
        shutil.copy(case / "prices.csv", folder / "prices.csv")
        catalog = load_catalog(folder)
    if case.name in KIND_CASES:
        tree = tree_with_kind(tmp_path / "tree", KIND_CASES[case.name])
        done = run_python(tree, _ANALYSE, str(work))
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()
    an = analyze(str(work / ANALYSED.get(case.name, "runway.yaml")), catalog)
    # As `check` and the editor do: the changes AWS refuses against the product's .runway/ records.
    with_recorded_changes(an)
    return format_diagnostics(an, work)


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_golden(case: Path, tmp_path: Path, catalog) -> None:
    got = _run(case, tmp_path, catalog)
    if UPDATE:
        (case / "expected.txt").write_text("".join(line + "\n" for line in got), encoding="utf-8")
        return
    assert got == _read_expected(case)


def test_every_code_has_a_golden_case() -> None:
    seen = set()
    for case in _cases():
        for line in _read_expected(case):
            seen.add(line.split(" ")[2])
    assert set(CODES) - seen == set(), "codes without a golden case"
    assert seen - set(CODES) == set(), "golden cases expect codes that diagnostics.CODES does not list"


def test_expected_severities_are_the_defaults() -> None:
    # One documented exception: a member listed twice is an RW151 warning (nothing is lost).
    for case in _cases():
        for line in _read_expected(case):
            _where, severity, code, message = line.split(" ", 3)
            if code == "RW151" and message.endswith("is listed twice"):
                assert severity == "warning"
                continue
            # The other: a region move or flavor switch in a disposable environment is a
            # warning (docs/diagnostics.md RW190, RW193: its data may be lost by design).
            if code in ("RW190", "RW193") and "disposable environment" in message and "allowed" in message:
                assert severity == "warning"
                continue
            assert severity == CODES[code][0], f"{case.name}: {line}"


def test_expected_lines_are_sorted_as_the_analysis_sorts() -> None:
    pattern = re.compile(r"^(?P<file>[^:]+):(\d+):(\d+)-(\d+):(\d+) (\w+) (RW\d{3}) (.*)$")
    for case in _cases():
        keys = []
        for line in _read_expected(case):
            m = pattern.match(line)
            assert m, f"{case.name}: malformed line {line!r}"
            f, l0, c0, l1, c1, _sev, code, msg = m.groups()
            keys.append((f, (int(l0), int(c0)), (int(l1), int(c1)), code, msg))
        assert keys == sorted(keys), case.name


# --- docs/diagnostics.md lists exactly diagnostics.CODES -------------------------------------


def _doc_table() -> dict[str, str]:
    """Code -> severity from the table rows of docs/diagnostics.md (`| RW001 | error | ...`)."""
    rows = {}
    for line in (DOCS / "diagnostics.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\|\s*\[?`?(RW\d{3})`?\]?(?:\([^)]*\))?\s*\|\s*(\w+)\s*\|", line)
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} listed twice in docs/diagnostics.md"
            rows[m.group(1)] = m.group(2)
    return rows


def test_diagnostics_doc_lists_exactly_the_codes() -> None:
    rows = _doc_table()
    assert sorted(rows) == sorted(CODES)
    for code, (severity, _title) in CODES.items():
        assert rows[code] == severity, code


def test_diagnostics_doc_has_a_section_per_code() -> None:
    text = (DOCS / "diagnostics.md").read_text(encoding="utf-8")
    for code in CODES:
        assert re.search(rf"^### {code}\b", text, re.M), f"docs/diagnostics.md has no section for {code}"
