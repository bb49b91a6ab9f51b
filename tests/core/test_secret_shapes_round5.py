"""Round 5 (issue 23), adversary finding A03: a URL whose user part is itself token-shaped (an
AWS access key id, a GitLab or GitHub token as the user name, as S3-compatible stores and
`git clone https://TOKEN:x-oauth-basic@...` take them) had only the user part redacted: the
token shape ran first, left `scheme://<redacted>:PASSWORD@host`, and the URL-credential shape
no longer matched because `<` was no user character. The password was then printed by every
check/plan format, the server's runway/plan and diagnostics and `receipts --format json`.
Both the scheme URL shape and the scheme-less `user:password@host` shape must take an already
redacted user."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from runway_core.text import REDACTED, redact, secret_shape

PASSWORD = "Hunter2Hunter2Pw"
ORDERS = Path(__file__).resolve().parents[2] / "examples" / "orders"

TOKEN_USER_URLS = [
    f"postgres://AKIAIOSFODNN7EXAMPLE:{PASSWORD}@db/x",
    f"postgres://AKIAIOSFODNN7EXAMPLE:{PASSWORD}@db.example.com/x",
    f"s3://AKIAIOSFODNN7EXAMPLE:{PASSWORD}@bucket/p",
    f"https://glpat-abcdefghij0123456789:{PASSWORD}@gitlab.com/x",
    f"https://ghp_abcdefghijklmnopqrstuvwxyz0123456789:{PASSWORD}@github.com/x",
    # the token glued to other user characters, and the scheme-less form (a git remote)
    f"https://ci-AKIAIOSFODNN7EXAMPLE:{PASSWORD}@gitlab.com/x",
    f"AKIAIOSFODNN7EXAMPLE:{PASSWORD}@registry.example.com/x",
    f"clone glpat-abcdefghij0123456789:{PASSWORD}@gitlab.example.com:443/x",
]


@pytest.mark.parametrize("url", TOKEN_USER_URLS)
def test_a_token_shaped_user_does_not_leave_the_password(url):
    out = redact(url)
    assert PASSWORD not in out and REDACTED in out, out
    assert "AKIAIOSFODNN7EXAMPLE" not in out and "glpat-" not in out and "ghp_" not in out, out
    assert redact(out) == out  # redacting again changes nothing
    assert secret_shape("VALUE", url) is not None


def test_a_plain_user_is_still_redacted_whole():
    assert redact(f"postgres://app:{PASSWORD}@db/x") == REDACTED + "db/x"


@pytest.mark.parametrize("url", TOKEN_USER_URLS[:5])
def test_plan_json_of_such_a_product_holds_no_password(tmp_path, capsys, url):
    from deploy_engine.cli import main

    root = tmp_path / "p"
    shutil.copytree(ORDERS, root)
    yaml = root / "runway.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8").replace("product: orders", f"product: {json.dumps(url)}", 1),
                    encoding="utf-8")
    main(["plan", str(root), "--format", "json"], environ={})
    out, err = capsys.readouterr()
    assert out.strip() or err.strip()
    assert PASSWORD not in out + err, out + err


# Sixth adversary F9: the records store's own paths for an 8-letter environment are a
# 40-character run of letters, digits and `/` (the lone AWS secret key's shape), and were shown
# as `<a value that looks like a secret>` by `up`, `receipts` and the JSON `location` field.
STORE_PATHS = [
    "/tmp/p/.runway/receipts/training/20261203T182919.314829Z.json",
    "s3://state/p/runway/receipts/training/20261203T182919.314829Z.json",
    '"key": "receipts/orders/training/20261203T182919.314829Z.json"',
    '"key": "receipts/orders/training1/20261203T182919.314829Z.json"',  # 41: glued, beside the word "key"
    "/tmp/adv6-r04.AbCd/mirror/receipts/dev/20261203T183330.993087Z.json exists with other content",
]


@pytest.mark.parametrize("text", STORE_PATHS)
def test_a_record_path_holding_its_utc_time_is_no_aws_secret_key(text):
    assert redact(text) == text


@pytest.mark.parametrize("key", ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "Zq3/20261203T1r29x8Yb+Q4/mNpLkJhGfDsAaWw"])
def test_a_key_alone_or_with_a_few_digits_around_a_t_is_still_redacted(key):
    # Twelve digits around the `T` make a record time; fewer (a real key may hold some) do not.
    assert len(key) == 40 and redact(f"x={key}") == f"x={REDACTED}"
    assert redact(f"aws key: 1{key}") == f"aws key: {REDACTED}"


def test_receipts_show_the_path_of_an_eight_letter_environment(tmp_path, capsys):
    from deploy_engine.cli import main

    root = tmp_path / "p"
    shutil.copytree(ORDERS, root)
    folder = root / ".runway" / "receipts" / "training"
    folder.mkdir(parents=True)
    name = "20261203T182919.314829Z.json"
    (folder / name).write_text(json.dumps({"format_version": 1, "command": "up", "product": "orders", "environment": "training",
                                           "outcome": "refused", "exit_code": 4, "started_at": "2026-12-03T18:29:19.314829Z"}),
                               encoding="utf-8")
    for fmt in ("text", "json"):
        rc = main(["receipts", str(root), "--env", "training", "--format", fmt], environ={})
        out = capsys.readouterr().out
        assert rc == 0 and REDACTED not in out and f"receipts/training/{name}" in out, out
