"""The recogniser's round-2 shapes (adversary report rows L1-L5): each credential below was
quoted verbatim by the CLI and the server before; each ordinary runway string below must stay
as it is (docs/diagnostics.md RW147, docs/reliability.md)."""

from __future__ import annotations

import pytest

from runway_core.text import REDACTED, redact, secret_shape

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

# (text, what must not survive the redaction)
L1_URL_USERINFO = [
    ("redis://:hunter2hunter2@cache:6379", "hunter2"),
    ("postgres://app:Zm9v/YmFy+cXV4@db:5432/app", "Zm9v"),
    ("postgres://app:Zm9v/YmFy+cXV4@db:5432/app", "cXV4"),
    ("mysql://u:pa/ss@h/db", "pa/ss"),
    ("postgres://u:p@ss@host/db", "p@ss"),
    ("rediss://default:hunter2@c:6379", "hunter2"),
    ("amqp://guest:gu#est@rabbit", "gu#est"),
    ("s3://deploy:able@my-bucket/p", "able"),
    ("`password: hunter2` is not a resource", "hunter2"),
    ("see https://ops:s3cretpw@wiki.example.com/x and redis://:hunter2hunter2@cache:6379", "s3cretpw"),
]
L2_REGISTRY = [
    ("deploy:hunter2hunter2@registry.example.com/api:1", "hunter2"),
    ("user:hunter2@host.example.com", "hunter2"),
    ("user:hunter2@localhost:5000/api", "hunter2"),
    # A host without a dot or port, followed by a path (third adversary, round 5: printed by
    # `plan --format json`).
    ("admin:hunter2@metabase/metabase:v1", "hunter2"),
    # Fourth adversary: a bare host with no path, an IPv6 host, a password holding `@`.
    ("admin:Hunter2secret@metabase", "Hunter2"),
    ("image admin:Hunter2secret@metabase is not pinned", "Hunter2"),
    ("admin:Hunter2secret@[fd00::1]/metabase", "Hunter2"),
    ("admin:Hunter2@s3cretpw@registry.example.com/x", "s3cretpw"),
    ("admin:Hunter2@s3cretpw@registry.example.com/x", "Hunter2"),
    ("image `deploy:hunter2hunter2@registry.example.com/api:1` is not allowed", "hunter2"),
]
L3_FAMILIES = [
    "pul-0123456789abcdef0123456789abcdef01234567",
    "st.abcdef12-3456-7890-abcd-ef1234567890.0123456789abcdef0123456789abcdef.0123456789abcdef0123456789abcdef",
    "hvs.CAESIJlWh0Yw3FZcO8tMbGt8ptTYxM2QkW9vb0J8KLn1QzdXGh4KHGh2cy5",
    "hvb.AAAAAQJgxDgqsGNorpoOR7hPZ5SU-ynBvCl764jyRP_fnX7WvkdkDzGjbLNGdPdtlY33As2N",
    "FwoGZXIvYXdzEBYaDHhBTEXAMPLESESSIONTOKENabcdefghijklmnopqrstuvwxyz0123456789+/ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "IQoJb3JpZ2luX2VjEHcaCXVzLWVhc3QtMSJHMEUCIQDexampleexampleexample",
    "Bearer eyJhbGciOi.bad",
    "Authorization: Bearer dXNlcjpodW50ZXIyaHVudGVyMmh1bnRlcjI",
    "ya29.a0AfH6SMBx3kVfQ8mZb6Xcq0rZ1T2u3v4w5x6y7z8A9B0C1D2E3F4G5H6I7J8K9L0",
    "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
    "xoxp-1-Mi0yLTExNjY4ODA3abc",
    "xoxa-2-abcdefghij0123",
    "xoxs-abcdefghij0123",
    "xoxe.xoxp-1-Mi0yLTExNjY4ODA3",
    "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlszLCJ",
    "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ",
    "whsec_0123456789abcdefghijklmnopqrstuv",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "shpat_0123456789abcdef0123456789abcdef",
    "shpss_0123456789abcdef0123456789abcdef",
    "lin_api_0123456789abcdefghijABCDEFGHIJ0123456789",
    "dapi0123456789abcdef0123456789abcdef",
    "A3TAIOSFODNN7EXAMPLE",
    "Injects: `PUL_0123456789ABCDEF0123456789ABCDEF01234567_URL`",
]
L4_GLUED = [
    ("xghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_0123"),
    ("_ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_0123"),
    ("1ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_0123"),
    ("-glpat-abcdefghij0123456789", "glpat-abc"),
    ("1glpat-abcdefghij0123456789", "glpat-abc"),
    ("1AKIAIOSFODNN7EXAMPLE", "AKIAIOSF"),
    ("xAKIAIOSFODNN7EXAMPLE", "AKIAIOSF"),
    ("_AKIAIOSFODNN7EXAMPLE", "AKIAIOSF"),
    ("FOO=" + AWS_SECRET, "wJalrX"),
    ("-" + AWS_SECRET, "wJalrX"),
    ("_" + AWS_SECRET, "wJalrX"),
    (":" + AWS_SECRET, "wJalrX"),
    ("xnpm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abc"),
    ("1xoxb-123456789012-abcdefghij", "xoxb-1234"),
    ("=pul-0123456789abcdef0123456789abcdef01234567", "pul-0123"),
]

