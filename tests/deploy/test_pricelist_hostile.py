"""``catalog refresh`` against a hostile mirror (issue 23, item 4): a real ``http.server`` on
127.0.0.1 that drips, goes silent or sends less than its ``Content-Length``, and offer files
with numbers past every limit, a SKU given twice, ``../`` paths and 100,000-deep attributes.

The shapes are AWS's (tests/deploy/pricelist_mirror.py: "Reading the service price list file
for an AWS service"); what HTTP promises is RFC 9112 §6.3 (a body shorter than its
Content-Length is "incomplete"; CPython 3.11's ``HTTPResponse.read(amt)`` returns the short
body without raising, so the check is ours). Before: the drip kept the refresh running
forever (the read timeout restarts with every byte), a short body was read as a complete empty
index and an empty catalogue written, the same SKU with two prices was resolved silently,
``1E+999999999`` or a deep attribute was exit 70, ``1e308`` was written and then did not load,
``../`` opened files outside the mirror. Deadlines in these tests (``subprocess`` timeouts,
``--timeout``) only detect a hang: no test asserts a duration.
"""

from __future__ import annotations

import functools
import importlib
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import pricelist_mirror as mirror
from deploy_engine.pricelist import command, fetch
from deploy_engine.pricelist.refresh import RefreshError, refresh
from runway_core.catalog import CatalogError, load_catalog

refresh_mod = importlib.import_module("deploy_engine.pricelist.refresh")  # the package exports a function of that name

REGION = "eu-west-1"
PRICES = {"rds:db.t4g.micro:single-az": "0.0161", "rds:gp3:single-az": "0.1151", "alb:hour": "0.0252", "sqs:standard": "0.00000041"}
INDEX = "/offers/v1.0/aws/index.json"


def _mirror(root: Path) -> Path:
    return mirror.write_mirror(root, {REGION: dict(PRICES)}, global_prices={"route53:private-zone": "0.5"})


def _offer_path(root: Path, code: str) -> Path:
    return root / "offers/v1.0/aws" / code / mirror.VERSION / REGION / "index.json"


class _Hostile(http.server.SimpleHTTPRequestHandler):
    """Serves the mirror; the paths in ``server.faults`` misbehave: ``drip`` (headers, then one
    byte of the body a second), ``drip-status`` (the status line itself one byte a second),
    ``silent`` (reads the request, sends nothing), ``short`` (Content-Length 10x the body)."""

    def log_message(self, format, *args):  # noqa: A002 - http.server's signature
        pass

    def _drip(self, data: bytes) -> None:
        for i in range(len(data)):
            if self.server.stopping.is_set():
                return
            try:
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
            except OSError:
                return  # the client gave up: what the test wants
            time.sleep(1.0)

    def do_GET(self):  # noqa: N802 - http.server's name
        self.server.requests.append(self.path)
        fault = self.server.faults.get(self.path)
        if fault is None:
            return super().do_GET()
        body = (Path(self.directory) / self.path.lstrip("/")).read_bytes()
        if fault == "silent":
            self.server.stopping.wait(120)
            return
        if fault == "drip-status":
            return self._drip(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        if fault == "spaces":
            # A 200 answer with no length, then blanks until the connection is closed.
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            block = b" " * (1 << 20)
            try:
                for _ in range(self.server.spaces_mib):
                    self.wfile.write(block)
            except OSError:
                pass
            self.close_connection = True
            return
        if fault in ("two-lengths", "negative-length"):
            self.send_response(200)
            for value in ([str(len(body)), str(len(body) + 7)] if fault == "two-lengths" else ["-1"]):
                self.send_header("Content-Length", value)
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body) * (10 if fault == "short" else 1)))
        self.end_headers()
        if fault == "short":
            self.wfile.write(body)
            self.close_connection = True
            return
        self._drip(body)


@pytest.fixture
def hostile(tmp_path):
    root = _mirror(tmp_path / "mirror")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Hostile, directory=str(root)))
    server.daemon_threads = True
    server.faults, server.stopping, server.requests = {}, threading.Event(), []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server, root
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    return command.main(list(argv), stderr=err), err.getvalue()


