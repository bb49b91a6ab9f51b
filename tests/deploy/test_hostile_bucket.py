"""A shared state bucket is input someone else controls (issue 23 item 1): ``receipts`` and
``receipts export`` against a real moto_server bucket (tests/motoserver.py) holding hostile
objects: keys that leave their prefix (``../``, backslashes, control characters), receipts that
are not UTF-8, 100,000 levels deep, over the size bound or mistyped, and an export folder with a
symlink inside. The bound on what may be read is docs/deploy.md, "Records"; what the export may
write is Python's own rule for extracting an archive (PEP 706, ``tarfile.data_filter``: nothing
outside the destination, no link followed out of it), made stricter: no symlink is followed
below DIR at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

from test_deploy_cli import deploy, orders  # noqa: F401

T1 = datetime(2026, 11, 30, 9, 1, tzinfo=timezone.utc)


def _env(moto_server, bucket: str) -> dict[str, str]:
    return {**moto_server.env(), "PULUMI_BACKEND_URL": f"s3://{bucket}/orders"}


def _put(moto_server, bucket: str, key: str, body: bytes) -> None:
    moto_server.client().put_object(Bucket=bucket, Key=f"orders/runway/{key}", Body=body)


def _files_under(folder: Path) -> set[str]:
    return {str(p) for p in folder.rglob("*")} if folder.exists() else set()


def _one_good_receipt(capsys, root: Path, environ: dict) -> None:
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, clock=lambda: T1)
    assert rc == 4, err  # not the protected job: refused, and its receipt written to the bucket


def test_export_never_writes_outside_dir_for_hostile_keys_or_a_symlink_inside_dir(capsys, tmp_path, moto_server):
    root = orders(tmp_path)
    bucket = moto_server.bucket()
    environ = _env(moto_server, bucket)
    _one_good_receipt(capsys, root, environ)
    hostile = [
        "receipts/orders/dev/../../../../../../escaped-dotdot.json",
        "receipts/orders/dev/x/../../../../../../escaped-nested.json",
        "receipts/orders/dev/..\\..\\..\\escaped-backslash.json",
        "receipts/orders/dev/\x1b[31mred.json",
        "receipts/orders/dev/./20261130T090500.000000Z.json",
        "receipts/orders/dev//20261130T090600.000000Z.json",
    ]
    for key in hostile:
        _put(moto_server, bucket, key, b'{"format_version": 1}')
    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "audit"
    dest.mkdir()
    # A symlink inside DIR where the export will write: the audit folder's "receipts" points out.
    (dest / "receipts").symlink_to(outside, target_is_directory=True)
    before = _files_under(tmp_path) - _files_under(dest)

    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(dest), environ=environ)
    after = _files_under(tmp_path) - _files_under(dest)
    assert after == before, sorted(after - before)  # nothing written anywhere outside DIR
    assert list(outside.iterdir()) == []
    assert rc == 3, err
    assert "is a symlink or not a folder; not followed" in err and "escaped" not in "".join(os.listdir(tmp_path))
    assert "\x1b" not in err

    # Without the symlink: the good receipt is exported, each hostile key refused and named.
    (dest / "receipts").unlink()
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(dest), environ=environ)
    after = _files_under(tmp_path) - _files_under(dest)
    assert after == before, sorted(after - before)
    assert rc == 3, err  # refused keys: the export is incomplete, said so
    assert err.count("leaves its prefix") + err.count("not a record name") == len(hostile), err
    assert "\x1b" not in err
    files = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.json"))
    assert len(files) == 1 and files[0].startswith("receipts/orders/dev/2026")
    sums = (dest / "SHA256SUMS").read_text().splitlines()
    assert sums == [f"{hashlib.sha256((dest / files[0]).read_bytes()).hexdigest()}  {files[0]}"]
    assert "1 new" in err and "SHA256SUMS lists 1" in err
    assert not [p for p in dest.rglob(".tmp-*")]  # no temporary file left behind


def test_export_refuses_a_symlink_at_the_file_itself(capsys, tmp_path, moto_server):
    root = orders(tmp_path)
    bucket = moto_server.bucket()
    environ = _env(moto_server, bucket)
    _one_good_receipt(capsys, root, environ)
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(tmp_path / "first"), environ=environ)
    assert rc == 0, err
    (name,) = [p.relative_to(tmp_path / "first") for p in (tmp_path / "first").rglob("*.json")]
    dest = tmp_path / "audit"
    (dest / name).parent.mkdir(parents=True)
    secret = tmp_path / "not-yours.txt"
    secret.write_text("private")
    (dest / name).symlink_to(secret)
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(dest), environ=environ)
    assert rc == 3 and "is a symlink" in err, err
    assert secret.read_text() == "private" and (dest / name).is_symlink()


def test_export_refuses_a_symlink_at_sha256sums(capsys, tmp_path, moto_server):
    """``DIR/SHA256SUMS -> elsewhere`` was silently replaced by a regular file; docs/deploy.md
    says every symlink below DIR is refused: it is, and left as it was (target untouched)."""
    root = orders(tmp_path)
    bucket = moto_server.bucket()
    environ = _env(moto_server, bucket)
    _one_good_receipt(capsys, root, environ)
    dest = tmp_path / "audit"
    dest.mkdir()
    secret = tmp_path / "not-yours.txt"
    secret.write_text("private")
    (dest / "SHA256SUMS").symlink_to(secret)
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(dest), environ=environ)
    assert rc == 3 and "SHA256SUMS is a symlink" in err, err
    assert (dest / "SHA256SUMS").is_symlink() and secret.read_text() == "private"


def test_hostile_receipt_objects_are_listed_as_unreadable_never_a_crash(capsys, tmp_path, moto_server):
    root = orders(tmp_path)
    bucket = moto_server.bucket()
    environ = _env(moto_server, bucket)
    _one_good_receipt(capsys, root, environ)
    bad = {
        "20261130T090200.000000Z.json": b"\xff\xfe not utf-8",
        "20261130T090300.000000Z.json": b"[" * 100_000 + b"]" * 100_000,
        "20261130T090400.000000Z.json": b'{"pad": "' + b"x" * (60 * 1024 * 1024) + b'"}',
        "20261130T090500.000000Z.json": json.dumps({"format_version": 1, "environment": {"a": 1}, "started_at": ["x"],
                                                    "outcome": 7, "exit_code": "zero", "plan_digest": {}}).encode(),
        "20261130T090600.000000Z.json": b'["a", "list"]',
        "20261130T090700.000000Z.json": json.dumps({"format_version": 1, "command": "up", "environment": "dev",
                                                    "outcome": "failed", "started_at": "\udc80\x1b[2J"}).encode(),  # a "\\udc80" escape
    }
    for name, body in bad.items():
        _put(moto_server, bucket, f"receipts/orders/dev/{name}", body)
    rc, out, err = deploy(capsys, "receipts", str(root), "--env", "dev", environ=environ)
    assert rc == 0, err
    assert "7 receipt(s) of orders" in out and "\x1b" not in out
    assert out.count("unreadable") == len(bad), out
    rc, out, err = deploy(capsys, "receipts", str(root), "--env", "dev", "--format", "json", environ=environ)
    assert rc == 0, err
    rows = json.loads(out)["receipts"]
    assert [("error" in r) for r in rows] == [False] + [True] * len(bad)
    assert len(out) < 100_000  # the 60 MB object is not echoed
    dest = tmp_path / "audit"
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(dest), environ=environ)
    assert rc == 3, err  # the unreadable ones are named, not exported
    assert len(list(dest.rglob("*.json"))) == 1


def test_export_to_a_new_folder_with_no_receipts_and_the_documented_argument_order(capsys, tmp_path, moto_server):
    root = orders(tmp_path)
    bucket = moto_server.bucket()
    environ = _env(moto_server, bucket)
    dest = tmp_path / "new" / "audit"
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(dest), environ=environ)
    assert rc == 0, err  # was exit 70: SHA256SUMS written into a folder never made
    assert "0 new" in err and (dest / "SHA256SUMS").read_text() == ""
    _one_good_receipt(capsys, root, environ)
    # docs/cli.md and docs/deploy.md write it `receipts export --to DIR PATH`.
    rc, _, err = deploy(capsys, "receipts", "export", "--to", str(dest), str(root), environ=environ)
    assert rc == 0 and "1 new" in err, err
    rc, _, err = deploy(capsys, "receipts", "export", "--to", str(dest), str(root), "--env", "dev", environ=environ)
    assert rc == 0 and "1 already there" in err, err


def test_dir_itself_may_be_a_symlink_to_the_folder_meant(capsys, tmp_path, moto_server):
    """DIR is the folder named, as GNU cp's destination folder is: a symlink to it is followed
    (only what is below DIR never is)."""
    root = orders(tmp_path)
    bucket = moto_server.bucket()
    environ = _env(moto_server, bucket)
    _one_good_receipt(capsys, root, environ)
    real = tmp_path / "mnt" / "audit"
    real.mkdir(parents=True)
    (tmp_path / "audit").symlink_to(real, target_is_directory=True)
    before = _files_under(tmp_path) - _files_under(real)
    rc, _, err = deploy(capsys, "receipts", "export", "--to", str(tmp_path / "audit"), str(root), environ=environ)
    assert rc == 0 and "1 new" in err, err
    assert _files_under(tmp_path) - _files_under(real) == before
    assert len(list(real.rglob("*.json"))) == 1 and (real / "SHA256SUMS").is_file()


def _bucket_with_one_receipt(capsys, tmp_path: Path, moto_server) -> tuple[Path, str, dict, str, bytes]:
    """(runway root, bucket, environ, the receipt's object key, its bytes) after one real `up`."""
    root = orders(tmp_path)
    bucket = moto_server.bucket()
    environ = _env(moto_server, bucket)
    _one_good_receipt(capsys, root, environ)
    s3 = moto_server.client()
    (good,) = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="orders/runway/receipts/orders/dev/")["Contents"]]
    return root, bucket, environ, good, s3.get_object(Bucket=bucket, Key=good)["Body"].read()


