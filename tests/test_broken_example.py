"""examples/broken shows every diagnostic code of rules.CODES in one analysis, and never raises.

The example is also what docs/diagnostics.md points at: each planted fault carries a comment
naming its code, and each file-level (loader) fault has its own member file under services/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runway_core.analysis import analyze, read_disk
from runway_core.rules import CODES

BROKEN = Path(__file__).resolve().parent.parent / "examples" / "broken"
ROOT = BROKEN / "runway.yaml"

#: Codes that cannot appear together with the others in one analysis, and why.
EXCLUDED = {
    # One root has one region. RW160 (the region is unknown to the catalogue) stops the price
    # check, so it never coexists with RW161 (a price missing for a known region), which the
    # example shows. test_unknown_region_replaces_rw161 shows RW160 on the same example.
    "RW160": "RW161",
}

#: Member folder -> the code its planted fault produces in that member's file.
MEMBER_FAULTS = {
    "checkout": "RW152",
    "bom": "RW007",
    "duplicate-key": "RW002",
    "tabs": "RW006",
    "empty": "RW004",
    "two-documents": "RW003",
    "alias-bomb": "RW005",
    "custom-tag": "RW008",
    "syntax-error": "RW001",
    "complex-key": "RW009",
    "deep-nesting": "RW010",
    "future-format": "RW103",
    "misspelled": "RW102",
}


@pytest.fixture(scope="module")
def analysis(catalog):
    return analyze(str(ROOT), catalog)


def test_every_code_appears(analysis) -> None:
    seen = {d.code for d in analysis.all_diagnostics()}
    missing = set(CODES) - seen - set(EXCLUDED)
    assert missing == set(), f"codes the broken example does not show: {sorted(missing)}"
    assert seen <= set(CODES), f"codes not in rules.CODES: {sorted(seen - set(CODES))}"
    for code, instead in EXCLUDED.items():
        assert code not in seen and instead in seen


def test_unknown_region_replaces_rw161(catalog) -> None:
    def read(path: str) -> str:
        text = read_disk(path)
        if Path(path) == ROOT:
            text = text.replace("region: eu-central-1 ", "region: eu-central-9 ", 1)
        return text

    seen = {d.code for d in analyze(str(ROOT), catalog, read=read).all_diagnostics()}
    assert "RW160" in seen and "RW161" not in seen


def test_each_member_shows_its_planted_fault(analysis) -> None:
    for folder, code in MEMBER_FAULTS.items():
        path = str(BROKEN / "services" / folder / "runway.yaml")
        codes = {d.code for d in analysis.diagnostics.get(path, [])}
        assert code in codes, f"services/{folder}: expected {code}, got {sorted(codes)}"


def test_planted_faults_are_commented(analysis) -> None:
    # Every diagnostic of the root lands on a line whose comment names its code, or on the
    # key of an entry whose comment does (RW101/RW141 point at the entry's key).
    lines = ROOT.read_text(encoding="utf-8").splitlines()
    for d in analysis.diagnostics[str(ROOT)]:
        assert d.code in lines[d.range.start.line], f"line {d.range.start.line + 1}: no comment names {d.code}"


def test_no_exception_and_every_file_is_accounted_for(analysis) -> None:
    # Every member folder that exists was read (or refused with a diagnostic on the root).
    folders = {p.name for p in (BROKEN / "services").iterdir() if p.is_dir()}
    read_folders = {Path(f).parent.name for f in analysis.diagnostics if f != str(ROOT)}
    assert read_folders == folders
    assert str(ROOT) in analysis.files
