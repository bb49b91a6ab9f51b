"""The CLI scrubber and short secret values (adversary report row L8): a backend password
`able` replaced everywhere printed "Un[redacted] to locate credentials" (revealing it), a
password `e` garbled every line; a value is now scrubbed literally only from 8 characters, and
a URL's user info by its shape whatever its length (docs/deploy.md, "Secrets in output")."""

from __future__ import annotations

import io

from deploy_engine.cli import main
from deploy_engine.secrets import MIN_SCRUBBED_CHARS, REDACTED, Redactor


def test_a_short_value_is_not_scrubbed_literally_but_a_long_one_is():
    r = Redactor(["able", "e", "ist"])
    assert r.scrub("NoCredentialsError: Unable to locate credentials (list)") == "NoCredentialsError: Unable to locate credentials (list)"
    long = "hunter2-very-secret"
    assert len(long) >= MIN_SCRUBBED_CHARS
    r.add(long)
    assert r.scrub(f"auth failed for {long}!") == f"auth failed for {REDACTED}!"
    assert r.leaks(f"x{long}x") and not r.leaks("Unable")


def test_a_url_user_info_is_scrubbed_by_its_shape_whatever_its_length():
    r = Redactor(["able"])
    out = r.scrub("could not open s3://deploy:able@my-bucket/p: denied")
    assert "able@" not in out and ":able" not in out and "my-bucket/p: denied" in out
    assert "able" not in r.scrub_doc({"url": "redis://:e@cache:6379"})["url"].split("cache")[0]


def test_receipts_with_a_short_backend_password_neither_garbles_nor_reveals_it(tmp_path):
    (tmp_path / "runway.yaml").write_text("runway: 1\nproduct: shop\nregion: us-east-1\n", encoding="utf-8")
    for password in ("able", "e"):
        out, err = io.StringIO(), io.StringIO()
        environ = {"PULUMI_BACKEND_URL": f"s3://deploy:{password}@my-bucket/p", "AWS_EC2_METADATA_DISABLED": "true",
                   "AWS_SECRET_ACCESS_KEY": "ist", "AWS_ACCESS_KEY_ID": ""}
        main(["receipts", str(tmp_path)], stdout=out, stderr=err, environ=environ)
        text = out.getvalue() + err.getvalue()
        assert "[redacted]" not in text and REDACTED not in text, text  # nothing replaced inside ordinary words
        assert f"deploy:{password}@" not in text and "receipts" in text, text