def _previous_catalogue(folder: Path) -> dict[str, bytes]:
    """A catalogue already in ``--output`` (the packaged one), to see that a refused refresh
    leaves it as it was."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("sizes.toml", "prices.csv"):
        shutil.copy(Path(__file__).resolve().parents[2] / "catalog" / name, folder / name)
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("fault", ["drip", "drip-status", "silent"])
def test_a_dripping_or_silent_index_ends_at_the_deadline(hostile, tmp_path, fault) -> None:
    source, server, _root = hostile
    server.faults[INDEX] = fault
    before = _previous_catalogue(tmp_path / "out")
    # The real CLI; the subprocess timeout (60 s) only detects a hang: the drip alone would
    # take ~40 minutes for the index's bytes.
    proc = subprocess.run([sys.executable, "-m", "deploy_engine", "catalog", "refresh", "--source", source, "--region", REGION,
                           "--output", str(tmp_path / "out"), "--timeout", "2"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == command.EXIT_NO_INPUT, proc.stderr
    assert "within its 2 s deadline" in proc.stderr and "Traceback" not in proc.stderr
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


def test_a_dripping_offer_file_fails_the_refresh_and_leaves_output(hostile, tmp_path) -> None:
    # A download cut at its deadline failed midway: a failed refresh (exit 3), --output as it
    # was (issue 23: before, exit 1 with a catalogue lacking the file's keys written over it).
    source, server, _root = hostile
    server.faults[f"/offers/v1.0/aws/AWSELB/{mirror.VERSION}/{REGION}/index.json"] = "drip"
    before = _previous_catalogue(tmp_path / "out")
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "out"), "--timeout", "2")
    assert code == command.EXIT_NO_INPUT, err
    assert "within its 2 s deadline" in err and "left as it was" in err
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


def test_the_refresh_stops_at_the_first_offer_file_failed_midway(hostile, tmp_path) -> None:
    """Fourth adversary, F02: every offer file drips. The first one cut at its deadline already
    decides the outcome (exit 3, --output as it was); before, the refresh went on through every
    other offer file and region, each up to its own deadline (28 files x --timeout on a
    2-region mirror; hours at the default 600 s). Now it stops there: one offer file requested,
    named once in the message (before: ``url: url: not read within ...``), the rest not fetched.
    Counted by the mirror's requests, never timed."""
    source, server, root = hostile
    offer_files = sorted("/" + p.relative_to(root).as_posix() for p in root.glob(f"offers/v1.0/aws/*/{mirror.VERSION}/*/index.json"))
    assert len(offer_files) > 5
    server.faults.update({path: "drip" for path in offer_files})
    before = _previous_catalogue(tmp_path / "out")
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "out"), "--timeout", "1")
    assert code == command.EXIT_NO_INPUT, err
    asked = [path for path in server.requests if path in offer_files]
    assert len(asked) == 1, asked
    last = err.splitlines()[-1]
    url = source + asked[0]
    assert last.startswith(f"catalog refresh: an offer file could not be read whole ({url}: not read within its 1 s deadline"), last
    assert last.count(url) == 1, last
    assert "the other offer files were not fetched" in last and "left as it was" in last, last
    assert sum(": reading " in line for line in err.splitlines()) == 1, err
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


def test_a_body_shorter_than_its_content_length_is_refused(hostile, tmp_path) -> None:
    source, server, root = hostile
    # The index with no offers in it, announced as ten times its size: before, "complete",
    # and an empty catalogue written over --output.
    (root / INDEX.lstrip("/")).write_text('{"formatVersion": "v1.0", "offers": {}}', encoding="utf-8")
    server.faults[INDEX] = "short"
    before = _previous_catalogue(tmp_path / "out")
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_NO_INPUT and "truncated" in err and "of the 390 bytes" in err, err
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


def test_a_content_length_over_the_download_limit_is_not_read(hostile, tmp_path, monkeypatch) -> None:
    source, _server, _root = hostile
    monkeypatch.setattr(fetch, "MAX_DOWNLOAD_BYTES", 100)  # the index is ~1.5 KB
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_NO_INPUT and "over the 100-byte limit of a download" in err


@pytest.mark.parametrize("fault, said", [("two-lengths", "2 differing Content-Length values"),
                                         ("negative-length", "Content-Length '-1' is not a number of bytes")])
