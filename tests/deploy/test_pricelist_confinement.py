"""``catalog refresh`` stays inside its mirror through HTTP redirects (issue 23, F08).

The mirror is a real ``http.server`` on 127.0.0.1 serving the Price List layout under the base
path ``/mirror``; beside it, ``/outside`` holds a copy with other prices, and two more servers
(127.0.0.2, and 127.0.0.1 on another port) serve the same folder, each recording the paths it
was asked for. ``server.redirects`` makes a path answer ``302 Found`` with a ``Location``.

What is followed is urllib's doing: CPython 3.11's ``urllib.request.HTTPRedirectHandler``
(``/root/.pyenv/versions/3.11.7/lib/python3.11/urllib/request.py``, ``http_error_302``) takes
the first ``Location`` (or ``URI``) header, refuses a scheme other than ``http``, ``https``,
``ftp`` or none with an ``HTTPError`` whose reason quotes the whole ``Location``, percent-encodes
it (``quote(newurl, encoding="iso-8859-1", safe=string.punctuation)``), joins it to the
request's URL (``urljoin``: a relative ``../x`` is resolved, an absolute ``http://m/a/../x``
is sent as it is) and opens it, of any host, up to ``max_redirections`` = 10.
``build_opener`` installs that handler unless one of its subclasses is given. Before: a 302 to
another host, port, scheme (``ftp://``) or to ``/mirror/../outside`` was followed and its
document read as the mirror's; a ``file://u:PASSWORD@...`` Location was refused with the
password in the message. What ``http.server`` does with ``/mirror/../outside`` and
``/mirror/%2e%2e/outside`` is its ``SimpleHTTPRequestHandler.translate_path``: unquote, then
``posixpath.normpath``: it serves ``outside/``.
"""

from __future__ import annotations

import functools
import http.server
import io
import shutil
import socket
import threading
from pathlib import Path

import pytest

import pricelist_mirror as mirror
from deploy_engine.pricelist import command, fetch
from runway_core.catalog import load_catalog

REGION = "eu-west-1"
PRICES = {"rds:db.t4g.micro:single-az": "0.0161", "rds:gp3:single-az": "0.1151", "alb:hour": "0.0252", "sqs:standard": "0.00000041"}
OUTSIDE = {"rds:db.t4g.micro:single-az": "9.91", "rds:gp3:single-az": "9.92", "alb:hour": "9.93", "sqs:standard": "9.94"}
INDEX = "/mirror/offers/v1.0/aws/index.json"
ELB_FILE = f"/mirror/offers/v1.0/aws/AWSELB/{mirror.VERSION}/{REGION}/index.json"
RDS_REGIONS = "/mirror/offers/v1.0/aws/AmazonRDS/current/region_index.json"
SECRET = "PASSWORD123"


class _Redirecting(http.server.SimpleHTTPRequestHandler):
    """Serves the site; records each request line's path in ``server.seen``; a path in
    ``server.redirects`` answers ``302 Found`` with that ``Location`` (``{port}``,
    ``{other_host}``, ``{other_port}``, ``{ftp}`` filled in) and an empty body."""

    def log_message(self, format, *args):  # noqa: A002 - http.server's signature
        pass

    def do_GET(self):  # noqa: N802 - http.server's name
        self.server.seen.append(self.path)
        self.server.authorizations.append(self.headers.get("Authorization"))
        location = self.server.redirects.get(self.path)
        if location is None:
            return super().do_GET()
        self.send_response(302)
        self.send_header("Location", location.format(**self.server.ports))
        self.send_header("Content-Length", "0")
        self.end_headers()


def _serve(host: str, site: Path, ports: dict) -> tuple[http.server.ThreadingHTTPServer, threading.Thread]:
    server = http.server.ThreadingHTTPServer((host, 0), functools.partial(_Redirecting, directory=str(site)))
    server.daemon_threads = True
    server.seen, server.redirects, server.ports, server.authorizations = [], {}, ports, []
    # A short poll interval: shutdown() waits for it (three servers per test).
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return server, thread


