"""A credential in a URL is never echoed (issue 23 item 2): ``--backend`` of ``receipts`` and
``state check``, ``catalog refresh --source``, in every message, the RUNWAY_DEBUG traceback
included.

The shapes are what people paste: an AWS secret access key as the URL's password holds ``/``
and ``+`` (AWS's own example key is ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``, IAM User
Guide, "Managing access keys"); RFC 3986 §3.2.1 ends the user info at the first ``/``, so a
strict parse reads ``AKIA...:wJalrXUtnFEMI`` as the host (Go's ``net/url``, which Pulumi's
gocloud S3 backend uses, refuses it as an invalid port). urllib (CPython 3.11
``http.client.HTTPConnection._get_hostport``) reads ``u:PASSWORD@host`` as host ``u`` with port
``PASSWORD@host`` and quotes it in ``InvalidURL: nonnumeric port``; a token as the user name
alone (``https://TOKEN@host``, GitHub's form) is a credential too.
"""

from __future__ import annotations

import pytest

from deploy_engine.cli import main
from deploy_engine.receipts import public_backend_url, url_secrets
from deploy_engine.records.s3_store import parse_s3_url
from test_deploy_cli import orders  # noqa: F401

AWS_EXAMPLE_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
# Every piece of the secret that may be printed alone (split where a parser might split it).
PIECES = ("wJalrXUtnFEMI", "K7MDENG", "bPxRfiCYEXAMPLEKEY", "PASSWORD123")


def run(capsys, *argv: str, environ: dict) -> tuple[int, str]:
    rc = main(list(argv), environ=environ)
    out, err = capsys.readouterr()
    return rc, out + err


def assert_clean(text: str) -> None:
    for piece in PIECES:
        assert piece not in text, text


@pytest.mark.parametrize("url", [
    f"s3://AKIAIOSFODNN7EXAMPLE:{AWS_EXAMPLE_SECRET}@bucket/p",
    "s3://AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI?K7MDENG#bPxRfiCYEXAMPLEKEY@bucket/p",
    "s3://PASSWORD123@bucket/p",
    "gs://u:PASSWORD123@bucket/p",
    f"s3://AKIAIOSFODNN7EXAMPLE:{AWS_EXAMPLE_SECRET}@/p",
    # A fragment was kept as part of the prefix and shown in every location and fix command;
    # a ':' without '@' was read as the bucket and quoted back by boto ("Invalid bucket name").
    "s3://bucket/p#PASSWORD123",
    "s3://bucket/p?region=us-east-1#PASSWORD123",
    "s3://bucket:PASSWORD123/p",
    # Another scheme with user info and no '@' (third adversary, round 5): the refusal of the
    # scheme quoted the whole URL. RFC 3986 §3.2.3: a port is digits only, so `:PASSWORD123`
    # is no port.
    "gs://deployer:PASSWORD123/state",
    f"azblob://AKIAIOSFODNN7EXAMPLE:{AWS_EXAMPLE_SECRET}/p",
    # Fourth adversary: an all-digit password over 65535 (no port), and forms without `//`.
    "gs://deployer:99999999/PASSWORD123",
    "gs://deployer:99999999PASSWORD123/state",
    "gs:deployer:PASSWORD123/x",
    "s3:/deployer:PASSWORD123/x",
    # Fifth adversary: one `:` and no `//`, or a bare secret pasted as the backend.
    "s3:PASSWORD123",
    "gs:PASSWORD123",
    "PASSWORD123",
    # The pasted pair with its ':' percent-encoded: the host was quoted whole.
    "gs://deployer%3APASSWORD123/state",
    "azblob://deployer%3aPASSWORD123/c",
    "s3://deployer%3APASSWORD123/p",
])
@pytest.mark.parametrize("command", [["receipts", "{root}"], ["receipts", "{root}", "--format", "json"], ["state", "check"],
                                     ["state", "check", "--format", "json"], ["receipts", "export", "{root}", "--to", "{out}"]])
