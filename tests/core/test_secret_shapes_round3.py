"""The recogniser's round-3 shapes (issue 16, the adversary's leftovers): each credential
below was quoted verbatim by the CLI and the server before this round; the ordinary runway
strings of round 2 (tests/core/test_secret_shapes_round2.py ``ORDINARY``) and the ones below
must stay as they are (docs/diagnostics.md RW147, docs/reliability.md)."""

from __future__ import annotations

import pytest

from runway_core.text import REDACTED, redact, secret_shape

# A URL password holding spaces (item 1): (text, what must not survive, what must stay)
URL_SPACED = [
    ("postgres://app:my secret pw@db.example.com:5432/x", "my secret", "db.example.com:5432/x"),
    ("DATABASE_URL=postgres://app:my secret pw@db.example.com:5432/x rest", "my secret", "db.example.com:5432/x rest"),
    ("postgres://app:my%20secret%20pw@db.example.com:5432/x", "my%20", "db.example.com:5432/x"),
    ("`postgres://app:p@ss word@db/x` is not a resource", "ss word", "db/x` is not a resource"),
    ("redis://:two words@cache:6379", "two words", "cache:6379"),
    ("amqp://guest:a b c d e f@rabbit/vhost", "a b c d e f", "rabbit/vhost"),
]

#: Ordinary strings near the new shapes: prose with a URL and an e-mail address, a port and
#: a path then prose.
ORDINARY_NEAR = [
    "https://example.com: contact me at bob@example.com",
    "see https://h.example.com:8080/path with words at bob@x.com",
    "the docs at https://docs.example.com/x say: write to ops@example.com",
    "postgres://db.internal:5432/app owned by team@example.com",
]


@pytest.mark.parametrize("text, secret, kept", URL_SPACED)
def test_a_url_password_with_spaces_is_redacted_and_the_host_kept(text, secret, kept):
    out = redact(text)
    assert secret not in out and REDACTED in out and out.endswith(kept), out
    assert secret_shape("", text) is not None  # RW147 fires on it


def test_a_url_password_stops_at_the_first_host_when_no_space_is_in_it():
    assert redact("postgres://u:pw@db:5432/x and mail me at a@b.com") == REDACTED + "db:5432/x and mail me at a@b.com"


@pytest.mark.parametrize("text", ORDINARY_NEAR)
def test_ordinary_strings_near_the_new_shapes_stay(text):
    assert redact(text) == text
    assert secret_shape("", text) is None


# Item 2: a resource or workload named like a token (a valid DNS label) reaches output as the
# names of the variables its consumers receive (`GLPAT_…_URL`): every family of the shapes
# table whose token can be such a name is recognised in that form too.
from runway_core.names import NAME_LABEL  # noqa: E402
from runway_core.planner import injected_variables  # noqa: E402
from runway_core.planner.spec import VARIABLES  # noqa: E402
from runway_core.text import INJECTED_SUFFIXES  # noqa: E402

from test_secret_shapes_round2 import L3_FAMILIES, L4_GLUED, ORDINARY  # noqa: E402

TOKEN_NAMES = [
    "glpat-abcdefghij0123456789", "gldt-abcdefghij0123456789", "glrt-abcdefghij-0123456789",
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789", "sk-abcdefghijklmnopqrstuvwxyz0123456789",
    "xoxb-123456789012-abcdefghij", "xoxp-1-abcdefghij0123", "xapp-1-abcdefghij0123",
    "pul-0123456789abcdef0123456789abcdef01234567", "dapi0123456789abcdef0123456789abcdef",
    "dapi0123456789abcdef0123456789abcdef-1", "glpat-abcdefghij-name-xyz0123456789",
]


def test_the_injected_suffixes_are_the_planners():
    assert set(INJECTED_SUFFIXES) == {s for suffixes in VARIABLES.values() for s in suffixes}