@pytest.fixture
def site(tmp_path):
    """``(source, mirror server, other host's server, other port's server, ftp accepts)``."""
    root = tmp_path / "site"
    mirror.write_mirror(root / "mirror", {REGION: dict(PRICES)}, global_prices={"route53:private-zone": "0.5"})
    mirror.write_mirror(root / "outside", {REGION: dict(OUTSIDE)}, global_prices={"route53:private-zone": "9.5"})
    # A plain TCP listener standing in for an FTP server: urllib's FTPHandler connects to it.
    ftp = socket.socket()
    ftp.bind(("127.0.0.1", 0))
    ftp.listen(4)
    ftp.settimeout(0.2)
    ports: dict = {}
    servers = [_serve("127.0.0.1", root, ports), _serve("127.0.0.2", root, ports), _serve("127.0.0.1", root, ports)]
    ports.update(port=servers[0][0].server_address[1], other_host=f"127.0.0.2:{servers[1][0].server_address[1]}",
                 other_port=f"127.0.0.1:{servers[2][0].server_address[1]}", ftp=f"127.0.0.1:{ftp.getsockname()[1]}")

    def ftp_accepts() -> int:
        n = 0
        while True:
            try:
                conn, _ = ftp.accept()
            except OSError:
                return n
            conn.close()
            n += 1

    try:
        yield f"http://127.0.0.1:{ports['port']}/mirror", servers[0][0], servers[1][0], servers[2][0], ftp_accepts
    finally:
        for server, thread in servers:
            server.shutdown()
            server.server_close()
            thread.join(timeout=10)
        ftp.close()


def _run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    return command.main([*argv, "--timeout", "5"], stderr=err), err.getvalue()


