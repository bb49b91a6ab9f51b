"""The recogniser's round-4 shapes (issue 23 item 6, the previous round's leftovers): AWS
session tokens of temporary credentials whatever their first byte, a Slack
token pasted in capitals (`XOXB-…`; Slack's own tokens are `xoxb-…`, docs/diagnostics.md lists
both cases), a JSON Web Token whose signature is short or empty (an unsigned `alg: none` token
is still a bearer credential; gitleaks' `jwt` rule makes the signature optional), and a Postgres
URL password holding `//` (base64 has it: `Zm9v//YmFy`). Each was printed verbatim by the CLI's
`plan --format json` and the server's `runway/plan` (tests/e2e/test_server_redaction_round4.py);
the ordinary strings of round 2 must stay as they are."""

from __future__ import annotations

import pytest

from runway_core.text import REDACTED, redact, secret_shape

from test_secret_shapes_round2 import ORDINARY  # noqa: E402

# (text, the part that must not survive)
ROUND4 = [
    # AWS temporary credentials' session tokens with other first bytes than round 2 knew: the
    # AWS docs' example (IAM User Guide, "Use temporary credentials with AWS resources":
    # `AWS_SESSION_TOKEN=AQoDYXdzEJr...`), the 2016-2019 form, a regional STS form.
    ("AQoDYXdzEJr1K0fQNo6hjYvbEFUxbsNhcpvmbYsKtkYNQeKwL7eIkjW4k9YhKWZnZ1hD", "EJr1K0fQNo6hjYvbEFUxbsNh"),
    ("FQoGZXIvYXdzEBYaDHhBTEXAMPLESESSIONTOKENabcdefghij", "EXAMPLESESSIONTOKEN"),
    ("IgoJb3JpZ2luX2VjEHcaCXVzLWVhc3QtMSJHMEUCIQD", "EHcaCXVzLWVhc3QtMSJHMEUCIQD"),
    ("XOXB-123456789012-1234567890123-ABCDEFGHIJKLMNOPQRSTUVWX", "ABCDEFGHIJKLMNOPQRSTUVWX"),
    ("XOXP-1-ABCDEFGHIJ0123", "ABCDEFGHIJ0123"),
    ("XAPP-1-ABCDEFGHIJKL", "ABCDEFGHIJKL"),
    ("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.", "eyJzdWIiOiIxMjM0NTY3ODkwIn0"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "eyJzdWIiOiIxIn0"),
    ("postgres://app:Zm9v//YmFy+cXV4@db.internal:5432/app", "Zm9v//YmFy"),
    ("postgresql://app:se//cret@db/app", "se//cret"),
]

#: Near the new shapes, and must stay: a word in capitals with a dash, a URL with `//` in its
#: path next to an e-mail address, a dotted version string starting like a JWT header does not.
ORDINARY_NEAR = [
    "XOXO-HUGS",
    "https://a.example.com//x and bob@example.com",
    "see https://h.example.com:8080/path with words at bob@x.com",
    "eyJ.not.a.token",
]


@pytest.mark.parametrize("text, secret", ROUND4)
def test_the_round_4_shapes_are_redacted_and_rw147(text, secret):
    out = redact(text)
    assert secret not in out and REDACTED in out, out
    assert secret_shape("VALUE", text) is not None


@pytest.mark.parametrize("text", ORDINARY_NEAR + list(ORDINARY))
def test_ordinary_strings_stay(text):
    assert redact(text) == text


def test_rw147_flags_a_query_token_in_an_env_url(tmp_path, catalog):
    # Issue 23: a URL whose query string carries the credential (`?token=`, a presigned
    # `X-Amz-Security-Token=`, an Azure SAS `sig=`) is as much a secret as `user:pw@`.
    from runway_core.analysis import analyze

    (tmp_path / "runway.yaml").write_text(
        "runway: 1\nproduct: shop\nregion: us-east-1\nenvironments:\n  dev: {}\n"
        "workloads:\n  api:\n    image: nginx@sha256:aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899\n"
        "    port: 80\n    health: {path: /h}\n    expose: internal\n    reason: \"no-managed-fit: x\"\n"
        "    env:\n      FEED_URL: \"https://feed.example.com/v1?token=Tk9UQVNFQ1JFVDEyMw\"\n"
        "      BLOB_URL: \"https://a.blob.core.windows.net/c?sv=2020-08-04&sig=c2lnbmF0dXJlMTIz\"\n"
        "      PAGE_URL: \"https://feed.example.com/v1?page=2&region=us-east-1\"\n", encoding="utf-8")
    an = analyze(str(tmp_path / "runway.yaml"), catalog)
    rw147 = [d for d in an.all_diagnostics() if d.code == "RW147"]
    assert sorted(d.range.start.line for d in rw147) == [13, 14], [(d.range.start.line, d.message) for d in rw147]
    text = " ".join(d.message + str(d.data) for d in an.all_diagnostics())
    assert "Tk9UQVNFQ1JFVDEyMw" not in text and "c2lnbmF0dXJlMTIz" not in text
