"""Blind writes to Infisical (deploy_engine/infisical.py) through the real ``infisicalsdk`` client.

A local HTTP server on 127.0.0.1 (ephemeral port) implements exactly the endpoints the
installed SDK calls (infisical_sdk/resources/*.py) with Infisical's answers for the cases that
matter (backend/src/services: a missing secret on PATCH is 404, an existing folder on create
is 400 "already exists"), and records every request. The tests assert the paths, the
environment slug, the secret path and the names, and that no request ever reads a secret.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from deploy_engine.infisical import (
    DEFAULT_HOST,
    check_host,
    slug_variable,
    Endpoint,
    InfisicalConfig,
    InfisicalConfigError,
    InfisicalWriteError,
    InfisicalWriter,
    postgres_values,
    secret_path,
)
from deploy_engine.secrets import PostgresCredentials, Redactor, SecretValue
from runway_core.planner import injected_variables

CLIENT_ID = "machine-identity-id"
CLIENT_SECRET = "client-secret-that-must-never-print"
PROJECT = "proj-123"
TOKEN = "access-token-xyz"
PASSWORD = "Zq3-kD9_" + "x" * 35
SECRET_FIELDS = dict(_id="s", workspace=PROJECT, version=1, type="shared", secretComment="", createdAt="t", updatedAt="t")


class FakeInfisical(ThreadingHTTPServer):
    """Infisical's login, folder and secret create/update endpoints; everything else is 405."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests: list[dict] = []
        self.folders: set[tuple[str, str]] = {("dev", "/"), ("staging", "/")}
        self.secrets: dict[tuple[str, str, str], str] = {}
        self.fail_updates_with: int | None = None
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: FakeInfisical

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def _reply(self, status: int, doc: dict) -> None:
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"null") if length else None
        srv = self.server
        with srv.lock:
            srv.requests.append({"method": self.command, "path": parts.path, "query": parse_qs(parts.query), "json": body,
                                 "auth": self.headers.get("Authorization")})
            path = parts.path
            if self.command == "POST" and path == "/api/v1/auth/universal-auth/login":
                if body != {"clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET}:
                    return self._reply(401, {"statusCode": 401, "message": "Invalid credentials", "error": "UnauthorizedError"})
                return self._reply(200, {"accessToken": TOKEN, "expiresIn": 7200, "accessTokenMaxTTL": 7200, "tokenType": "Bearer"})
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self._reply(401, {"statusCode": 401, "message": "Token missing"})
            if self.command == "POST" and path == "/api/v2/folders":
                env, parent, name = body["environment"], body["path"], body["name"]
                full = parent.rstrip("/") + "/" + name
                if (env, full) in srv.folders:
                    return self._reply(400, {"statusCode": 400, "message": f"Folder with name '{name}' already exists in path '{parent}'"})
                walk = ""
                for seg in full.strip("/").split("/"):  # Infisical creates missing parents
                    walk += "/" + seg
                    srv.folders.add((env, walk))
                return self._reply(200, {"folder": {"id": "f1", "name": name, "createdAt": "t", "updatedAt": "t", "envId": env, "path": full}})
            if path.startswith("/api/v3/secrets/raw/") and self.command in ("POST", "PATCH"):
                name = unquote(path.rsplit("/", 1)[1])
                env, spath = body["environment"], body["secretPath"]
                if (env, spath) not in srv.folders:
                    return self._reply(404, {"statusCode": 404, "message": f"Folder with path '{spath}' in environment with slug '{env}' not found"})
                key = (env, spath, name)
                if self.command == "PATCH":
                    if srv.fail_updates_with:
                        return self._reply(srv.fail_updates_with, {"statusCode": srv.fail_updates_with, "message": "upstream failure"})
                    if key not in srv.secrets:
                        return self._reply(404, {"statusCode": 404, "message": f"Secret with name {name} not found"})
                elif key in srv.secrets:
                    return self._reply(400, {"statusCode": 400, "message": "Secret already exists"})
                srv.secrets[key] = body["secretValue"]
                # Infisical echoes the value it was sent (reshapeBridgeSecret); the writer ignores it.
                return self._reply(200, {"secret": {"id": "s1", "environment": env, "secretKey": name, "secretValue": body["secretValue"],
                                                    "secretPath": spath, **SECRET_FIELDS}})
            return self._reply(405, {"statusCode": 405, "message": "not implemented by the fake"})

    do_GET = do_POST = do_PATCH = do_DELETE = _handle


@pytest.fixture
def server(monkeypatch):
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    srv = FakeInfisical()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join()


def config(server: FakeInfisical, secret: str = CLIENT_SECRET) -> InfisicalConfig:
    return InfisicalConfig.from_environ(
        {"INFISICAL_HOST": server.url, "INFISICAL_CLIENT_ID": CLIENT_ID, "INFISICAL_CLIENT_SECRET": secret, "INFISICAL_PROJECT_ID": PROJECT}
    )


def creds() -> PostgresCredentials:
    return PostgresCredentials("main-db", "runway_admin", "main_db", SecretValue(PASSWORD))


def assert_never_reads(server: FakeInfisical) -> None:
    for r in server.requests:
        assert r["method"] != "GET", r
        assert "viewSecretValue" not in r["query"] and not r["path"].startswith("/api/v3/secrets/raw?")
        assert r["path"] in ("/api/v1/auth/universal-auth/login", "/api/v2/folders") or r["path"].startswith("/api/v3/secrets/raw/")


def test_config_names_every_missing_variable():
    with pytest.raises(InfisicalConfigError) as info:
        InfisicalConfig.from_environ({"INFISICAL_CLIENT_ID": "x"})
    assert info.value.missing == ("INFISICAL_CLIENT_SECRET", "INFISICAL_PROJECT_ID")
    assert "INFISICAL_CLIENT_SECRET, INFISICAL_PROJECT_ID" in str(info.value)
    cfg = InfisicalConfig.from_environ({"INFISICAL_CLIENT_ID": "i", "INFISICAL_CLIENT_SECRET": "s3cret!", "INFISICAL_PROJECT_ID": "p"})
    assert cfg.host == DEFAULT_HOST == "https://app.infisical.com"
    assert "s3cret!" not in repr(cfg) and "s3cret!" not in str(cfg)


def test_first_deploy_creates_folder_and_every_variable(server):
    writer = InfisicalWriter(config(server), Redactor())
    names = writer.write_postgres("dev", creds(), Endpoint("main-db.proxy-abc.us-east-1.rds.amazonaws.com", 5432))
    writer.close()
    assert names == list(injected_variables("main-db", "postgres"))
    login, folder, *writes = server.requests
    assert login["path"] == "/api/v1/auth/universal-auth/login" and login["auth"] is None
    assert folder["path"] == "/api/v2/folders"
    assert folder["json"] == {"projectId": PROJECT, "environment": "dev", "name": "main-db", "path": "/runtime"}
    # Each name: PATCH (404, not there yet) then POST.
    assert [(w["method"], w["path"]) for w in writes] == [
        (m, f"/api/v3/secrets/raw/{n}") for n in names for m in ("PATCH", "POST")
    ]
    for w in writes:
        assert w["json"]["environment"] == "dev"
        assert w["json"]["secretPath"] == "/runtime/main-db" == secret_path("main-db")
        assert w["json"]["workspaceId"] == PROJECT and w["json"]["type"] == "shared"
        assert w["auth"] == f"Bearer {TOKEN}"
    stored = {k[2]: v for k, v in server.secrets.items() if k[:2] == ("dev", "/runtime/main-db")}
    assert stored["MAIN_DB_PASSWORD"] == PASSWORD
    assert stored["MAIN_DB_URL"] == f"postgresql://runway_admin:{PASSWORD}@main-db.proxy-abc.us-east-1.rds.amazonaws.com:5432/main_db?sslmode=require"
    assert stored["MAIN_DB_HOST"] == "main-db.proxy-abc.us-east-1.rds.amazonaws.com"
    assert (stored["MAIN_DB_PORT"], stored["MAIN_DB_USER"], stored["MAIN_DB_DATABASE"]) == ("5432", "runway_admin", "main_db")
    assert_never_reads(server)


def test_next_deploy_updates_in_place(server):
    InfisicalWriter(config(server), Redactor()).write_postgres("dev", creds(), Endpoint("h1"))
    server.requests.clear()
    rotated = PostgresCredentials("main-db", "runway_admin", "main_db", SecretValue("N" * 43))
    InfisicalWriter(config(server), Redactor()).write_postgres("dev", rotated, Endpoint("h2"))
    methods = [(r["method"], r["path"]) for r in server.requests]
    assert ("POST", "/api/v2/folders") in methods  # answered 400 "already exists": fine
    assert [m for m, p in methods if p.startswith("/api/v3/")] == ["PATCH"] * 6  # no create this time
    assert server.secrets[("dev", "/runtime/main-db", "MAIN_DB_PASSWORD")] == "N" * 43
    assert_never_reads(server)


def test_environment_slug_is_the_runway_environment(server):
    InfisicalWriter(config(server), Redactor()).write("staging", "main-db", {"MAIN_DB_PASSWORD": SecretValue(PASSWORD)})
    assert {k[:2] for k in server.secrets} == {("staging", "/runtime/main-db")}
    assert all(r["json"]["environment"] == "staging" for r in server.requests if r["path"] != "/api/v1/auth/universal-auth/login")


def test_login_failure_names_the_host_not_the_secret(server):
    writer = InfisicalWriter(config(server, secret="wrong-secret-value"), Redactor())
    with pytest.raises(InfisicalWriteError) as info:
        writer.write_postgres("dev", creds(), Endpoint("h"))
    msg = str(info.value)
    assert "login" in msg and server.url in msg and "401" in msg
    assert "wrong-secret-value" not in msg and PASSWORD not in msg
    assert server.secrets == {}


def test_write_failure_names_path_and_secret_never_the_value(server):
    server.fail_updates_with = 500
    writer = InfisicalWriter(config(server), Redactor())
    with pytest.raises(InfisicalWriteError) as info:
        writer.write_postgres("dev", creds(), Endpoint("h"))
    msg = str(info.value)
    assert "MAIN_DB_URL" in msg and "dev:/runtime/main-db/" in msg and "500" in msg
    assert PASSWORD not in msg and CLIENT_SECRET not in msg


def test_values_travel_as_secret_values_and_the_client_secret_is_redacted(server):
    redactor = Redactor()
    redactor.add_credentials({"main-db": creds()})
    values = postgres_values(creds(), Endpoint("db.internal", 6432))
    assert all(isinstance(v, SecretValue) for v in values.values())
    assert PASSWORD not in repr(values) and PASSWORD not in str(values)
    InfisicalWriter(config(server), redactor).write("dev", "main-db", values)
    line = redactor.scrub(f"debug: {values['MAIN_DB_URL'].reveal()} / {CLIENT_SECRET}")
    assert PASSWORD not in line and CLIENT_SECRET not in line
    assert "@db.internal:6432/main_db" in line  # not secret: stays readable


@pytest.mark.parametrize("host, ok", [
    ("https://app.infisical.com", True),
    ("https://secrets.example.com:8443/infisical", True),
    ("http://127.0.0.1:8080", True),
    ("http://localhost:9", True),
    ("http://[::1]:9", True),
    ("http://infisical.example.com", False),
    ("http://127.0.0.1.evil.example", False),
    ("http://evil.example/127.0.0.1", False),
    ("ftp://127.0.0.1", False),
    ("https://user:pw@app.infisical.com", False),
    ("app.infisical.com", False),
])
def test_plain_http_is_refused_except_to_a_local_server(host, ok):
    environ = {"INFISICAL_HOST": host, "INFISICAL_CLIENT_ID": "i", "INFISICAL_CLIENT_SECRET": "s", "INFISICAL_PROJECT_ID": "p"}
    if ok:
        assert InfisicalConfig.from_environ(environ).host == host.rstrip("/") == check_host(host)
    else:
        with pytest.raises(InfisicalConfigError) as info:
            InfisicalConfig.from_environ(environ)
        assert info.value.missing == ("INFISICAL_HOST",) and "INFISICAL_HOST" in str(info.value)
        assert "user:pw" not in str(info.value)


def test_environment_slug_mapping():
    base = {"INFISICAL_CLIENT_ID": "i", "INFISICAL_CLIENT_SECRET": "s", "INFISICAL_PROJECT_ID": "p"}
    assert slug_variable("production") == "INFISICAL_ENVIRONMENT_PRODUCTION" and slug_variable("eu-prod") == "INFISICAL_ENVIRONMENT_EU_PROD"
    cfg = InfisicalConfig.from_environ({**base, "INFISICAL_ENVIRONMENT_PRODUCTION": "prod"}, ["production", "staging"])
    assert cfg.slug("production") == "prod" and cfg.slug("staging") == "staging"  # default: the runway name
    with pytest.raises(InfisicalConfigError, match="INFISICAL_ENVIRONMENT_STAGING"):
        InfisicalConfig.from_environ({**base, "INFISICAL_ENVIRONMENT_STAGING": "st ag/ing"}, ["staging"])


def test_login_alone_reads_nothing_and_a_bad_identity_fails_early(server):
    writer = InfisicalWriter(config(server), Redactor())
    writer.login()
    assert [r["path"] for r in server.requests] == ["/api/v1/auth/universal-auth/login"]
    writer.write("dev", "main-db", {"MAIN_DB_PASSWORD": SecretValue(PASSWORD)})
    assert sum(r["path"] == "/api/v1/auth/universal-auth/login" for r in server.requests) == 1  # logged in once
    writer.close()
    with pytest.raises(InfisicalWriteError, match="login"):
        InfisicalWriter(config(server, secret="wrong-secret"), Redactor()).login()
