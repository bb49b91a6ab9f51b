"""Round 5 (issue 23), the fresh adversary's F05, F06, F12: writers that replaced or appended to
what the run read, and an export error blamed on the wrong folder.

- F05: ``usage init PRODUCT --output PRODUCT/runway.yaml --force`` replaced the root runway
  (or a member, or a catalogue file of ``--catalog DIR``) with the usage template. Now refused
  as ``check``/``plan --output`` refuse a file they read (exit 3, the file untouched), compared
  by device and inode (a symlink or a hard link to a runway is caught); ``--force`` still
  rewrites an ordinary usage file.
- F06: ``GITHUB_STEP_SUMMARY`` naming the runway (a member, a link to one) made ``check``/``plan``
  append Markdown to it. Now refused, never opened (exit 3, as a summary that is a folder or
  a FIFO no one reads is: docs/ci.md, "Step summary"), the file byte for byte as it was.
- F12: a receipt in ``.runway/`` the file store cannot open (a symlink loop: ``open`` fails
  with ELOOP, "Too many levels of symbolic links", Linux open(2)) made ``receipts export --to
  DIR`` say ``DIR: Too many levels of symbolic links`` and export nothing. Now that receipt is
  named, with the OS's reason, and the others are exported (exit 3).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest

from deploy_engine.cli import main

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"


def run(*argv: str, environ: dict | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ=environ if environ is not None else {})
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def product(tmp_path: Path) -> Path:
    dest = tmp_path / "orders"
    shutil.copytree(ORDERS, dest)
    return dest


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- F05: usage init --output ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["runway.yaml", "services/billing/runway.yaml", "services/checkout/runway.yaml"])
def test_usage_init_never_replaces_a_runway_it_read_even_with_force(product, name):
    before = snapshot(product)
    rc, _, err = run("usage", "init", str(product), "--output", str(product / name), "--force")
    assert rc == 3, err
    assert "a file this command read" in err and "not overwritten" in err, err
    assert snapshot(product) == before  # the runway untouched, no usage file written either


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_usage_init_refuses_a_link_to_a_runway(product, tmp_path, link):
    target = product / "services" / "billing" / "runway.yaml"
    alias = tmp_path / "usage.yaml"
    if link == "symlink":
        alias.symlink_to(target)
    else:
        os.link(target, alias)
    before = target.read_bytes()
    rc, _, err = run("usage", "init", str(product), "--output", str(alias), "--force")
    assert rc == 3 and "a file this command read" in err, err
    assert target.read_bytes() == before
    assert os.path.islink(alias) == (link == "symlink")  # the alias itself not replaced either


def test_usage_init_refuses_a_catalogue_file_it_read(product, tmp_path):
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    for name in ("sizes.toml", "prices.csv"):
        shutil.copy(REPO / "catalog" / name, catalog / name)
    before = snapshot(catalog)
    for name in ("sizes.toml", "prices.csv"):
        rc, _, err = run("usage", "init", str(product), "--catalog", str(catalog), "--output", str(catalog / name), "--force")
        assert rc == 3 and "a file this command read" in err, err
    assert snapshot(catalog) == before


def test_usage_init_refuses_a_usage_file_naming_the_runway(product):
    # `--usage runway.yaml --force` makes the root the default target: refused before reading
    # whether it is a valid usage file (it is not: exit 1 or 3, never a write).
    before = snapshot(product)
    rc, _, err = run("usage", "init", str(product), "--usage", str(product / "runway.yaml"), "--force")
    assert rc in (1, 3), err
    assert snapshot(product) == before


def test_usage_init_force_still_rewrites_an_ordinary_usage_file(product, tmp_path):
    usage = product / "runway.usage.yaml"
    rc, _, err = run("usage", "init", str(product))
    assert rc == 0, err
    first = usage.read_text(encoding="utf-8")
    rc, _, err = run("usage", "init", str(product))
    assert rc == 3 and "already exists" in err  # without --force: refused, as before
    rc, _, err = run("usage", "init", str(product), "--force")
    assert rc == 0, err
    rc, _, err = run("usage", "init", str(product), "--output", str(usage), "--force")
    assert rc == 0, err  # the usage file it read is the one --force rewrites (its values kept)
    assert usage.read_text(encoding="utf-8") == first
    other = tmp_path / "other.usage.yaml"
    other.write_text("# mine\n", encoding="utf-8")
    rc, _, err = run("usage", "init", str(product), "--output", str(other), "--force")
    assert rc == 0, err
    assert other.read_text(encoding="utf-8") == first


# --- F06: GITHUB_STEP_SUMMARY -----------------------------------------------------------------

def _summary_alias(product: Path, tmp_path: Path, how: str) -> tuple[Path, Path]:
    """(the GITHUB_STEP_SUMMARY path, the input file it is)."""
    if how == "root":
        return product / "runway.yaml", product / "runway.yaml"
    if how == "member":
        return product / "services" / "checkout" / "runway.yaml", product / "services" / "checkout" / "runway.yaml"
    target = product / "runway.yaml"
    alias = tmp_path / "summary.md"
    if how == "symlink":
        alias.symlink_to(target)
    else:
        os.link(target, alias)
    return alias, target


@pytest.mark.parametrize("command", ["check", "plan"])
@pytest.mark.parametrize("how", ["root", "member", "symlink", "hardlink"])
def test_a_step_summary_that_is_an_input_is_never_appended_to(product, tmp_path, command, how):
    summary, target = _summary_alias(product, tmp_path, how)
    before = snapshot(product)
    rc, out, err = run(command, str(product), environ={"GITHUB_STEP_SUMMARY": str(summary)})
    assert snapshot(product) == before, "the runway was written"
    assert rc == 3, err
    lines = [ln for ln in err.splitlines() if "GITHUB_STEP_SUMMARY" in ln]
    assert len(lines) == 1 and "a file this command read" in lines[0] and "not appended" in lines[0], err
    assert out  # the command's own output printed as without a summary
    # The same run with an ordinary summary file: its exit code is the command's own, and the
    # section is appended (so the refusal above is the only difference).
    plain = tmp_path / "plain-summary.md"
    rc_plain, out_plain, _ = run(command, str(product), environ={"GITHUB_STEP_SUMMARY": str(plain)})
    assert rc_plain != 3 and f"### runway-deploy {command}" in plain.read_text(encoding="utf-8")
    assert out_plain == out


def test_a_step_summary_that_is_the_usage_file_read_is_refused(product):
    usage = product / "runway.usage.yaml"
    rc, _, err = run("usage", "init", str(product))
    assert rc == 0, err
    before = usage.read_bytes()
    rc, _, err = run("plan", str(product), environ={"GITHUB_STEP_SUMMARY": str(usage)})
    assert rc == 3 and "a file this command read" in err, err
    assert usage.read_bytes() == before


# --- F12: receipts export names the receipt that could not be read ------------------------------

def test_export_names_the_receipt_the_store_cannot_open(product, tmp_path):
    folder = product / ".runway" / "receipts" / "dev"
    folder.mkdir(parents=True)
    good = "20260101T000000.000000Z.json"
    rc, _, err = run("receipts", "export", str(product), "--to", str(tmp_path / "mirror"))
    assert rc == 0, err  # nothing yet
    loop = folder / "20260102T000000.000000Z.json"
    loop.symlink_to(loop.name)  # a link to itself: open() fails with ELOOP
    # A receipt as deploy_engine.receipts.receipt_problem reads one: exported beside the loop.
    (folder / good).write_text('{"format_version": 1, "command": "up", "product": "orders", "environment": "dev", '
                               '"outcome": "refused", "exit_code": 2, "started_at": "2026-01-01T00:00:00Z"}', encoding="utf-8")
    mirror = tmp_path / "mirror2"
    rc, _, err = run("receipts", "export", str(product), "--to", str(mirror))
    assert rc == 3, err
    assert str(mirror) + ":" not in err, err  # the export folder is not blamed
    blamed = [ln for ln in err.splitlines() if loop.name in ln]
    assert blamed and "symbolic links" in blamed[0] and "not exported" in blamed[0], err
    assert "Traceback" not in err and "1 new" in err, err
    assert (mirror / "receipts" / "dev" / good).read_bytes() == (folder / good).read_bytes()
    rc, out, err = run("receipts", str(product))  # the listing says the same, exit 0 (was 70, OSError)
    assert rc == 0, err
    assert any(loop.name in ln and "unreadable" in ln and "symbolic links" in ln for ln in out.splitlines()), out


def test_a_diff_step_summary_that_is_a_plan_json_side_is_refused(product, tmp_path):
    base, head = tmp_path / "base.json", tmp_path / "head.json"
    for side in (base, head):
        rc, _, err = run("plan", str(product), "--format", "json", "--output", str(side))
        assert rc in (0, 1, 2), err
    before = base.read_bytes()
    rc, _, err = run("diff", str(base), str(head), environ={"GITHUB_STEP_SUMMARY": str(base)})
    assert rc == 3 and "GITHUB_STEP_SUMMARY" in err and "a file this command read" in err, err
    assert base.read_bytes() == before
    runways = snapshot(product)
    rc, _, err = run("diff", str(base), str(product), environ={"GITHUB_STEP_SUMMARY": str(product / "runway.yaml")})
    assert rc == 3 and "a file this command read" in err, err
    assert snapshot(product) == runways


def test_usage_init_never_writes_a_file_named_as_a_runway(product, tmp_path):
    # A new `runway.yml` holding a usage template would be found as a root runway next time.
    for name in ("runway.yaml", "runway.yml"):
        rc, _, err = run("usage", "init", str(product), "--output", str(tmp_path / name))
        assert rc == 3 and "runway file" in err, err
        assert not (tmp_path / name).exists()


# --- A02 (round 5, second adversary): check --deployed FILE is a file the command read -----------

def test_check_never_replaces_nor_appends_to_the_deployed_plan_it_read(product, tmp_path):
    deployed = tmp_path / "deployed.json"
    rc, out, err = run("plan", str(product), "--format", "json")
    assert rc in (0, 1), err
    deployed.write_text(out, encoding="utf-8")
    before = deployed.read_bytes()
    rc, _, err = run("check", str(product), "--deployed", str(deployed), "--output", str(deployed), "--format", "json")
    assert rc == 3 and "a file this command read" in err, err
    assert deployed.read_bytes() == before
    rc, _, err = run("check", str(product), "--deployed", str(deployed), "--summary",
                     environ={"GITHUB_STEP_SUMMARY": str(deployed)})
    assert rc == 3 and "a file this command read" in err, err
    assert deployed.read_bytes() == before


# --- A01 (round 5, second adversary): a catalogue too deep for tomllib is exit 3, not 70 ---------

@pytest.mark.parametrize("argv", [("check",), ("plan",), ("usage", "init", "--output", "-")])
def test_a_sizes_toml_nested_500_deep_is_an_invalid_catalogue(product, tmp_path, argv):
    cat = tmp_path / "cat"
    cat.mkdir()
    shutil.copy(REPO / "catalog" / "prices.csv", cat / "prices.csv")
    (cat / "sizes.toml").write_text("deep = " + "[" * 500 + "]" * 500 + "\n" + (REPO / "catalog" / "sizes.toml").read_text(encoding="utf-8"),
                                    encoding="utf-8")
    rc, _, err = run(*argv[:1], *argv[1:2], str(product), *argv[2:], "--catalog", str(cat))
    assert rc == 3, err  # docs/cli.md: the --catalog folder invalid (was 70, RecursionError)
    assert "nested too deeply" in err and "internal error" not in err, err


# --- A08 (round 5, second adversary): an excess under half a cent is never "$0.00" ----------------

def test_a_cap_under_the_total_by_less_than_a_cent_says_so(product):
    from decimal import Decimal

    from runway_core.money import usd_over

    assert usd_over(Decimal("0.0000001")) == "less than $0.01" and usd_over(Decimal("0.005")) == "$0.01"
    assert usd_over(Decimal("0")) == "$0.00" and usd_over(Decimal("3.2")) == "$3.20"
    root = product / "runway.yaml"
    # the example's one real error (a short image digest: exit 1 would take precedence) fixed
    text = root.read_text(encoding="utf-8").replace("aabbccdd\n", "aabbccdd0\n", 1)
    root.write_text(text, encoding="utf-8")
    rc, out, _ = run("plan", str(product), "--env", "dev", "--format", "json")
    assert rc == 0, out
    total = next(e for e in json.loads(out)["environments"] if e["name"] == "dev")["total_monthly_usd"]
    cap = Decimal(str(total)) - Decimal("0.0000001")  # the adversary's 126.8799999 against $126.88
    assert "\n  dev:" in text
    root.write_text(text.replace("\n  dev:", f"\n  dev:\n    limits:\n      monthly: {cap}", 1).replace(
        f"\n    limits:\n      monthly: {cap}\n    limits:", "\n    limits:", 1), encoding="utf-8")
    rc, out, err = run("plan", str(product), "--env", "dev")
    assert rc == 2, out + err  # refused on the exact figures
    assert "over its cap by less than $0.01" in out and "by $0.00" not in out + err, out + err
