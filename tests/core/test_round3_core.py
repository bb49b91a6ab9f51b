"""Issue 16 (reliability round 3), core and CLI items: each test failed before its fix.

Shapes: every test drives the real CLI (``deploy_engine.cli.main`` in-process) or the real
core queries on a copy of ``examples/orders`` with one hostile change (docs/reliability.md,
"Round 3 (issue 16): core and CLI").
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from deploy_engine.cli import main
from runway_core.analysis import analyze
from runway_core.ide.hover import hover_at
from runway_core.ide.lenses import code_lenses, inlay_hints
from runway_core.ide.navigation.outline import document_symbols
from runway_core.positions import Position

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
HUGE_INT = "12345678901234567890123456789012345678"  # 38 digits


def product(tmp_path: Path, old: str = "", new: str = "") -> Path:
    dest = tmp_path / "orders"
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    text = root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0")
    if old:
        assert old in text
        text = text.replace(old, new)
    root.write_text(text, encoding="utf-8")
    return dest


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv), environ={})
    out, err = capsys.readouterr()
    return rc, out, err


# --- item 4: a cap >= 1e26 ------------------------------------------------------------

@pytest.mark.parametrize("cap", ["1e26", HUGE_INT])
@pytest.mark.parametrize("fmt", ["text", "markdown", "github", "json", "sarif"])
def test_a_huge_cap_is_a_range_error_in_every_plan_format(capsys, tmp_path, cap, fmt):
    # Past the 1,000,000,000 USD/month maximum (docs/format.md): RW100, exit 1, never a crash,
    # and no verdict against it (never the default cap in its place).
    root = product(tmp_path, "monthly: 500", f"monthly: {cap}")
    rc, out, err = cli(capsys, "plan", str(root), "--format", fmt)
    assert rc == 1, err
    assert "internal error" not in err
    assert "RW100" in out + err
    if fmt == "text":
        assert "cap invalid" in out


@pytest.mark.parametrize("cap", ["1e26", HUGE_INT])
def test_a_huge_cap_in_hover_outline_lenses_and_hints(tmp_path, catalog, cap):
    root = product(tmp_path, "monthly: 500", f"monthly: {cap}")
    an = analyze(str(root / "runway.yaml"), catalog)
    f = str((root / "runway.yaml").resolve())
    lines = (root / "runway.yaml").read_text(encoding="utf-8").splitlines()
    for line, text in enumerate(lines):
        for col in range(0, len(text) + 1, 3):
            hover_at(an, f, Position(line, col))  # must not raise
    assert document_symbols(an, f)
    code_lenses(an, f)
    inlay_hints(an, f)
    (cap_line,) = [i for i, t in enumerate(lines) if "monthly:" in t and cap in t]
    assert any(d.code == "RW100" and "monthly" in d.message for ds in an.diagnostics.values() for d in ds)
    h = hover_at(an, f, Position(cap_line - 2, 4))  # the `staging:` key
    assert h is not None and "100,000,000" not in h.markdown and "12,345,678" not in h.markdown


# --- item 4: catalogue numbers past any plausible price or capacity (exit 3 like NaN) --------

def catalogue(tmp_path: Path, prices=None, sizes=None) -> Path:
    d = tmp_path / "cat"
    d.mkdir()
    p = (REPO / "catalog" / "prices.csv").read_text(encoding="utf-8")
    s = (REPO / "catalog" / "sizes.toml").read_text(encoding="utf-8")
    if prices:
        line = p.splitlines()[1]
        p = p.replace(line, line.replace(",0.016,", f",{prices},"), 1)
        assert prices in p
    if sizes:
        s = s.replace("storage_gb = 20", f"storage_gb = {sizes}", 1)
        assert sizes in s
    (d / "prices.csv").write_text(p, encoding="utf-8")
    (d / "sizes.toml").write_text(s, encoding="utf-8")
    return d


@pytest.mark.parametrize("price", ["1e400", "1E+30", "1" * 60, "NaN", "-1"])
@pytest.mark.parametrize("command", ["check", "plan"])
def test_an_absurd_catalogue_price_is_exit_3(capsys, tmp_path, price, command):
    rc, _out, err = cli(capsys, command, str(ORDERS), "--catalog", str(catalogue(tmp_path, prices=price)))
    assert rc == 3, err
    assert "usd" in err and "internal error" not in err
    assert len(err) < 2000  # a 60-digit number is not echoed in full


@pytest.mark.parametrize("number", ["1e300", "1" * 60, "nan"])
def test_an_absurd_capacity_is_exit_3(capsys, tmp_path, number):
    rc, _out, err = cli(capsys, "plan", str(ORDERS), "--catalog", str(catalogue(tmp_path, sizes=number)))
    assert rc == 3, err
    assert "storage_gb" in err and "internal error" not in err


# --- item 4: a NUL in a member path; item 8: an unreadable member folder -----------------

def test_a_nul_in_a_member_path_is_rw151_not_a_crash(capsys, tmp_path):
    root = product(tmp_path, "  - services/billing", '  - "services/\\0billing"')
    rc, out, err = cli(capsys, "check", str(root), "--format", "json")
    assert rc == 1 and "internal error" not in err
    assert "RW151" in out and "control character" in out and "\\u0000" not in out.replace("\\\\x00", "")


# An unreadable member folder (item 8): tests/deploy/test_permissions.py, as uid 65534 (root reads every folder).


# --- item 2: a member of a broken root; plan of a lone member -------------------------------

@pytest.mark.parametrize("command", ["check", "plan"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_member_of_a_broken_root_fails_with_the_roots_rw001(capsys, tmp_path, command, fmt):
    root = product(tmp_path)
    with open(root / "runway.yaml", "a", encoding="utf-8") as fh:
        fh.write("oops: [unclosed\n")
    rc, out, err = cli(capsys, command, str(root / "services" / "checkout"), "--format", fmt)
    assert rc == 1, (out, err)
    assert "RW001" in out + err and "RW154" not in out + err


def test_plan_of_a_lone_member_is_exit_3_and_check_passes_it(capsys, tmp_path):
    svc = tmp_path / "svc"
    svc.mkdir()
    (svc / "runway.yaml").write_text("runway: 1\nmember: svc\nuses: [db]\n", encoding="utf-8")
    for fmt in ("text", "json", "markdown"):
        rc, out, err = cli(capsys, "plan", str(svc), "--format", fmt)
        assert rc == 3 and "internal error" not in err
    rc, _out, _err = cli(capsys, "check", str(svc))
    assert rc == 0


def test_a_member_a_valid_root_does_not_list_is_still_checked_alone(capsys, tmp_path):
    root = product(tmp_path)
    extra = root / "services" / "extra"
    extra.mkdir()
    (extra / "runway.yaml").write_text("runway: 1\nmember: extra\n", encoding="utf-8")
    rc, out, _ = cli(capsys, "check", str(extra))
    assert rc == 0 and "RW154" in out


# --- item 8: a tab YAML 1.2 allows as separation -------------------------------------------

def test_a_tab_after_a_sequence_dash_is_separation_not_indentation():
    from runway_core.yamlsrc import parse_yaml

    ok = parse_yaml("members:\n  -\tsvc\n  -\t\t'two'\n")
    assert [d.code for d in ok.diagnostics] == []
    assert [i.value for i in ok.root.get("members").items] == ["svc", "two"]
    # A tab in indentation (a compact nested sequence is indented by spaces) is still RW006.
    bad = parse_yaml("members:\n  - \t- x\n")
    assert "RW006" in [d.code for d in bad.diagnostics]
