"""The sixth fresh adversary's remaining findings (issue 23, round 5).

- F11: a monorepo product moved into a hidden folder with a symlink at its old path
  (``products/orders -> ../.hidden/orders``): ``diff products --base main`` called it removed
  and passed ``--max-increase 0`` while ``plan products/orders`` followed the link and planned
  it. git stores the link as a link (mode 120000), not a folder; ``diff --base`` writes it as a
  link and the discovery never follows one, so every command refuses it alike (exit 3).
- An S3 endpoint whose ListObjectsV2 answer holds keys outside the ``Prefix`` asked (S3 lists
  only keys that begin with it: Amazon S3 API Reference, ListObjectsV2 "Prefix"; moto_server
  honours it, so the endpoint is a real HTTP server on 127.0.0.1 that ignores it): a ``dev/``
  receipt was listed in the ``staging`` and ``production`` listings too (three times for one
  receipt), and a key outside the backend's prefix was shown cut at the prefix's length. The
  listing is refused (exit 3) naming the whole key and the prefix asked.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from deploy_engine.cli import main
from test_deploy_cli import orders

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"


def run(*argv: str, environ: dict | None = None, stdin=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ=environ if environ is not None else {}, **({"stdin": stdin} if stdin is not None else {}))
    return rc, out.getvalue(), err.getvalue()


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def moved_behind_a_link(tmp_path, monkeypatch) -> Path:
    """main: products/orders, a folder; the working tree: the product moved to .hidden/orders
    (production's zitadel 3 -> 9 tasks: dearer) and products/orders a symlink to it, committed."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    shutil.copytree(ORDERS, ws / "products" / "orders")
    root = ws / "products" / "orders" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "main")
    git(ws, "checkout", "-qb", "pr")
    (ws / ".hidden").mkdir()
    git(ws, "mv", "products/orders", ".hidden/orders")
    moved = ws / ".hidden" / "orders" / "runway.yaml"
    text = moved.read_text(encoding="utf-8")
    assert "      production: 3\n" in text
    moved.write_text(text.replace("      production: 3\n", "      production: 9\n"), encoding="utf-8")
    (ws / "products" / "orders").symlink_to("../.hidden/orders", target_is_directory=True)
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "orders behind a link")
    monkeypatch.chdir(ws)
    return ws


def test_a_product_replaced_by_a_folder_symlink_is_refused_by_diff_and_plan_alike(moved_behind_a_link):
    # Before: `diff products --base main --max-increase 0` exit 0, "product removed: every item
    # is removed", while `plan products/orders` exit 0 followed the link and planned it.
    for fmt in ("text", "json", "markdown"):
        rc, out, err = run("diff", "products", "--base", "main", "--max-increase", "0", "--format", fmt)
        assert rc == 3, (fmt, rc, out[:300], err)
        assert "products/orders" in err and "symlink" in err and "never follows" in err, err
        assert "removed" not in out
    # Every other form reads the same PATH the same way: refused, never followed.
    for argv in (("plan", "products/orders"), ("check", "products/orders"), ("check", "products/orders/"),
                 ("diff", "products/orders", "--base", "main", "--max-increase", "0"),
                 ("diff", "main:products/orders", "products/orders")):
        rc, out, err = run(*argv)
        assert rc == 3, (argv, rc, err)
        assert "is a symlink to a folder" in err and "(.hidden/orders)" in err, (argv, err)
    # The folder it leads to is still read when named.
    rc, out, err = run("plan", ".hidden/orders", "--env", "production")
    assert rc == 0 and "production —" in out, err


DEV_KEY = "orders/runway/receipts/orders/dev/20261203T181808.734108Z.json"
RECEIPT = (b'{"format_version":1,"command":"up","product":"orders","environment":"dev","outcome":"failed",'
           b'"exit_code":5,"started_at":"2026-12-03T18:18:08.734108Z"}')