def _previous_catalogue(folder: Path) -> dict[str, bytes]:
    """A catalogue already in ``--output`` (the packaged one): a refused refresh leaves it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("sizes.toml", "prices.csv"):
        shutil.copy(Path(__file__).resolve().parents[2] / "catalog" / name, folder / name)
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _outside_requests(mirror_server, *others) -> list[str]:
    return [p for p in mirror_server.seen if not p.startswith("/mirror/")] + [p for s in others for p in s.seen]


LEAVING = {
    "another host": "http://{other_host}" + INDEX,
    "another port": "http://{other_port}" + INDEX,
    "localhost for 127.0.0.1": "http://localhost:{port}" + INDEX,
    "another scheme (https)": "https://127.0.0.1:{port}" + INDEX,
    "ftp": "ftp://{ftp}/mirror/offers/v1.0/aws/index.json",
    "an absolute /../ path": "http://127.0.0.1:{port}/mirror/../outside/offers/v1.0/aws/index.json",
    "a relative ../ path": "../../../../outside/offers/v1.0/aws/index.json",
    "a %2e%2e path": "/mirror/%2e%2e/outside/offers/v1.0/aws/index.json",
    "a %2F..%2F path": "/mirror%2F..%2Foutside/offers/v1.0/aws/index.json",
    "a look-alike prefix": "/mirrorX/offers/v1.0/aws/index.json",
    "a credential for another host": f"http://u:{SECRET}@" + "{other_host}" + INDEX,
    "a file: URL with a credential": f"file://u:{SECRET}@localhost/etc/passwd",
}


@pytest.mark.parametrize("location", LEAVING.values(), ids=LEAVING.keys())
def test_a_redirect_of_the_offer_index_out_of_the_mirror_refuses_the_refresh(site, tmp_path, location) -> None:
    source, served, other_host, other_port, ftp_accepts = site
    served.redirects[INDEX] = location
    before = _previous_catalogue(tmp_path / "out")
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_NO_INPUT, err
    assert "Location that leaves the mirror" in err and "not followed, refused" in err, err
    assert SECRET not in err and "Traceback" not in err
    # Nothing outside the mirror was asked for, and --output is as it was.
    assert _outside_requests(served, other_host, other_port) == [] and ftp_accepts() == 0
    assert served.seen == [INDEX]
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


def test_a_redirect_of_an_offer_file_out_of_the_mirror_costs_its_keys(site, tmp_path) -> None:
    # The rule of an index path that leaves the mirror (test_pricelist_hostile): the file's
    # keys are missing (exit 1), never priced from the other host.
    source, served, other_host, other_port, _ftp = site
    served.redirects[ELB_FILE] = "http://{other_host}" + ELB_FILE
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE, err
    assert f"no {REGION} price for alb:hour: " in err and "Location that leaves the mirror" in err, err
    assert other_host.seen == [] and _outside_requests(served, other_port) == []
    prices = {p.key: p for p in load_catalog(tmp_path / "out").prices_for(REGION)}
    assert "alb:hour" not in prices and str(prices["sqs:standard"].usd) != "9.94"


def test_a_redirect_of_a_region_index_out_of_the_mirror_costs_its_offers_keys(site, tmp_path) -> None:
    source, served, other_host, _other_port, _ftp = site
    served.redirects[RDS_REGIONS] = "/outside/offers/v1.0/aws/AmazonRDS/current/region_index.json"
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "out"))
    assert code == command.EXIT_INCOMPLETE, err
    assert f"no {REGION} price for rds:gp3:single-az: AmazonRDS region index unreadable: " in err
    assert "a path outside /mirror" in err, err
    assert _outside_requests(served, other_host) == []
    assert not {k for k in PRICES if k.startswith("rds:")} & {p.key for p in load_catalog(tmp_path / "out").prices_for(REGION)}


def _catalogue(folder: Path) -> dict[str, str]:
    return {p.key: str(p.usd) for p in load_catalog(folder).prices_for(REGION)}


@pytest.mark.parametrize("location", ["/mirror/offers/v1.0/aws/moved.json", "moved.json", "http://127.0.0.1:{port}/mirror/offers/v1.0/aws/moved.json",
                                      "http://127.0.0.1:{port}/mirror/offers/x/../v1.0/aws/./moved.json"])
def test_a_redirect_inside_the_mirror_is_followed(site, tmp_path, location) -> None:
    source, served, *_ = site
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "direct"))
    root = Path(served.RequestHandlerClass.keywords["directory"])
    shutil.copy(root / INDEX.lstrip("/"), root / "mirror/offers/v1.0/aws/moved.json")
    served.redirects[INDEX] = location
    code2, err2 = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "moved"))
    assert (code2, _catalogue(tmp_path / "moved")) == (code, _catalogue(tmp_path / "direct")), err2
    assert INDEX in served.seen and served.seen.count("/mirror/offers/v1.0/aws/moved.json") + \
        served.seen.count("/mirror/offers/x/../v1.0/aws/./moved.json") == 1


def test_a_mirror_behind_basic_authentication_gets_the_user_info_as_its_authorization(site, tmp_path) -> None:
    """`https://user:token@artifactory/...`: urllib took `user:token@host` for the host name
    ("Name or service not known"); pip and curl send the user info as HTTP Basic credentials
    (RFC 7617, percent-decoded as RFC 3986 §3.2.1 writes it), and so does the refresh now, on
    every request and through a redirect inside the mirror; never quoted in a message."""
    import base64

    source, served, *_ = site
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "plain"))
    authed = source.replace("http://", f"http://ci-bot:{SECRET}%40x@")
    root = Path(served.RequestHandlerClass.keywords["directory"])
    shutil.copy(root / INDEX.lstrip("/"), root / "mirror/offers/v1.0/aws/moved.json")
    served.redirects[INDEX] = "moved.json"
    served.seen.clear()
    served.authorizations.clear()
    code2, err2 = _run("--source", authed, "--region", REGION, "--output", str(tmp_path / "authed"))
    assert (code2, _catalogue(tmp_path / "authed")) == (code, _catalogue(tmp_path / "plain")), err2
    want = "Basic " + base64.b64encode(f"ci-bot:{SECRET}@x".encode()).decode()
    assert len(served.seen) > 3 and set(served.authorizations) == {want}, served.authorizations
    assert "/mirror/offers/v1.0/aws/moved.json" in served.seen
    assert SECRET not in err2 and "ci-bot" not in err2


@pytest.mark.parametrize("over", [0, 1], ids=["at the limit", "one over"])
def test_redirects_are_followed_at_most_max_redirects_times(site, tmp_path, over) -> None:
    source, served, *_ = site
    hops = fetch.MAX_REDIRECTS + over
    chain = [INDEX] + [f"/mirror/hop{i}" for i in range(1, hops)]
    root = Path(served.RequestHandlerClass.keywords["directory"])
    shutil.copy(root / INDEX.lstrip("/"), root / "mirror/final.json")
    for here, there in zip(chain, chain[1:] + ["/mirror/final.json"]):
        served.redirects[here] = there
    before = _previous_catalogue(tmp_path / "out")
    code, err = _run("--source", source, "--region", REGION, "--output", str(tmp_path / "out"))
    if hops <= fetch.MAX_REDIRECTS:
        assert code == command.EXIT_INCOMPLETE and _catalogue(tmp_path / "out")["alb:hour"] == "0.0252", err
        assert served.seen[:hops + 1] == chain + ["/mirror/final.json"]
    else:
        assert code == command.EXIT_NO_INPUT and f"more than {fetch.MAX_REDIRECTS} redirects" in err, err
        assert "/mirror/final.json" not in served.seen
        assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


INSIDE = ["http://m/p/offers/x", "http://M:80/p/a/../b", "http://m/p", "http://m/p/", "http://m/p/%7e/x", "http://m/p/./x"]
NOT_INSIDE = ["http://m/p/../x", "http://m/p/%2e%2e/x", "http://m/p%2F..%2Fx", "http://m/pX/y", "http://m:81/p/x", "https://m/p/x",
              "ftp://m/p/x", "file:///p/x", "http://n/p/x", "http://u:pw@m/p/x", "http://m/p/x?y", "http://m/p/x#f", "http://m/p/a%5C..%5C..",
              "http://m/p/x%00", "http://m:nan/p/x", "http://m/p/a/b/../../../x", "http://m/x/../p/../../p/../q"]


@pytest.mark.parametrize("url", INSIDE)
def test_outside_admits_the_mirrors_own_urls(url) -> None:
    assert fetch.outside("http://m/p", url) is None


@pytest.mark.parametrize("url", NOT_INSIDE)
def test_outside_refuses_every_other_url(url) -> None:
    assert fetch.outside("http://m/p", url) is not None
    with pytest.raises(fetch.SourceError, match="leaves the mirror"):
        fetch.open_stream(url, "x", root="http://m/p")  # refused before any connection (m does not resolve)


@pytest.mark.parametrize(("path", "removed"), [
    # RFC 3986 §5.2.4's own examples and §5.4's normal and abnormal examples (paths only).
    ("/a/b/c/./../../g", "/a/g"), ("mid/content=5/../6", "mid/6"), ("/b/c/../../../g", "/g"), ("/./g", "/g"),
    ("/b/c/g.", "/b/c/g."), ("/b/c/.g", "/b/c/.g"), ("/b/c/..g", "/b/c/..g"), ("/b/c/./../g", "/b/g"),
    ("/b/c/./g/.", "/b/c/g/"), ("/b/c/g/./h", "/b/c/g/h"), ("/b/c/g/../h", "/b/c/h"), ("/b/c/..", "/b/"), ("../x", "x"),
])
def test_remove_dot_segments_is_rfc_3986s(path, removed) -> None:
    assert fetch.remove_dot_segments(path) == removed


def test_public_drops_user_info_and_query() -> None:
    shown = fetch.public(f"http://AKIA:{SECRET}@h:8/p/x?X-Amz-Signature={SECRET}#{SECRET}")
    assert shown == "http://h:8/p/x?..." and SECRET not in shown


def test_a_file_mirror_whose_folder_name_holds_a_backslash_is_read(tmp_path) -> None:
    # Fifth adversary F-E: a valid mirror in the folder ``mirror\v2`` (a legal Linux name) was
    # refused as "an index names the path '/offers/v1.0/aws/index.json', which leaves the
    # mirror (a query, fragment, backslash or NUL)": the backslash was --source's, not the index's.
    root = mirror.write_mirror(tmp_path / "mirror\\v2", {REGION: dict(PRICES)})
    err = io.StringIO()
    code = command.main(["--source", "file://" + str(root), "--region", REGION, "--output", str(tmp_path / "out")], stderr=err)
    assert code == command.EXIT_INCOMPLETE and "leaves the mirror" not in err.getvalue(), err.getvalue()[-1500:]
    assert load_catalog(tmp_path / "out").prices_for(REGION)
    # A backslash past the mirror's own path is still refused (it came from an index).
    assert fetch.outside("file://" + str(root), "file://" + str(root) + "/a\\..\\..") is not None
    assert fetch.outside("file://" + str(root), "file://" + str(root) + "/offers/x") is None


@pytest.mark.parametrize("source", ["http://m/p?x=1", "http://m/p#f", "file:///tmp/m?x", "file:///tmp/m%00x", "http://m/a\\b", "https://m/a%5Cb"])
def test_a_source_with_a_query_fragment_nul_or_an_http_backslash_is_a_usage_error_under_its_own_name(source, tmp_path) -> None:
    err = io.StringIO()
    code = command.main(["--source", source, "--region", REGION, "--output", str(tmp_path / "out")], stderr=err)
    assert code == command.EXIT_USAGE, err.getvalue()
    assert err.getvalue().startswith("catalog refresh: --source ") and "an index names" not in err.getvalue(), err.getvalue()
    assert not (tmp_path / "out").exists()