@pytest.mark.parametrize("name", TOKEN_NAMES)
@pytest.mark.parametrize("kind", sorted(VARIABLES))
def test_a_token_shaped_name_is_redacted_in_its_injected_variable_names(name, kind):
    assert NAME_LABEL.match(name) and redact(name) == REDACTED  # a valid name, redacted as written
    body = name.split("-", 1)[1] if "-" in name else name[4:]
    for var in injected_variables(name, kind):
        suffix = var.rsplit("_", 1)[1]
        out = redact(f"Injects: `{var}`, `OTHER_URL`")
        assert out == f"Injects: `{REDACTED}_{suffix}`, `OTHER_URL`", out
        assert body.upper().replace("-", "_")[:12] not in out


@pytest.mark.parametrize("token", [t for t in L3_FAMILIES + [g for g, _ in L4_GLUED] if NAME_LABEL.match(t)])
def test_every_family_that_can_be_a_name_is_recognised_as_its_variable_names(token):
    # the generalisation: whichever shape of the table a name matches, its variables match too
    assert redact(token) != token
    for kind in VARIABLES:
        for var in injected_variables(token, kind):
            assert redact(var) != var, var


@pytest.mark.parametrize("text", [
    "TASK_RUNNER_SERVICE_PRODUCTION_EAST_1_URL", "DESK_MANAGEMENT_SERVICE_PRODUCTION_EAST_URL", "ORDERS_DB_PASSWORD",
    "GLOBAL_SETTINGS_URL", "XOXO_URL", "SK_URL", "PUL_URL", "DAPI_URL", "MY_SK_API_URL", "GLPAT_SHORT_URL",
])
def test_ordinary_variable_names_stay(text):
    assert redact(text) == text


@pytest.mark.parametrize("text", ORDINARY)
def test_round_two_ordinary_strings_upper_cased_as_variable_names_stay(text):
    var = "".join(c if c.isalnum() else "_" for c in text).upper() + "_URL"
    assert redact(var) == var


# Item 4: a 40-character AWS secret access key glued to a character (a 41- or 42-character
# run) on a line that names a key (as detect-secrets' AWSKeyDetector asks for `aws` and a
# key word; gitleaks takes no glued run at all).
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GLUED_IN_CONTEXT = [
    "aws_secret = x" + AWS_SECRET,
    "AWS_SECRET_ACCESS_KEY=1" + AWS_SECRET,
    "unknown key `1" + AWS_SECRET + "`",
    "env AWS_KEY: /" + AWS_SECRET,
    "token " + AWS_SECRET + "x",
    "Credential: x" + AWS_SECRET + "y",
    "first line\nthe secret is x" + AWS_SECRET + "\nlast line",
]


@pytest.mark.parametrize("text", GLUED_IN_CONTEXT)
def test_a_glued_aws_secret_key_beside_a_key_word_is_redacted(text):
    out = redact(text)
    assert "wJalrX" not in out and "EXAMPLEKEY" not in out and REDACTED in out, out
    assert secret_shape("", text) is not None


@pytest.mark.parametrize("text", [
    "size `x" + AWS_SECRET + "`",             # no word that names a key: stays (docs/reliability.md)
    "key\nsize `x" + AWS_SECRET + "`",       # the word is on another line
    "x" + AWS_SECRET,                         # `…EXAMPLEKEY` inside the run names no key
    "ssh key SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",  # 43 characters
    "key 0123456789abcdef0123456789abcdef012345678",               # lower-case hex, 41
    "secret " + "A" * 41, "secret " + "Ab" * 21 + "c",               # one case / no digit
    "image key sha256:aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899",
    "the key " + AWS_SECRET + "xyz",                                 # a 43-character run
])
def test_what_the_glued_key_step_leaves(text):
    assert redact(text) == text


@pytest.mark.parametrize("text", [
    "orders-dev-sk-abcdefghijklmnopqrstuvwxyz012345", "arn:aws:iam::123456789012:role/dev-sk-abcdefghijklmnopqrstuvwxyz012345",
])
def test_an_openai_shaped_name_inside_an_aws_name_is_redacted(text):
    assert "sk-abcdefghij" not in redact(text) and REDACTED in redact(text)


@pytest.mark.parametrize("text", ["desk-management-service-production-east", "task-runner-service-production-east-1",
                                  "my_sk-abcdefghijklmnopqrstuvwxyz012345"])
def test_sk_inside_a_word_stays(text):
    assert redact(text) == text