class _IgnoresPrefix(BaseHTTPRequestHandler):
    """ListObjectsV2 answers every listing with the same keys, whatever its ``prefix``;
    GetObject returns the receipt (with an ETag). ``KEYS`` is set per test."""

    protocol_version = "HTTP/1.1"
    KEYS: tuple[str, ...] = (DEV_KEY,)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if "list-type=2" in self.path:
            contents = "".join(f"<Contents><Key>{k}</Key><Size>{len(RECEIPT)}</Size></Contents>" for k in self.KEYS)
            body = ('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
                    f"<Name>state-bucket</Name><IsTruncated>false</IsTruncated>{contents}</ListBucketResult>").encode()
        else:
            body = RECEIPT
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", '"0123456789abcdef0123456789abcdef"')
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def ignores_prefix():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _IgnoresPrefix)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _receipts(root: Path, endpoint: str, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PULUMI_", "RUNWAY_"))}
    env.update(AWS_ACCESS_KEY_ID="AKIAADV6EXAMPLE", AWS_SECRET_ACCESS_KEY="adv6-not-a-secret", AWS_REGION="us-east-1",
               AWS_ENDPOINT_URL_S3=endpoint, AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull,
               NO_PROXY="127.0.0.1,localhost", RUNWAY_STORE_TIMEOUT_S="10")
    return subprocess.run([sys.executable, "-m", "deploy_engine", "receipts", str(root), *argv,
                           "--backend", "s3://state-bucket/orders"], env=env, capture_output=True, text=True, timeout=60)


def test_a_listing_holding_keys_outside_the_prefix_asked_is_refused_never_listed(tmp_path, ignores_prefix, monkeypatch):
    # Before: `receipts --env staging` exit 0 listing the dev receipt's key as unreadable under
    # staging; `receipts` (every environment) exit 0 with the one dev receipt listed 3 times.
    root = orders(tmp_path)
    monkeypatch.setattr(_IgnoresPrefix, "KEYS", (DEV_KEY,))
    got = _receipts(root, ignores_prefix, "--env", "staging")
    assert got.returncode == 3, (got.returncode, got.stdout, got.stderr)
    assert "20261203T181808" not in got.stdout
    assert f"listed s3://state-bucket/{DEV_KEY}, which is outside the prefix asked (orders/runway/receipts/orders/staging/)" in got.stderr, got.stderr
    got = _receipts(root, ignores_prefix)
    assert got.returncode == 3 and got.stdout.count("20261203T181808") == 0, (got.returncode, got.stdout, got.stderr)
    assert got.stderr.count("outside the prefix asked") == 1, got.stderr


def test_a_key_outside_the_backend_prefix_is_named_whole_never_cut_at_the_prefix_length(tmp_path, ignores_prefix, monkeypatch):
    # Before: the key was cut at the length of `orders/runway/` and shown as
    # `s3://state-bucket/orders/runway/bucket/…`, a key that does not exist.
    root = orders(tmp_path)
    outside = "elsewhere/other-bucket/receipts/orders/dev/20261203T181808.734108Z.json"
    monkeypatch.setattr(_IgnoresPrefix, "KEYS", (outside,))
    got = _receipts(root, ignores_prefix, "--env", "dev")
    assert got.returncode == 3, (got.returncode, got.stdout, got.stderr)
    assert f"s3://state-bucket/{outside}" in got.stderr and "(orders/runway/receipts/orders/dev/)" in got.stderr, got.stderr


def test_standard_input_over_the_limit_says_more_than_the_limit_never_the_bytes_read():
    # Before: "the file is 1,048,577 bytes" for 2 MiB on standard input (the bytes read to see
    # the limit passed, one past it), whatever the input's length.
    for size in (1024 * 1024 + 1, 2 * 1024 * 1024):
        data = b"product: shop\n" + b"#" * (size - 14)
        rc, out, err = run("check", "-", stdin=io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        assert rc == 1, (rc, out, err)
        assert "RW011: the file is more than 1,048,576 bytes (the 1 MiB limit for a runway)" in out, out
        assert "1,048,577" not in out + err


@pytest.mark.parametrize("command", ["check", "plan"])
def test_a_fifo_named_runway_yaml_is_not_a_regular_file_never_no_runway(tmp_path, command):
    # Before: `check DIR` said "no runway found: DIR holds no runway.yaml or runway.yml, nor any
    # folder under it" (exit 3) of a folder whose runway.yaml is a FIFO.
    folder = tmp_path / "p"
    folder.mkdir()
    os.mkfifo(folder / "runway.yaml")
    rc, out, err = run(command, str(folder))
    assert rc == 3, (rc, out, err)
    assert f"{folder / 'runway.yaml'}: not a regular file (a FIFO)" in err and "holds no" not in err, err
    rc, out, err = run(command, str(folder / "runway.yaml"))  # the FIFO named itself: the same refusal
    assert rc == 3 and "not a regular file (a FIFO)" in err, err


def test_a_plan_json_side_naming_a_key_twice_is_refused_with_where(tmp_path, monkeypatch):
    # Before: json.loads kept the last of two `total_monthly_usd` (or `cap_monthly_usd`) and
    # diff compared that one: exit 0 or 2 on a document saying two things.
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ORDERS, tmp_path / "orders")
    root = tmp_path / "orders" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    rc, out, err = run("plan", "orders", "--format", "json")
    assert rc == 0, err
    good = tmp_path / "base.json"
    good.write_text(out, encoding="utf-8")
    assert run("diff", "base.json", "orders")[0] == 0
    lines = out.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"cap_monthly_usd"' in line)
    twice = lines[:at + 1] + [lines[at].replace(lines[at].split(":", 1)[1], " 1,\n")] + lines[at + 1:]
    bad = tmp_path / "twice.json"
    bad.write_text("".join(twice), encoding="utf-8")
    for argv in (("diff", "twice.json", "orders"), ("diff", "orders", "twice.json"), ("check", "orders", "--deployed", "twice.json")):
        rc, out, err = run(*argv)
        assert rc == 3, (argv, rc, err)
        assert "duplicate key 'cap_monthly_usd' in the object at line " in err and "JSON keeps only the last" in err, (argv, err)
    # The object named is the environment's: its `{` line and column.
    depth, obj = 0, at
    while depth >= 0:  # back to the `{` that opens the object holding the key
        obj -= 1
        depth += lines[obj].count("}") + lines[obj].count("]") - lines[obj].count("{") - lines[obj].count("[")
    assert f"at line {obj + 1} column {lines[obj].index('{') + 1}" in run("diff", "twice.json", "orders")[2]