def test_receipts_reads_only_the_newest_limit_of_a_crowded_bucket(capsys, tmp_path, moto_server):
    """3,000 receipts made `receipts --format json` take 199 s with no word of progress: each one
    read (and its lock looked up). Now the newest ``--limit N`` (default 50, as ``git log -n``)
    are read and listed, stderr says how many older ones were left out, ``omitted`` counts them."""
    import test_deploy_cli

    root, bucket, environ, good, body = _bucket_with_one_receipt(capsys, tmp_path, moto_server)
    for i in range(70):  # older than the good one (2026-11-30T09:01)
        _put(moto_server, bucket, f"receipts/orders/dev/20261130T08{i // 60:02d}{i % 60:02d}.000000Z.json", body)
    rc, out, err = test_deploy_cli.deploy(capsys, "receipts", str(root), "--format", "json", environ=environ)
    assert rc == 0, err
    doc = json.loads(out)
    assert len(doc["receipts"]) == 50 and doc["omitted"] == 21, err
    assert doc["receipts"][-1]["key"].endswith(good.rsplit("/", 1)[1])  # the newest is shown
    assert "21 older receipt(s) not shown (the newest 50 of 71; --limit 0 lists all)" in err
    rc, out, err = test_deploy_cli.deploy(capsys, "receipts", str(root), "--format", "json", "--limit", "0", environ=environ)
    assert rc == 0 and len(json.loads(out)["receipts"]) == 71 and "not shown" not in err
    rc, out, err = test_deploy_cli.deploy(capsys, "receipts", str(root), "--limit", "-1", environ=environ)
    assert rc == 64, err