def test_a_backend_url_credential_is_never_printed(capsys, tmp_path, url, command):
    root = orders(tmp_path)
    argv = [a.format(root=root, out=tmp_path / "out") for a in command] + ["--backend", url]
    # Nothing listens on port 9: the store is unreachable, so every error path is taken.
    environ = {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y", "AWS_REGION": "us-east-1",
               "AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_MAX_ATTEMPTS": "1", "RUNWAY_DEBUG": "1"}
    rc, text = run(capsys, *argv, environ=environ)
    assert rc == 3, text
    assert_clean(text)
    # The same through PULUMI_BACKEND_URL.
    rc, text = run(capsys, *argv[:-2], environ={**environ, "PULUMI_BACKEND_URL": url})
    assert rc == 3, text
    assert_clean(text)


@pytest.mark.parametrize("source", [
    "http://u:PASSWORD123@" + "a" * 70 + "/x",
    "http://PASSWORD123@" + "a" * 70 + "/x",
    "http://u:PASSWORD123@ex\u00e4mple.invalid/x",
    f"http://AKIAIOSFODNN7EXAMPLE:{AWS_EXAMPLE_SECRET}@mirror.invalid/x",
])
def test_a_catalog_source_credential_is_never_printed(capsys, tmp_path, source):
    rc, text = run(capsys, "catalog", "refresh", "--region", "us-east-1", "--source", source, "--output", str(tmp_path / "c"),
                   environ={"RUNWAY_DEBUG": "1", "NO_PROXY": "*"})
    assert rc != 0
    assert_clean(text)