#: Ordinary runway strings (DNS names, image references and tags, sizes, hashes, paths, prose)
#: that no shape may touch.
ORDINARY = [
    "api.orders.svc.cluster.local", "orders-db.abc123xyz.us-east-1.rds.amazonaws.com", "my-bucket.s3.amazonaws.com",
    "nginx:1.25.3-alpine", "nginx:1.25@sha256:aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899",
    "123456789012.dkr.ecr.us-east-1.amazonaws.com/api:v1.2.3",
    "registry.example.com/team/api@sha256:aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899",
    "ghcr.io/acme/api:2024-06-01", "git@github.com:acme/api.git", "mailto:ops@example.com",
    "small", "medium", "large", "db.t4g.micro", "cache.r7g.large", "0.25 vCPU / 512 MB", "2 GB",
    "0123456789abcdef0123456789abcdef01234567",  # a git SHA
    "https://h.example.com:8080/health", "https://npm.example.com:443/@babel/core", "redis://cache:6379/0",
    "s3://my-bucket/prefix@v2", "postgres://db.internal:5432/app", "file:///work/runway.yaml:3:5: unknown key `sizes`",
    "Bearer tokens expire after an hour.", "Bearer authentication.", "Basic Authentication", "the first step. the last.",
    "highs_and_lows", "the admin password: a step", "password: [secret]", "task-runner-service-production-east-1", "desk-management-service-production-east",
    "ENCRYPTION_KEY", "DB_PASS", "stripe_publishable_key", "orders_api_gateway_v1_routes", "a:b@c",
]


@pytest.mark.parametrize("text, secret", L1_URL_USERINFO + L2_REGISTRY + L4_GLUED)
def test_the_credential_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and REDACTED in out
    assert secret_shape("", text) is not None  # RW147 fires on it (env, uses, size, image)


@pytest.mark.parametrize("token", L3_FAMILIES)
def test_each_vendor_family_is_recognised(token):
    assert token[-12:] not in redact(token) and REDACTED in redact(token)
    assert redact(f"size: `{token}` is not a size") != f"size: `{token}` is not a size"
    assert secret_shape("", token) is not None


def test_the_rest_of_a_url_or_message_is_kept():
    assert redact("redis://:hunter2hunter2@cache:6379") == REDACTED + "cache:6379"
    assert redact("deploy:hunter2hunter2@registry.example.com/api:1") == REDACTED + "registry.example.com/api:1"
    assert redact("x FOO=" + AWS_SECRET + " y") == "x FOO=" + REDACTED + " y"


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_runway_string_is_not_redacted(text):
    assert redact(text) == text
    assert secret_shape("", text) is None