def test_a_receipt_whose_environment_is_not_its_folders_is_unreadable(capsys, tmp_path, moto_server):
    """An object at ``…/receipts/orders/dev/`` saying ``"environment": "production\\n\\x1b]0;pwn\\x07"``
    was listed and exported as a valid receipt (of production, and with a forged line). Its
    environment and product must be its folder's: else `unreadable`, and not exported."""
    import test_deploy_cli

    root, bucket, environ, good, body = _bucket_with_one_receipt(capsys, tmp_path, moto_server)
    doc = json.loads(body)
    # Named as runway names a receipt (a name that is no UTC time is unreadable for that alone).
    env_key, prod_key = "20261130T091000.000000Z.json", "20261130T091100.000000Z.json"
    _put(moto_server, bucket, f"receipts/orders/dev/{env_key}", json.dumps({**doc, "environment": "production\n\x1b]0;pwn\x07"}).encode())
    _put(moto_server, bucket, f"receipts/orders/dev/{prod_key}", json.dumps({**doc, "product": "billing"}).encode())
    rc, out, err = test_deploy_cli.deploy(capsys, "receipts", str(root), "--format", "json", environ=environ)
    assert rc == 0, err
    rows = {r["key"].rsplit("/", 1)[1]: r for r in json.loads(out)["receipts"]}
    assert "is not its folder's (dev)" in rows[env_key]["error"], rows
    assert "is not its folder's (orders)" in rows[prod_key]["error"], rows
    rc, out, err = test_deploy_cli.deploy(capsys, "receipts", str(root), environ=environ)
    assert "\x1b" not in out + err and "\npwn" not in out
    rc, _, err = test_deploy_cli.deploy(capsys, "receipts", "export", str(root), "--to", str(tmp_path / "audit"), environ=environ)
    assert rc == 3 and err.count("is not its folder's") == 2, err
    assert not list((tmp_path / "audit").rglob("*T091[01]*.json"))