@pytest.mark.parametrize("source", ["http://u:PASSWORD123@127.0.0.1:9/mirror", "http://u:PASSWORD123@bad host/x"])
def test_the_module_form_of_catalog_refresh_redacts_its_source_too(tmp_path, source):
    """`python -m deploy_engine.pricelist refresh` (catalog/README.md's form) wrote its errors
    to a bare sys.stderr: the password of `--source` was quoted (round 5 leftover)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNWAY_", "AWS_"))} | {"NO_PROXY": "*"}
    got = subprocess.run([sys.executable, "-m", "deploy_engine.pricelist", "refresh", "--region", "us-east-1", "--source", source,
                          "--output", str(tmp_path / "c")], capture_output=True, text=True, timeout=60, env=env, check=False)
    assert got.returncode == 3, (got.returncode, got.stderr)
    assert "catalog refresh" in got.stderr, got.stderr
    assert_clean(got.stdout + got.stderr)


def test_the_url_helpers_hide_a_password_that_holds_a_slash_or_question_mark():
    url = f"s3://AKIAIOSFODNN7EXAMPLE:{AWS_EXAMPLE_SECRET}@bucket/p?region=eu-west-1"
    assert public_backend_url(url) == "s3://***@bucket/p"
    assert public_backend_url("s3://k:a?b#c@bucket/p") == "s3://***@bucket/p"
    assert AWS_EXAMPLE_SECRET in url_secrets(url) and "wJalrXUtnFEMI" in url_secrets(url)
    with pytest.raises(ValueError) as exc:
        parse_s3_url(url)
    assert_clean(str(exc.value))
    assert parse_s3_url("s3://bucket/p?region=eu-west-1").bucket == "bucket"
    # An '@' after the bucket is a pasted credential (S3 takes none in the URL): refused.
    with pytest.raises(ValueError):
        parse_s3_url("s3://bucket/p?endpoint=http://u:PASSWORD123@127.0.0.1:9")


def test_the_url_helpers_hide_a_fragment_and_a_colon_in_the_bucket():
    assert public_backend_url("s3://b-trav/pfx#PASSWORD123") == "s3://b-trav/pfx"
    assert public_backend_url("s3://b-trav:PASSWORD123/pfx") == "s3://***"
    assert "PASSWORD123" in url_secrets("s3://b-trav/pfx#PASSWORD123")
    assert "PASSWORD123" in url_secrets("s3://b-trav:PASSWORD123/pfx")
    for url in ("s3://b-trav/pfx#PASSWORD123", "s3://b-trav:PASSWORD123/pfx", "s3://b trav/pfx"):
        with pytest.raises(ValueError) as exc:
            parse_s3_url(url)
        assert_clean(str(exc.value))
    assert parse_s3_url("s3://Legacy_Bucket.1/p").bucket == "Legacy_Bucket.1"


def test_the_url_helpers_hide_user_info_without_its_at_sign_in_any_scheme():
    assert public_backend_url("gs://deployer:PASSWORD123/state") == "gs://***"
    assert "PASSWORD123" in url_secrets("gs://deployer:PASSWORD123/state")
    assert public_backend_url("gs://deployer:99999999/state") == "gs://***"
    assert "99999999" in url_secrets("gs://deployer:99999999/state")
    assert public_backend_url("gs:deployer:PASSWORD123/x") == "gs:***"
    assert "PASSWORD123" in url_secrets("s3:/deployer:PASSWORD123/x")
    # A real port stays (RFC 3986 §3.2.3: digits only).
    assert public_backend_url("https://state.example.com:8443/x") == "https://state.example.com:8443/x"
    assert url_secrets("https://state.example.com:8443/x") == []


# Issue 23: the AWS endpoint variables are URLs someone else's CI sets. botocore reads
# AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE> (AWS SDKs and Tools Reference Guide,
# "Service-specific endpoints"); a user info or a query token in them (a proxy's
# `http://KEY:SECRET@host`, a presigned-style `?X-Amz-Security-Token=`, an Azure-style `sig=`)
# is quoted back by botocore's "Could not connect to the endpoint URL" and urllib3's errors.
@pytest.mark.parametrize("variable", ["AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"])
@pytest.mark.parametrize("endpoint", [
    "http://AKIAIOSFODNN7EXAMPLE:PASSWORD123@127.0.0.1:9",
    "http://PASSWORD123@127.0.0.1:9",
    "http://127.0.0.1:9/?token=PASSWORD123",
    "http://127.0.0.1:9/?a=1&X-Amz-Security-Token=PASSWORD123",
    "http://127.0.0.1:9/?sig=PASSWORD123&sv=2020",
])
@pytest.mark.parametrize("command", [["receipts", "{root}"], ["receipts", "{root}", "--format", "json"], ["state", "check"]])
def test_an_endpoint_variable_credential_is_never_printed(capsys, tmp_path, variable, endpoint, command):
    root = orders(tmp_path)
    argv = [a.format(root=root) for a in command] + ["--backend", "s3://bucket/p"]
    environ = {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y", "AWS_REGION": "us-east-1",
               variable: endpoint, "AWS_MAX_ATTEMPTS": "1", "RUNWAY_DEBUG": "1"}
    rc, text = run(capsys, *argv, environ=environ)
    assert rc == 3, text
    assert_clean(text)


def test_a_query_token_in_a_url_is_redacted_and_flagged():
    from runway_core.text import REDACTED, redact, secret_shape

    for url in ("https://mirror.example.com/index.json?token=abc123def",
                "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Security-Token=IQoJb3Jp&X-Amz-Signature=0fa1",
                "https://acct.blob.core.windows.net/c/b?sv=2020-08-04&sig=Zm9vYmFy%2B"):
        out = redact(f"fetching {url} failed")
        for secret in ("abc123def", "IQoJb3Jp", "0fa1", "Zm9vYmFy"):
            assert secret not in out, out
        assert REDACTED in out
        assert secret_shape("MIRROR", url) is not None
    # Ordinary query strings are no credential.
    for url in ("https://h.example.com/x?region=us-east-1&page=2", "s3://bucket/p?region=eu-west-1", "https://h/?tokens=5"):
        assert redact(url) == url and secret_shape("MIRROR", url) is None


@pytest.mark.parametrize("docs", ["https://u:Hunter2Hunter2Pw@docs.example/x",
                                  "https://ci-bot:Hunter2Hunter2Pw@docs.example.com/docs/"])
def test_help_and_sarif_name_no_password_of_runway_docs_url(capsys, monkeypatch, tmp_path, docs):
    # Round 5 A04: `--help` printed RUNWAY_DOCS_URL verbatim, `user:password@` included. The
    # user part is dropped wherever the docs URL is used (help text, SARIF helpUri, which stays
    # an absolute URI).
    import json

    monkeypatch.setenv("RUNWAY_DOCS_URL", docs)
    assert main(["--help"], environ={"RUNWAY_DOCS_URL": docs}) == 0
    out, err = capsys.readouterr()
    assert "Hunter2Hunter2Pw" not in out + err and "docs.example" in out + err, out + err
    main(["check", str(orders(tmp_path)), "--format", "sarif"], environ={"RUNWAY_DOCS_URL": docs})
    out, err = capsys.readouterr()
    assert "Hunter2Hunter2Pw" not in out + err
    uris = {r.get("helpUri") for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]}
    assert uris and all(u and u.startswith("https://docs.example") for u in uris), uris
