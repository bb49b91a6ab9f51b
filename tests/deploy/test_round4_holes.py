"""Issue 23, the holes left after round 4 (docs/reliability.md, "Round 4 (issue 23): the
holes left"): writers that wrote through a symlink, a gzip refresh that failed midway after
replacing the catalogue, and a file store that followed symlinks out of its folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from deploy_engine.cli import main

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _clean_product(tmp_path: Path) -> Path:
    from test_cli import copy_orders

    return copy_orders(tmp_path)


# --- hole 3: --force / --output never write through a symlink -------------------------------

@pytest.mark.parametrize("argv", [
    ("usage", "init", "{product}", "--output", "{link}", "--force"),
    ("schema", "--output", "{link}"),
    ("check", "{product}", "--format", "json", "--output", "{link}"),
])
def test_an_output_that_is_a_symlink_is_replaced_not_written_through(tmp_path, capsys, argv) -> None:
    product = _clean_product(tmp_path)
    outside = tmp_path / "elsewhere" / "precious.txt"
    outside.parent.mkdir()
    outside.write_text("precious\n")
    link = product / "out.txt"
    os.symlink(outside, link)
    rc, _out, err = _run(capsys, *(a.format(product=product, link=link) for a in argv))
    assert rc in (0, 1), err
    assert outside.read_text() == "precious\n"  # the link's target untouched
    assert not link.is_symlink() and link.stat().st_size > 0  # the link itself replaced
    assert [p.name for p in product.iterdir() if p.name.startswith(".out.txt")] == []  # no temporary left


def test_usage_init_force_replaces_a_symlinked_usage_file_inside_the_product(tmp_path, capsys) -> None:
    product = _clean_product(tmp_path)
    (product / "shared").mkdir()
    target = product / "shared" / "usage.yaml"
    target.write_text("usage: 1\n")
    os.symlink("shared/usage.yaml", product / "runway.usage.yaml")
    rc, _out, err = _run(capsys, "usage", "init", str(product), "--force")
    assert rc == 0, err
    assert target.read_text() == "usage: 1\n"
    assert not (product / "runway.usage.yaml").is_symlink()
    assert "environments:" in (product / "runway.usage.yaml").read_text()


def test_an_output_to_dev_null_is_still_written(tmp_path, capsys) -> None:
    rc, _out, err = _run(capsys, "schema", "--output", "/dev/null")
    assert rc == 0, err
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


# --- hole 4: a refresh whose gzip offer file fails midway leaves --output as it was ---------

def _gzip_mirror(tmp_path: Path, cut: bool) -> Path:
    """The hostile-mirror test's file:// mirror with AWSELB's offer file gzipped (as a
    ``.json.gz`` the region index names), cut in half when ``cut``."""
    import gzip
    import json

    from test_pricelist_hostile import REGION, _mirror, _offer_path

    root = _mirror(tmp_path / "mirror")
    offer = _offer_path(root, "AWSELB")
    data = gzip.compress(offer.read_bytes())
    (offer.parent / "index.json.gz").write_bytes(data[: len(data) // 2] if cut else data)
    reg = root / "offers/v1.0/aws/AWSELB/current/region_index.json"
    doc = json.loads(reg.read_text())
    doc["regions"][REGION]["currentVersionUrl"] += ".gz"
    reg.write_text(json.dumps(doc))
    return root


def test_a_gzip_offer_file_is_read(tmp_path) -> None:
    from deploy_engine.pricelist import command
    from runway_core.catalog import load_catalog
    from test_pricelist_hostile import REGION, _run as refresh_run

    root = _gzip_mirror(tmp_path, cut=False)
    code, err = refresh_run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code in (command.EXIT_OK, command.EXIT_INCOMPLETE), err
    assert "alb:hour" in {p.key for p in load_catalog(tmp_path / "out").prices_for(REGION)}, err


def test_a_truncated_gzip_offer_file_leaves_output_as_it_was(tmp_path) -> None:
    from deploy_engine.pricelist import command
    from test_pricelist_hostile import REGION, _previous_catalogue, _run as refresh_run

    root = _gzip_mirror(tmp_path, cut=True)
    before = _previous_catalogue(tmp_path / "out")
    code, err = refresh_run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_NO_INPUT, err
    assert "gzip" in err and "left as it was" in err and "Traceback" not in err
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


# --- hole 5: the file store never follows a symlink out of .runway/ -------------------------

def test_the_file_store_never_follows_a_symlink_out_of_its_folder(tmp_path) -> None:
    from deploy_engine.records.file_store import FileStore
    from deploy_engine.receipts import read_checked
    from test_cli_hostile_inputs import SHOP, run as cli_run

    product = tmp_path / "p"
    folder = product / ".runway" / "receipts" / "dev"
    folder.mkdir(parents=True)
    (product / "runway.yaml").write_text(SHOP, encoding="utf-8")
    secret_dir = tmp_path / "secret"
    (secret_dir / "deep").mkdir(parents=True)
    (secret_dir / "x.json").write_text('{"TOPSECRET": 1}')
    (secret_dir / "deep" / "20260103T000000.000000Z.json").write_text('{"TOPSECRET": 2}')
    os.symlink(secret_dir / "x.json", folder / "20260101T000000.000000Z.json")
    os.symlink(secret_dir, folder / "linked")
    store = FileStore(product)
    keys = store.list("receipts/dev/")
    # The links are listed (so a reader can say why they were skipped); nothing behind them is.
    assert keys == ["receipts/dev/20260101T000000.000000Z.json", "receipts/dev/linked"]
    linked = read_checked(store, keys[0], "receipts/dev/")
    assert linked.record is None and "symlink" in (linked.problem or "") and "not followed" in linked.problem
    folder_link = read_checked(store, keys[1], "receipts/dev/")
    assert folder_link.record is None and folder_link.problem  # not a record name: never read
    with pytest.raises(Exception, match="not followed"):
        store.read("receipts/dev/linked/deep/20260103T000000.000000Z.json")
    rc, out, err = cli_run("receipts", str(product), "--format", "json")
    assert "TOPSECRET" not in out + err and "internal error" not in err
    assert "not followed" in out
