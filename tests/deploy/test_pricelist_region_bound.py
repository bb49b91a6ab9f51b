"""``catalog refresh`` bounds the regions it prices and the lines it prints (issue 23, F09).

AWS's region indexes (``/offers/v1.0/aws/<offer>/current/region_index.json``, "Getting price
list files using the AWS Price List Bulk API": ``regions`` keyed by region code, each with
``regionCode`` and ``currentVersionUrl``) list about 40 regions. Before: a mirror's region index
of 20,000 regions made ``--region all`` ask for every one of them, 16-35 s and ~880,000 stderr
lines (a line per key and region, and every region's name in the summary line). Now a region
index listing more than ``MAX_REGIONS`` is malformed (its offer's keys are missing, as for a
region index without ``regions``), regions gathered past the bound refuse the refresh (exit 3,
``--output`` as it was), and the lines per region are listed for ``LISTED_REGIONS`` regions,
then summed up in one line. The indexes are generated; the mirror is a ``file://`` folder
(tests/deploy/pricelist_mirror.py).
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pricelist_mirror as mirror
from deploy_engine.pricelist import command
from deploy_engine.pricelist.refresh import LISTED_REGIONS, MAX_REGIONS
from runway_core.catalog import load_catalog

REGION = "eu-west-1"
PRICES = {"rds:db.t4g.micro:single-az": "0.0161", "alb:hour": "0.0252", "sqs:standard": "0.00000041"}


def _letters(i: int) -> str:
    """``i`` in base 26 as letters (``a``, ``b``, ... ``ba``): region code segments hold no digits."""
    text = ""
    while True:
        i, rest = divmod(i, 26)
        text = chr(ord("a") + rest) + text
        if not i:
            return text


def _mirror(root: Path, extra: dict[str, int]) -> Path:
    """The mirror, with ``extra[offer]`` more regions in that offer's region index (each naming
    an offer file that is not there: a 404 on http, no such file here)."""
    root = mirror.write_mirror(root, {REGION: dict(PRICES)})
    for offer, n in extra.items():
        path = root / "offers/v1.0/aws" / offer / "current/region_index.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        for i in range(n):
            code = f"xx-{offer.lower()}{_letters(i)}-1"  # a region code's shape (runway_core.catalog.is_region_code)
            doc["regions"][code] = {"regionCode": code, "currentVersionUrl": f"/offers/v1.0/aws/{offer}/v/{code}/index.json"}
        path.write_text(json.dumps(doc), encoding="utf-8")
    return root


def _run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    return command.main(list(argv), stderr=err), err.getvalue()


def test_a_region_index_listing_more_than_the_bound_is_malformed(tmp_path) -> None:
    root = _mirror(tmp_path / "m", {"AWSELB": MAX_REGIONS})  # eu-west-1 and 1,000 more
    code, err = _run("--source", root.as_uri(), "--region", "all", "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE, err[-2000:]
    said = f"lists {MAX_REGIONS + 1:,} regions, more than the {MAX_REGIONS:,} a region index may"
    assert any(line.startswith(f"catalog refresh: no {REGION} price for alb:hour: ") and said in line for line in err.splitlines()), err[-2000:]
    # Its regions are not priced: --region all is the regions of the well-formed indexes.
    assert "xx-awselb" not in err and err.count("\n") < 100, err[-2000:]
    assert err.splitlines()[-1].startswith(f"catalog refresh: wrote {tmp_path / 'out'}: ") and f"region(s) ({REGION}); " in err
    assert load_catalog(tmp_path / "out").prices_for(REGION)


def test_a_region_index_at_the_bound_is_read_and_its_lines_are_bounded(tmp_path) -> None:
    root = _mirror(tmp_path / "m", {"AWSELB": MAX_REGIONS - 1})
    code, err = _run("--source", root.as_uri(), "--region", "all", "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE, err[-2000:]
    lines = err.splitlines()
    shown = {line.split()[3] for line in lines if line.startswith("catalog refresh: no ")}
    assert len(shown) == LISTED_REGIONS and REGION in shown
    rest = MAX_REGIONS - LISTED_REGIONS
    assert any(line.startswith(f"catalog refresh: {rest:,} more region(s) lack ") for line in lines), lines[-3:]
    # AWSELB's files: the first LISTED_REGIONS announced, the rest in one line.
    assert sum(": reading " in line and line.startswith("catalog refresh: AWSELB ") for line in lines) == LISTED_REGIONS
    assert f"catalog refresh: AWSELB: {MAX_REGIONS - LISTED_REGIONS:,} more offer file(s) asked for, not listed one by one" in err
    # The summary names the first LISTED_REGIONS regions, then how many more.
    assert f"for {MAX_REGIONS} region(s) ({REGION}, " in lines[-1] and f" and {rest:,} more); " in lines[-1]
    assert len(lines[-1]) < 40 * LISTED_REGIONS
    # Thousands of lines at most, not a line per key and region (~43,000 here before).
    keys = {line.split()[6] for line in lines if line.startswith("catalog refresh: no ")}
    assert len(lines) <= LISTED_REGIONS * (len(keys) + 2) + 20, len(lines)
    assert load_catalog(tmp_path / "out").prices_for(REGION)


def test_region_indexes_gathering_more_than_the_bound_refuse_the_refresh(tmp_path) -> None:
    half = MAX_REGIONS // 2 + 1  # each index within the bound, together over it
    root = _mirror(tmp_path / "m", {"AWSELB": half, "AWSQueueService": half})
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(Path(__file__).resolve().parents[2] / "catalog" / "prices.csv", out / "prices.csv")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, err = _run("--source", root.as_uri(), "--region", "all", "--output", str(out))
    assert code == command.EXIT_NO_INPUT, err[-2000:]
    assert f"the region indexes list {2 * half + 1:,} regions together, more than the {MAX_REGIONS:,} a refresh prices" in err
    assert err.count("\n") < 20 and {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_more_regions_than_the_bound_asked_is_a_usage_error(tmp_path) -> None:
    root = _mirror(tmp_path / "m", {})
    argv = [a for i in range(MAX_REGIONS + 1) for a in ("--region", f"xx-{i}")]
    code, err = _run("--source", root.as_uri(), *argv, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_USAGE and f"more than the {MAX_REGIONS:,} a refresh prices" in err, err[-2000:]
    assert not (tmp_path / "out").exists()


def test_the_refresh_stops_at_the_first_file_failed_midway_and_fetches_no_other(tmp_path) -> None:
    # Five regions whose offer file is a corrupt gzip stream (a ``.gz`` path is decompressed
    # as read: a download failed midway, refusing the refresh). Before (fourth adversary, F02):
    # all five were read, then one line named three and counted the others. The first decides
    # the outcome: the refresh stops there, names it once and fetches no other file.
    root = _mirror(tmp_path / "m", {})
    path = root / "offers/v1.0/aws/AWSELB/current/region_index.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    for i in range(5):
        code = f"xx-gz-{i}"
        doc["regions"][code] = {"regionCode": code, "currentVersionUrl": f"/offers/v1.0/aws/AWSELB/v/{code}/index.json.gz"}
        (root / f"offers/v1.0/aws/AWSELB/v/{code}").mkdir(parents=True)
        (root / f"offers/v1.0/aws/AWSELB/v/{code}/index.json.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"not gzip" * 64)
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, err = _run("--source", root.as_uri(), "--region", "all", "--output", str(tmp_path / "out"))
    assert code == command.EXIT_NO_INPUT, err[-2000:]
    lines = err.splitlines()
    last = lines[-1]
    assert last.startswith("catalog refresh: an offer file could not be read whole (") and "the gzip stream is corrupt" in last, last
    assert "the refresh stops there, the other offer files were not fetched" in last and not (tmp_path / "out").exists(), last
    # One corrupt file opened, then nothing: not the other four, nor any later offer's files.
    opened = [line for line in lines if ": reading " in line]
    assert sum("/xx-gz-" in line for line in opened) == 1 and "/xx-gz-" in opened[-1], opened
    assert last.count("/index.json.gz") == 1, last


def test_a_region_index_listing_a_key_that_is_no_region_code_is_malformed_before_any_download(tmp_path) -> None:
    # Fifth adversary F-B: one such key in AWSQueueService's region index reached prices.csv
    # and refused the whole ``--region all`` refresh after every download ("does not load
    # (<staging folder>/prices.csv: ... invalid region"), exit 3), or "eu-west-1 " with a blank
    # read as a duplicate price. AWS's region indexes key each entry by its region code
    # ("Getting price list files using the AWS Price List Bulk API"), or "global".
    for bad in ("EU-WEST-1", "../../evil", "a" * 5000, "\x1b[2Jeu-west-9", "eu-west-1 ", "x,y\nus-east-9"):
        root = mirror.write_mirror(tmp_path / "m", {REGION: dict(PRICES)})
        path = root / "offers/v1.0/aws/AWSQueueService/current/region_index.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["regions"][bad] = {"regionCode": bad, "currentVersionUrl": "/offers/v1.0/aws/AWSQueueService/v/bad/index.json"}
        path.write_text(json.dumps(doc), encoding="utf-8")
        out = tmp_path / "out"
        code, err = _run("--source", root.as_uri(), "--region", "all", "--output", str(out))
        assert code == command.EXIT_INCOMPLETE, (bad[:20], err[-2000:])
        said = f"lists {bad[:60]!r}, which is no region code (e.g. eu-west-1): not a Price List region index"
        lines = err.splitlines()
        assert any(line.startswith(f"catalog refresh: no {REGION} price for sqs:standard: ") and said in line for line in lines), (bad[:20], err[-2000:])
        # No reading of the queue offer's files at all, the other offers priced, nothing staged named.
        assert not any(line.startswith("catalog refresh: AWSQueueService ") and ": reading " in line for line in lines), err[-2000:]
        assert ".refresh-" not in err and all(line.isprintable() for line in lines)
        assert load_catalog(out).prices_for(REGION)
        shutil.rmtree(tmp_path / "m")
        shutil.rmtree(out)
