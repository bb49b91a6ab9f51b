"""examples/broken shows every diagnostic code of diagnostics.CODES in one analysis, and never raises.

The example is also what docs/diagnostics.md points at: each planted fault carries a comment
naming its code, and each file-level (loader) fault has its own member file under services/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runway_core.analysis import analyze
from runway_core.diagnostics import CODES
from runway_core.workspace import MAX_FILE_CHARS, read_disk

BROKEN = Path(__file__).resolve().parents[2] / "examples" / "broken"
ROOT = BROKEN / "runway.yaml"
USAGE = BROKEN / "runway.usage.yaml"

#: Codes that cannot appear together with the others in one analysis, and why. Each is
#: shown on the same example by a test of its own.
EXCLUDED = {
    "RW122": (
        "No kind the tooling ships is without a size table or quantities (tests/core/test_kinds.py "
        "fails on one). The golden case rw122_kind_without_price declares such a kind for the test, "
        "and tests/core/test_kinds.py::test_a_kind_alone_in_the_registry_is_refused shows it."
    ),
    "RW160": (
        "One root has one region, and the packaged catalogue prices every key in the example's "
        "(issue 13). test_unknown_region_is_refused shows RW160, RW161, RW162 and RW163 on the "
        "same example with a region the catalogue does not price."
    ),
    "RW161": ("As RW160: shown by test_unknown_region_is_refused and test_missing_price_is_rw161."),
    "RW162": ("As RW160: shown by test_unknown_region_is_refused."),
    "RW163": ("As RW160: shown by test_unknown_region_is_refused."),
    "RW164": ("As RW160 (one region per root): shown by test_a_region_that_is_not_an_aws_region_is_rw164."),
    "RW011": (
        "A runway over the 1 MiB limit does not belong in the repository (the golden cases write "
        "theirs at test time). test_oversized_member_is_rw011 shows it by reading one member of "
        "the example as a 1 MiB + 1 text."
    ),
    "RW154": (
        "A lone member is by definition not part of the product: the root lists every member "
        "folder of the example. test_member_alone_is_rw154 analyses one of them on its own."
    ),
    "RW155": (
        "1,001 member folders would bury the faults the example is for (and do not belong in the "
        "repository). The golden case rw155_too_many_members writes them at test time."
    ),
    "RW156": (
        "51 environments would bury the faults the example is for. The golden case "
        "rw156_too_many_environments shows it."
    ),
    "RW157": (
        "1,001 resources and workloads would bury the faults the example is for. The golden "
        "case rw157_too_many_entries shows it."
    ),
    "RW158": (
        "A `runway.yml` beside a `runway.yaml` is never read, so an analysis of the example's root "
        "cannot meet one. The golden case rw158_shadowed_yml analyses such a `.yml` (as the editor "
        "opens it), and tests/lsp/test_shadowed_yml.py opens one in the real server."
    ),
    "RW190": (
        "RW190-RW193 compare the runway with the plan last deployed, which an example in git has "
        "not got. test_changes_against_a_deployed_plan shows the four on the same example against "
        "a deployed plan made from its own; the golden case rw190_rw193_against_deployed shows them "
        "from .runway/ records."
    ),
    "RW191": ("As RW190: shown by test_changes_against_a_deployed_plan."),
    "RW192": ("As RW190: shown by test_changes_against_a_deployed_plan."),
    "RW193": ("As RW190: shown by test_changes_against_a_deployed_plan."),
    "RW172": (
        "A verdict that derived or unverified prices could flip needs a capped environment within "
        "a few percent of its cap on such prices; the example's region (us-east-1) prices what it "
        "uses from checked sources, and its dev is far over its cap (RW170). The golden case "
        "rw172_verdict_could_flip shows it on an eu-west-1 product at 98% of its cap."
    ),
    "RW012": (
        "500 problems in one file would bury the faults the example is for. "
        "test_too_many_problems_is_rw012 repeats one secret of the example 600 times."
    ),
}

#: Excluded code -> the code it would displace, which the example shows instead.
DISPLACES: dict[str, str] = {}

#: Member folder -> the code its planted fault produces in that member's file.
MEMBER_FAULTS = {
    "checkout": "RW152",
    "bom": "RW007",
    "yaml-1-1": "RW013",
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
    assert seen <= set(CODES), f"codes not in diagnostics.CODES: {sorted(seen - set(CODES))}"
    assert seen.isdisjoint(EXCLUDED), "an excluded code appears: drop it from EXCLUDED"
    for code, instead in DISPLACES.items():
        assert instead in seen, f"{code} is excluded for {instead}, which the example must show"


def _in_region(catalog, region: str):
    """The example analysed with ``region`` instead of its eu-central-1."""

    def read(path: str) -> str:
        text = read_disk(path)
        if Path(path) == ROOT:
            text = text.replace("region: eu-central-1 ", f"region: {region} ", 1)
        return text

    return analyze(str(ROOT), catalog, read=read)


def test_unknown_region_is_refused(catalog) -> None:
    an = _in_region(catalog, "ap-southeast-2")
    seen = {d.code for d in an.all_diagnostics()}
    # Nothing is priced: capped environments are refused (RW162 on the region, RW163 on each
    # unpriced item), uncapped ones warn (RW161); never another region's price.
    assert {"RW160", "RW161", "RW162", "RW163"} <= seen
    assert all(p.verdict in ("unpriced", "no-cap") for p in an.plans.values())


def test_a_region_that_is_not_an_aws_region_is_rw164(catalog) -> None:
    an = _in_region(catalog, "EU-CENTRAL-1")
    (d,) = [d for d in an.all_diagnostics() if d.code == "RW164"]
    assert "did you mean `eu-central-1`?" in d.message and d.file == str(ROOT)


def test_missing_price_is_rw161(tmp_path) -> None:
    from conftest import catalog_without

    gaps = catalog_without(tmp_path / "cat", {("rds-proxy:vcpu", "eu-central-1"), ("rds:gp3:single-az", "eu-central-1")})
    an = analyze(str(ROOT), gaps)
    rw161 = [d for d in an.all_diagnostics() if d.code == "RW161"]
    assert len(rw161) == 1 and "rds-proxy:vcpu" in rw161[0].message and "eu-central-1" in rw161[0].message


def test_oversized_member_is_rw011(catalog) -> None:
    checkout = BROKEN / "services" / "checkout" / "runway.yaml"

    def read(path: str) -> str:
        text = read_disk(path)
        if Path(path) == checkout:
            text += "#" * (MAX_FILE_CHARS + 1 - len(text))
        return text

    an = analyze(str(ROOT), catalog, read=read)
    assert [d.code for d in an.diagnostics[str(checkout)]] == ["RW011"]
    assert any(d.code == "RW151" and "services/checkout" in d.message for d in an.diagnostics[str(ROOT)])


def test_member_alone_is_rw154(catalog) -> None:
    checkout = BROKEN / "services" / "checkout" / "runway.yaml"
    an = analyze(str(checkout), catalog)
    # Checked as a member (no "missing `product`"), its `uses` unresolved (no RW152).
    assert [d.code for d in an.all_diagnostics()] == ["RW154"]


def test_too_many_problems_is_rw012(catalog) -> None:
    text = ROOT.read_text(encoding="utf-8").replace("secrets: [stripe-key,", "secrets: [" + "SENTRY_DSN, " * 600 + "stripe-key,")
    an = analyze(str(ROOT), catalog, read=lambda p: text if p == str(ROOT) else read_disk(p))
    root = an.diagnostics[str(ROOT)]
    assert len(root) == 501 and root[-1].code == "RW012" and root[-1].severity.label == "error"
    assert an.has_errors()


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


def test_usage_faults_are_commented(analysis) -> None:
    # The usage file beside the root (docs/format.md, "Usage file"): each diagnostic on a line
    # whose comment names its code, and the file is part of the analysis (the editor publishes it).
    lines = USAGE.read_text(encoding="utf-8").splitlines()
    codes = [d.code for d in analysis.diagnostics[str(USAGE)]]
    assert sorted(codes) == ["RW200", "RW201", "RW202"]
    for d in analysis.diagnostics[str(USAGE)]:
        assert d.code in lines[d.range.start.line], f"line {d.range.start.line + 1}: no comment names {d.code}"
    assert analysis.files[str(USAGE)].role == "usage"


def test_no_exception_and_every_file_is_accounted_for(analysis) -> None:
    # Every member folder that exists was read (or refused with a diagnostic on the root).
    folders = {p.name for p in (BROKEN / "services").iterdir() if p.is_dir()}
    read_folders = {Path(f).parent.name for f in analysis.diagnostics if f not in (str(ROOT), str(USAGE))}
    assert read_folders == folders
    assert str(ROOT) in analysis.files


def test_members_past_the_cap_are_counted_exactly(catalog, tmp_path) -> None:
    """A `members` list long enough to pass the cap: the diagnostics of its later items are
    counted, not built (issue 7), and RW012 counts them as if they had been built."""
    (tmp_path / "services" / "a").mkdir(parents=True)
    (tmp_path / "services" / "a" / "runway.yaml").write_text("runway: 1\n", encoding="utf-8")
    # 1 good item, then 700 repeats (warnings) and 300 refused paths (errors), interleaved.
    items = ["services/a"] + [("services/a" if i % 10 < 7 else "../outside") for i in range(1000)]
    root = tmp_path / "runway.yaml"
    root.write_text("runway: 1\nproduct: shop\nmembers: [" + ", ".join(items) + "]\n", encoding="utf-8")
    ds = analyze(str(root), catalog).diagnostics[str(root)]
    member_ds = [d for d in ds if d.code == "RW151"]
    n = len(member_ds)
    assert len(ds) == 501 and ds[-1].code == "RW012" and n >= 490  # the rest: RW171 (no cap)
    # Everything before the cap is exact: each item in written order, its own kind ...
    expected = ["error" if i % 10 >= 7 else "warning" for i in range(1000)]
    assert [d.severity.label for d in member_ds] == expected[:n]
    # ... and the count past it is the count of what was not built.
    assert ds[-1].data == {"more": 1000 - n, "errors": expected[n:].count("error")}
    assert f"{1000 - n} more problems from here on are not shown ({expected[n:].count('error')} of them errors)" in ds[-1].message


def test_members_reached_through_an_alias_are_reported_once(catalog, tmp_path) -> None:
    (tmp_path / "services" / "a").mkdir(parents=True)
    (tmp_path / "services" / "a" / "runway.yaml").write_text("runway: 1\n", encoding="utf-8")
    root = tmp_path / "runway.yaml"
    root.write_text("runway: 1\nproduct: shop\nx-paths: [&bad ../outside, &a services/a]\n"
                    "members: [*a, *a, *a, *bad, *bad, services/a]\n", encoding="utf-8")
    ds = [d for d in analyze(str(root), catalog).diagnostics[str(root)] if d.code == "RW151"]
    # The alias's node is the anchor's: one warning there (listed twice), one error (refused),
    # and one warning at the last, written item.
    assert sorted((d.range.start.line, d.severity.label) for d in ds) == [(2, "error"), (2, "warning"), (3, "warning")]


def test_changes_against_a_deployed_plan(catalog) -> None:
    """RW190-RW193 on the example: its own plan, as if deployed in another region, with more
    storage, higher engine versions and the other postgres flavor."""
    import dataclasses

    from runway_core.changes import refused_changes
    from runway_core.plan_diff import side_of_plan
    from runway_core.planner import Plan

    an = analyze(str(ROOT), catalog)
    side = side_of_plan(Plan(an.spec.product, an.spec.region, tuple(an.plans.values()), an.catalog.origin))

    def deployed(item):
        cap = dict(item.capacity)
        if item.kind == "postgres":
            cap.update(storage_gb=int(cap.get("storage_gb") or 0) + 1000, engine_version="99") if cap.get("flavor") == "rds" else None
        if item.kind == "cache":
            cap["engine_version"] = "99.0"
        return dataclasses.replace(item, capacity=cap)

    envs = tuple(dataclasses.replace(e, items=tuple(deployed(i) for i in e.items)) for e in side.environments)
    before = dataclasses.replace(side, region="us-east-1", environments=envs)
    seen = {d.code for d in refused_changes(an, before, "a deployed plan")}
    assert {"RW190", "RW191", "RW192"} <= seen
    flipped = tuple(dataclasses.replace(e, items=tuple(
        dataclasses.replace(i, capacity={**i.capacity, "flavor": "aurora" if i.capacity.get("flavor") == "rds" else "rds"})
        if i.kind == "postgres" else i for i in e.items)) for e in side.environments)
    assert "RW193" in {d.code for d in refused_changes(an, dataclasses.replace(side, environments=flipped), "a deployed plan")}