def test_a_receipt_with_a_non_finite_or_huge_number_is_unreadable(capsys, tmp_path, moto_server):
    """Python's ``json.loads`` reads ``1e999999`` as ``inf`` and accepts ``NaN``/``Infinity``
    (json module docs: "parse_constant ... can be used to raise an exception if invalid JSON
    numbers are encountered"; RFC 8259 §6 allows neither). Such a receipt printed ``inf`` and
    ``Infinity``; an amount of 1e15 USD or more cannot be exact cents in a float (2**53 / 100
    is about 9e13). Each is listed as unreadable, never printed, never a crash."""
    import test_deploy_cli

    root, bucket, environ, good, body = _bucket_with_one_receipt(capsys, tmp_path, moto_server)
    doc = json.loads(body)
    assert isinstance(doc["estimate"]["total_monthly_usd"], (int, float))
    bad = {
        "20261130T090200.000000Z.json": {**doc, "extra_number": "@1e999999@"},
        "20261130T090300.000000Z.json": {**doc, "estimate": {**doc["estimate"], "total_monthly_usd": "@NaN@"}},
        "20261130T090400.000000Z.json": {**doc, "estimate": {**doc["estimate"], "cap_monthly_usd": "@-Infinity@"}},
        "20261130T090500.000000Z.json": {**doc, "estimate": {**doc["estimate"], "total_monthly_usd": 1e15}},
        "20261130T090600.000000Z.json": {**doc, "estimate": {**doc["estimate"], "total_monthly_usd": 10 ** 400}},
    }
    for name, d in bad.items():
        text = json.dumps(d).replace('"@', "").replace('@"', "")
        _put(moto_server, bucket, f"receipts/orders/dev/{name}", text.encode())
    rc, out, err = test_deploy_cli.deploy(capsys, "receipts", str(root), "--env", "dev", environ=environ)
    assert rc == 0, err
    assert out.count("unreadable") == len(bad), out
    assert not re.search(r"\binf\b", out, re.IGNORECASE) and "exit Infinity" not in out, out
    rc, out, err = test_deploy_cli.deploy(capsys, "receipts", str(root), "--env", "dev", "--format", "json", environ=environ)
    assert rc == 0, err
    def strict(name):
        raise AssertionError(f"{name} printed as a JSON value")

    rows = {r["key"].rsplit("/", 1)[1]: r for r in json.loads(out, parse_constant=strict)["receipts"]}
    for name in bad:
        assert rows[name]["error"].startswith("unreadable: "), rows[name]
    assert "exact cents" in rows["20261130T090500.000000Z.json"]["error"]
    rc, _, err = test_deploy_cli.deploy(capsys, "receipts", "export", str(root), "--to", str(tmp_path / "audit"), environ=environ)
    assert rc == 3, err
    assert len(list((tmp_path / "audit").rglob("*.json"))) == 1