def test_a_41_character_run_is_not_a_lone_aws_secret():
    # glued to a letter or digit the run is 41 characters: some other base64, not a key
    assert redact("x" + AWS_SECRET) == "x" + AWS_SECRET


@pytest.mark.parametrize("name", [
    "DB_PASS", "SMTP_PASS", "REDIS_PASS", "KEYSTORE_PASS", "DB_PWD", "ENCRYPTION_KEY", "SECRET_KEY_BASE", "MASTER_KEY",
    "SSH_KEY", "TLS_KEY", "HMAC_KEY", "PRIVATE_KEY_PEM", "SENTRY_DSN", "DSN", "DATABASE_URL", "GPG_PASSPHRASE", "BEARER",
    "PGPASSWORD", "DJANGO_SECRET_KEY", "APIKEY",
])
def test_secret_names_are_recognised(name):
    assert secret_shape(name, f"value-of-{name.lower()}") is not None


@pytest.mark.parametrize("name, value", [
    ("PWD", "/srv/app"), ("BYPASS", "yes"), ("COMPASS", "north"), ("PUBLIC_KEY", "ssh-ed25519 AAAA"),
    ("STRIPE_PUBLISHABLE_KEY", "pk_live_x"), ("PARTITION_KEY", "tenant"), ("CACHE_KEY", "v2"), ("KMS_KEY", "alias/app"),
    ("ENCRYPTION_KEY", "arn:aws:kms:us-east-1:123456789012:key/1"), ("DATABASE_URL", "postgres://db.internal:5432/app"),
    ("DB_PASS", "${db.password}"), ("LOG_LEVEL", "debug"), ("MONKEY", "x"),
])
def test_names_that_do_not_hold_a_credential(name, value):
    assert secret_shape(name, value) is None


def test_a_dsn_url_with_a_user_part_is_a_credential_but_a_database_url_without_password_is_not():
    assert secret_shape("SENTRY_DSN", "https://abc123@o1.ingest.sentry.io/1") is not None
    assert secret_shape("DATABASE_URL", "postgres://app:pw@db/app") is not None  # by shape
    assert secret_shape("DATABASE_URL", "postgres://db/app") is None


def test_a_private_key_escaped_twice_is_redacted_whole():
    body = "MIIEowIBAAKCAQEA0123456789abcdef"
    for nl in ("\n", "\\n", "\\\\n"):
        text = f"-----BEGIN RSA PRIVATE KEY-----{nl}{body}{nl}-----END RSA PRIVATE KEY-----"
        out = redact(f'"value": "{text}"')
        assert body not in out and "END RSA" not in out, nl


def test_rw147_fires_in_uses_and_size_without_quoting(tmp_path, catalog):
    from runway_core.analysis import analyze

    (tmp_path / "runway.yaml").write_text(
        "runway: 1\nproduct: shop\nregion: us-east-1\nenvironments:\n  dev: {}\nresources:\n"
        "  q1:\n    kind: queue\n    size: \"redis://:hunter2hunter2@cache:6379\"\n"
        "  q2:\n    kind: queue\n    size: {dev: pul-0123456789abcdef0123456789abcdef01234567}\n"
        "workloads:\n  api:\n    image: nginx@sha256:aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899\n"
        "    port: 80\n    health: {path: /h}\n    expose: internal\n    reason: \"no-managed-fit: x\"\n"
        "    uses: [\"postgres://app:Zm9v/YmFy+cXV4@db:5432/app\"]\n", encoding="utf-8")
    an = analyze(str(tmp_path / "runway.yaml"), catalog)
    rw147 = [d for d in an.all_diagnostics() if d.code == "RW147"]
    assert sorted(d.range.start.line for d in rw147) == [8, 11, 19]
    text = " ".join(d.message + str(d.data) for d in an.all_diagnostics())
    assert "hunter2" not in text and "pul-0123" not in text and "Zm9v" not in text