def test_a_content_length_that_cannot_frame_the_body_is_refused(hostile, tmp_path, fault, said) -> None:
    """RFC 9110 §8.6 / RFC 9112 §6.3: two differing ``Content-Length`` values, or ``-1``, are an
    unrecoverable framing error; before, CPython's http.client took the first value (or read
    ``-1`` as "until close") and the refresh went on, exit 0."""
    source, server, _root = hostile
    server.faults[INDEX] = fault
    before = _previous_catalogue(tmp_path / "out")
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_NO_INPUT and said in err and "refused" in err, err
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="the peak is read from Linux's /proc/self/status (VmHWM)")
def test_an_offer_file_of_endless_spaces_is_read_in_bounded_memory(hostile, tmp_path) -> None:
    """``HTTP/1.1 200 OK``, ``Connection: close``, then blanks: before, ``catalog refresh`` took
    the offer file for CSV (no ``{`` in its first 64 bytes) and ``csv`` read the one line whole
    (1.24 GB RSS in 17 s, 2.15 GB at the 2 GiB limit). docs/cli.md says offer files are
    streamed in bounded memory (~32 MB). The bound is on the child's peak RSS, never on a
    duration: ``VmHWM`` of /proc/self/status (proc(5), KiB), the high-water mark of the child's
    own address space. Not ``getrusage(RUSAGE_SELF).ru_maxrss``: Linux carries it across
    execve, and CPython 3.11 spawns with vfork, so it reported this pytest process's peak."""
    source, server, _root = hostile
    server.spaces_mib = 384
    server.faults[f"/offers/v1.0/aws/AWSELB/{mirror.VERSION}/{REGION}/index.json"] = "spaces"
    script = ("import resource, sys\n"
              "from deploy_engine.pricelist import command\n"
              "rc = command.main(sys.argv[1:])\n"
              "hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM:')][0].split()[1]\n"
              "print('maxrss_kib', hwm, file=sys.stderr)\n"
              "sys.exit(rc)\n")
    proc = subprocess.run([sys.executable, "-c", script, "--source", source, "--region", REGION, "--output", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == command.EXIT_INCOMPLETE, proc.stderr
    assert f"no {REGION} price for alb:hour:" in proc.stderr and "Traceback" not in proc.stderr
    maxrss_mib = int(proc.stderr.rsplit("maxrss_kib", 1)[1].split()[0]) / 1024
    # The interpreter with deploy_engine and runway_core loaded is ~60 MiB; the reader adds a
    # chunk or two. 384 MiB of blanks held whole would be twice that and more.
    assert maxrss_mib < 200, (maxrss_mib, proc.stderr)


def _set_price(root: Path, code: str, old: str, new: str) -> None:
    path = _offer_path(root, code)
    text = path.read_text(encoding="utf-8")
    assert f'"USD": "{old}"' in text
    path.write_text(text.replace(f'"USD": "{old}"', f'"USD": {json.dumps(new)}', 1), encoding="utf-8")


@pytest.mark.parametrize("price", ["1E+999999999", "1e308", "9" * 2000, "0." + "1" * 2000, "-0.5", " 0x10", "7" * 13])
def test_a_price_past_the_limits_is_refused_for_its_key(tmp_path, price) -> None:
    root = _mirror(tmp_path / "m")
    _set_price(root, "AWSELB", PRICES["alb:hour"], price)
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE, err  # before: exit 70, or a catalogue that does not load
    line = next(ln for ln in err.splitlines() if f"no {REGION} price for alb:hour:" in ln)
    assert "refused" in line and len(line) < 600  # a 2,000-digit price is not echoed whole
    cat = load_catalog(tmp_path / "out")  # what was written loads
    assert "alb:hour" not in {p.key for p in cat.prices_for(REGION)}


def test_a_price_over_the_catalogues_unit_limit_is_refused_before_writing(tmp_path) -> None:
    # 1.5 USD per request is 1,500,000 USD per 1M requests: over runway_core.catalog.MAX_UNIT_USD.
    root = _mirror(tmp_path / "m")
    _set_price(root, "AWSQueueService", PRICES["sqs:standard"], "1.5")
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE and "not a plausible unit price" in err
    load_catalog(tmp_path / "out")


def test_a_100000_deep_attribute_is_refused_for_its_file(tmp_path) -> None:
    root = _mirror(tmp_path / "m")
    path = _offer_path(root, "AWSELB")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"attributes": {', '"attributes": {"deep": ' + "[" * 100_000 + "]" * 100_000 + ", ", 1), encoding="utf-8")
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE and "nested too deep" in err and "Traceback" not in err


def _duplicate_terms(root: Path, sku: str, usd: str) -> None:
    """The SKU's OnDemand terms given a second time (a repeated JSON member), at ``usd``."""
    path = _offer_path(root, "AWSELB")
    doc = json.loads(path.read_text(encoding="utf-8"))
    twin = json.loads(json.dumps(doc["terms"]["OnDemand"][sku]))
    for term in twin.values():
        for dim in term["priceDimensions"].values():
            dim["pricePerUnit"]["USD"] = usd
    text = json.dumps(doc)
    head = '"OnDemand": {'
    path.write_text(text.replace(head, head + json.dumps(sku) + ": " + json.dumps(twin) + ", ", 1), encoding="utf-8")


def test_the_same_sku_twice_with_two_prices_is_a_conflict(tmp_path) -> None:
    root = _mirror(tmp_path / "m")
    alb = mirror.sku(REGION, "alb:hour")
    _duplicate_terms(root, alb, "0.0000001")
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE  # before: exit 0, 0.0000001 chosen
    assert f"no {REGION} price for alb:hour: conflict: SKU {alb}" in err, err


def test_the_same_sku_listed_twice_in_products_is_a_conflict(tmp_path) -> None:
    root = _mirror(tmp_path / "m")
    alb = mirror.sku(REGION, "alb:hour")
    path = _offer_path(root, "AWSELB")
    doc = json.loads(path.read_text(encoding="utf-8"))
    text = json.dumps(doc)
    head = '"products": {'
    other = {**doc["products"][alb], "attributes": {**doc["products"][alb]["attributes"], "operation": "LoadBalancing:Other"}}
    path.write_text(text.replace(head, head + json.dumps(alb) + ": " + json.dumps(other) + ", ", 1), encoding="utf-8")
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE and f"SKU {alb} is listed twice in products, differently" in err, err


def test_a_file_mirror_path_that_leaves_the_mirror_is_refused(tmp_path) -> None:
    root = _mirror(tmp_path / "m")
    # A complete, valid AWSELB file outside the mirror, named by the region index with ../
    outside = tmp_path / "outside" / "index.json"
    outside.parent.mkdir()
    shutil.copy(_offer_path(root, "AWSELB"), outside)
    reg = root / "offers/v1.0/aws/AWSELB/current/region_index.json"
    doc = json.loads(reg.read_text(encoding="utf-8"))
    doc["regions"][REGION]["currentVersionUrl"] = "/../../outside/index.json"
    reg.write_text(json.dumps(doc), encoding="utf-8")
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE and "leaves the mirror" in err, err
    assert "outside/index.json: " not in err.replace("leaves", "")  # never opened
    assert "alb:hour" not in {p.key for p in load_catalog(tmp_path / "out").prices_for(REGION)}


def test_a_symlink_out_of_a_file_mirror_is_refused(tmp_path) -> None:
    root = _mirror(tmp_path / "m")
    (tmp_path / "outside.json").write_text("{}", encoding="utf-8")
    (root / "offers" / "link.json").symlink_to(tmp_path / "outside.json")
    with pytest.raises(fetch.SourceError, match="leads out of the mirror"):
        fetch.join(root.as_uri(), "/offers/link.json")
    assert fetch.join(root.as_uri(), "/offers/v1.0/aws/index.json").endswith("/offers/v1.0/aws/index.json")


@pytest.mark.parametrize("path", ["/../x", "/a/%2e%2e/%2E%2E/x", "/a\\..\\x", "/a/x?y=1", "/a/x#f", "/a/\x00"])
def test_join_confines_paths(path) -> None:
    with pytest.raises(fetch.SourceError, match="leaves the mirror"):
        fetch.join("file:///m", path)


def test_join_keeps_ordinary_paths() -> None:
    assert fetch.join("http://h/root", "/offers/v1.0/aws/AmazonRDS/current/region_index.json") == \
        "http://h/root/offers/v1.0/aws/AmazonRDS/current/region_index.json"


def test_a_catalogue_that_does_not_load_never_reaches_output(tmp_path, monkeypatch) -> None:
    # The writer's own check, seen failing: the staged folder is loaded before the move; a
    # failure leaves --output as it was (before: written first, then found not to load).
    root = _mirror(tmp_path / "m")
    before = _previous_catalogue(tmp_path / "out")
    real = refresh_mod.load_catalog

    def refuse_staged(folder=None):
        if folder is not None and Path(folder).name.startswith(".out.refresh-"):
            raise CatalogError(f"{folder}/prices.csv: a stand-in for a catalogue the loader refuses")
        return real(folder)

    monkeypatch.setattr(refresh_mod, "load_catalog", refuse_staged)
    with pytest.raises(RefreshError, match="does not load.*left as it was"):
        refresh(root.as_uri(), [REGION], tmp_path / "out")
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.refresh-")] == []  # staging removed


def test_a_folder_under_prices_csv_leaves_the_output_as_it_was(tmp_path) -> None:
    # Third adversary, round 5: `--output DIR` whose prices.csv is a folder; sizes.toml was
    # replaced, then the second rename failed (exit 3 with DIR half refreshed).
    root = _mirror(tmp_path / "m")
    out = tmp_path / "out"
    out.mkdir()
    (out / "sizes.toml").write_bytes(b"# the team's sizes\n")
    (out / "prices.csv").mkdir()
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(out))
    assert code == 3 and "not a regular file" in err and "left as it was" in err, err
    assert (out / "sizes.toml").read_bytes() == b"# the team's sizes\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.refresh-")] == []


def test_a_failed_second_move_undoes_the_first(tmp_path, monkeypatch) -> None:
    # Any failure of the second rename (a full disk, EXDEV, a race) puts the first file back.
    root = _mirror(tmp_path / "m")
    _previous_catalogue(tmp_path / "out")
    (tmp_path / "out" / "sizes.toml").write_bytes(b"# the team's sizes, not the packaged ones\n")
    before = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    real = os.replace
    calls = []

    def second_fails(src, dst, *a, **k):
        calls.append(Path(dst).name)
        if Path(dst).parent == tmp_path / "out" and len([c for c in calls if c in ("sizes.toml", "prices.csv")]) == 2:
            raise OSError(28, "No space left on device")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(refresh_mod.os, "replace", second_fails)
    with pytest.raises(RefreshError, match="No space left"):
        refresh(root.as_uri(), [REGION], tmp_path / "out")
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


def test_a_new_output_folder_appears_whole_or_not_at_all(tmp_path) -> None:
    root = _mirror(tmp_path / "m")
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "new" / "cat"))
    assert code in (command.EXIT_OK, command.EXIT_INCOMPLETE), err
    assert sorted(p.name for p in (tmp_path / "new" / "cat").iterdir()) == ["prices.csv", "sizes.toml"]
    load_catalog(tmp_path / "new" / "cat")


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "abc", "86401"])
def test_timeout_must_be_a_sane_number_of_seconds(tmp_path, value) -> None:
    code, _err = _run("--source", "file:///nowhere", "--region", REGION, "--output", str(tmp_path / "o"), "--timeout", value)
    assert code == command.EXIT_USAGE