def test_a_receipt_whose_estimate_has_the_wrong_json_types_is_unreadable(capsys, tmp_path, moto_server):
    """Third adversary, round 5: an ``estimate`` of ``"total_monthly_usd": "NaN"`` (a string), an
    object ``verdict`` or a negative cap was listed as a receipt; docs/deploy.md's receipt table
    says what ``estimate`` holds (``estimate_json``: amounts in USD, a verdict of
    ``runway_core.planner.VERDICTS``). Each such receipt is unreadable, and export refuses it."""
    import test_deploy_cli

    root, bucket, environ, good, body = _bucket_with_one_receipt(capsys, tmp_path, moto_server)
    doc = json.loads(body)
    est = doc["estimate"]
    bad = {
        "20261130T090200.000000Z.json": ({**doc, "estimate": {**est, "total_monthly_usd": "NaN"}}, "total_monthly_usd"),
        "20261130T090300.000000Z.json": ({**doc, "estimate": {**est, "verdict": {"ok": True}}}, "verdict"),
        "20261130T090400.000000Z.json": ({**doc, "estimate": {**est, "cap_monthly_usd": -150}}, "cap_monthly_usd"),
        "20261130T090500.000000Z.json": ({**doc, "estimate": {**est, "total_monthly_usd": True}}, "total_monthly_usd"),
        "20261130T090600.000000Z.json": ({**doc, "estimate": {k: v for k, v in est.items() if k != "text"}}, "text"),
        "20261130T090700.000000Z.json": ({**doc, "estimate": {**est, "verdict": "fine"}}, "verdict"),
    }
    for name, (d, _field) in bad.items():
        _put(moto_server, bucket, f"receipts/orders/dev/{name}", json.dumps(d).encode())
    rc, out, err = test_deploy_cli.deploy(capsys, "receipts", str(root), "--env", "dev", "--format", "json", environ=environ)
    assert rc == 0, err
    rows = {r["key"].rsplit("/", 1)[1]: r for r in json.loads(out)["receipts"]}
    for name, (_d, field_name) in bad.items():
        assert rows[name].get("error", "").startswith(f"unreadable: estimate {field_name} must be"), rows[name]
    assert sum(1 for r in rows.values() if "error" not in r) == 1  # the good one still reads
    rc, _, err = test_deploy_cli.deploy(capsys, "receipts", "export", str(root), "--to", str(tmp_path / "audit"), environ=environ)
    assert rc == 3, err
    assert len(list((tmp_path / "audit").rglob("*.json"))) == 1


def test_state_check_prints_control_characters_from_the_bucket_or_ci_escaped(capsys, tmp_path):
    """Issue 23: a lifecycle rule's ID and prefix are the bucket owner's text, botocore's errors
    quote the CI's ``AWS_ENDPOINT_URL``; ``state check`` printed both raw (an ESC clears the
    terminal, a CSI recolours it). Each line now goes through ``printable``."""
    import test_deploy_cli
    from deploy_engine.state_check import BucketReport, Check, report_text

    report = BucketReport("b", "s3://b/p/runway/", [Check("lifecycle rules", False, "rule \x1b]0;pwn\x07 on \x9b2J would expire receipts",
                                                          ["aws s3api x"], ["line"], False)])
    text = report_text(report)
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text and "\\x1b" in text
    assert text.endswith("\n") and text.count("\n") == len(text.splitlines())  # line breaks kept
    environ = {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y", "AWS_REGION": "us-east-1",
               "AWS_ENDPOINT_URL": "http://127.0.0.1:9/\x1b[2J\x9b31m", "AWS_MAX_ATTEMPTS": "1"}
    for fmt in ("text", "json"):
        rc, out, err = test_deploy_cli.deploy(capsys, "state", "check", "--backend", "s3://bucket/p", "--format", fmt, environ=environ)
        assert rc == 3, err
        assert "\x1b" not in out + err and "\x9b" not in out + err, out + err


def test_export_names_the_true_reason_for_a_key_too_long(capsys, tmp_path, moto_server):
    """Issue 23: a record name over NAME_MAX (255 bytes, linux/limits.h: no file can be named
    so) and a key over S3's 1,024 bytes of UTF-8 (AWS docs, "Naming Amazon S3 objects", formerly
    "Creating object key names": "a maximum length of 1,024 bytes"; moto_server accepts longer
    ones, as another S3-compatible store may) were exported as "is a symlink; not followed"
    (ENAMETOOLONG taken for ELOOP). Each is named with its true reason, the rest exported."""
    import test_deploy_cli

    root, bucket, environ, good, body = _bucket_with_one_receipt(capsys, tmp_path, moto_server)
    long_name = "20261130T090200.000000Z" + "1" * 300 + ".json"  # one segment of 328 bytes
    huge_name = "20261130T090300.000000Z" + "2" * 1100 + ".json"  # the key itself over 1,024 bytes
    for name in (long_name, huge_name):
        _put(moto_server, bucket, f"receipts/orders/dev/{name}", body.replace(b'"environment": "dev"', b'"environment": "dev"'))
    dest = tmp_path / "audit"
    rc, _, err = test_deploy_cli.deploy(capsys, "receipts", "export", str(root), "--to", str(dest), environ=environ)
    assert rc == 3, err
    assert "symlink" not in err, err
    assert "over the 1,024 bytes of UTF-8 an S3 object key may hold" in err, err
    assert "over the 255 bytes a file name may hold (NAME_MAX)" in err, err
    assert len(list(dest.rglob("*.json"))) == 1
