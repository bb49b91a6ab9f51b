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