def test_an_offer_file_that_is_not_utf8_costs_its_keys_only(tmp_path) -> None:
    # Found by tests/e2e/test_fuzz_pricelist.py: a UnicodeDecodeError escaped the JSON reader.
    root = _mirror(tmp_path / "m")
    path = _offer_path(root, "AWSELB")
    path.write_bytes(path.read_bytes().replace(b'"products"', b'"pro\x80ducts"', 1))
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE and "not UTF-8" in err and "Traceback" not in err, err


@pytest.mark.parametrize("url", ["/../\x1b]0;pwn\x07/index.json", "/offers/v1.0/aws/AWSELB/\x1b[2J\x9b31m/index.json"])
def test_a_mirror_path_with_control_characters_is_printed_escaped(tmp_path, url) -> None:
    # Issue 23: a mirror's text reaches the terminal through the refresh's messages; ESC, BEL
    # and the C1 CSI (U+009B) are shown as escapes (deploy_engine.terminal.printable).
    root = _mirror(tmp_path / "m")
    reg = root / "offers/v1.0/aws/AWSELB/current/region_index.json"
    doc = json.loads(reg.read_text(encoding="utf-8"))
    doc["regions"][REGION]["currentVersionUrl"] = url
    reg.write_text(json.dumps(doc), encoding="utf-8")
    code, err = _run("--source", root.as_uri(), "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE, err
    assert "\x1b" not in err and "\x07" not in err and "\x9b" not in err, err
    assert "\\x1b" in err, err
