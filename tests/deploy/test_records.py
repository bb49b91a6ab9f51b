"""The records store (deploy_engine/records/) against a real moto_server, and the file store.

Everything S3 here goes over HTTP to ``moto_server`` on 127.0.0.1 (tests/motoserver.py): the
bucket's versioning, Object Lock (a locked version cannot be deleted), conditional writes
(``If-None-Match: *``, ``If-Match``), conditional deletes and lifecycle configuration. The
lease race runs ten separate Python processes, each from its own working folder.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import botocore.exceptions
import pytest

from deploy_engine.leases import LeaseHeld, acquire, current_lease, release, renew
from deploy_engine.receipts import Receipt, list_receipts, store_receipt
from deploy_engine.records import open_store
from deploy_engine.records.file_store import FileStore
from deploy_engine.records.kinds import add_years, write_json
from deploy_engine.records.s3_store import S3Store, parse_s3_url, parse_s3_url as _parse, s3_client
from deploy_engine.records.store import RecordChanged, RecordExists
from deploy_engine.secrets import Redactor
from runway_core.analysis import analyze

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders" / "runway.yaml"
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
#: The exit code of a refused lease (deploy_engine.cli EXIT_LEASE_HELD, docs/deploy.md).
EXIT_LEASE_HELD = 6


@pytest.fixture(scope="module")
def dev_plan(catalog):
    return analyze(str(ORDERS), catalog).plans["dev"]


def s3_store(moto_server, bucket: str, prefix: str = "orders") -> S3Store:
    return open_store(f"s3://{bucket}/{prefix}", "/nonexistent", moto_server.env())  # type: ignore[return-value]


def test_open_store_follows_the_backend_url(tmp_path, moto_server):
    assert isinstance(open_store("", tmp_path, {}), FileStore)
    assert isinstance(open_store(f"file://{tmp_path}/state", tmp_path, {}), FileStore)
    store = open_store("s3://state-bucket/teams/orders?region=eu-west-1", tmp_path, moto_server.env())
    assert isinstance(store, S3Store) and store.bucket == "state-bucket" and store.root_prefix == "teams/orders/runway/"
    assert store.location(store.key("receipts", "orders", "dev", "x.json")) == "s3://state-bucket/teams/orders/runway/receipts/orders/dev/x.json"
    # The file store keeps today's layout: one product per repository.
    assert FileStore(tmp_path).path(FileStore(tmp_path).key("receipts", "orders", "dev", "x.json")) == tmp_path / ".runway/receipts/dev/x.json"
    assert _parse("s3://AKIA:secret@bkt/p?profile=ci&endpoint=http://127.0.0.1:1").bucket == "bkt"
    where = parse_s3_url("s3://bkt?region=eu-west-1&profile=ci")
    assert (where.prefix, where.region, where.profile) == ("", "eu-west-1", "ci")
    with pytest.raises(ValueError):
        store.key("receipts", "../etc", "dev", "x.json")


def test_the_aws_configuration_is_honoured_and_the_secret_key_redacted(moto_server):
    redactor = Redactor()
    client = s3_client(parse_s3_url("s3://b/p"), moto_server.env(), redactor)
    assert client.meta.endpoint_url == moto_server.endpoint and client.meta.region_name == "us-east-1"
    assert redactor.leaks(moto_server.env()["AWS_SECRET_ACCESS_KEY"])
    # The URL's own region and endpoint win (as Pulumi's S3 backend reads them).
    other = s3_client(parse_s3_url("s3://b/p?region=eu-west-1&endpoint=http://127.0.0.1:9"), moto_server.env())
    assert other.meta.endpoint_url == "http://127.0.0.1:9" and other.meta.region_name == "eu-west-1"


def test_moto_speaks_versioning_object_lock_and_lifecycle(moto_server):
    s3 = moto_server.client()
    bucket = moto_server.bucket(object_lock=True)
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"  # Object Lock turns versioning on
    assert s3.get_object_lock_configuration(Bucket=bucket)["ObjectLockConfiguration"]["ObjectLockEnabled"] == "Enabled"
    rules = [{"ID": "drift", "Filter": {"Prefix": "orders/runway/drift/"}, "Status": "Enabled", "Expiration": {"Days": 396}}]
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    got = s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]
    assert got[0]["Filter"]["Prefix"] == "orders/runway/drift/" and got[0]["Expiration"]["Days"] == 396


def test_a_receipt_in_s3_is_append_only_and_locked_for_seven_years(tmp_path, moto_server, dev_plan):
    bucket = moto_server.bucket(object_lock=True)
    store = s3_store(moto_server, bucket)
    finished = datetime.now(timezone.utc)
    receipt = Receipt(product="orders", environment="dev", region="us-east-1", stack="orders-dev", plan=dev_plan,
                      started_at=finished - timedelta(minutes=1), finished_at=finished, outcome="refused", exit_code=4)
    written = store_receipt(store, receipt, Redactor())
    assert written.location.startswith(f"s3://{bucket}/orders/runway/receipts/orders/dev/")
    assert json.loads(written.text)["outcome"] == "refused"
    assert not (tmp_path / ".runway").exists()

    s3 = moto_server.client()
    key = store.object_key(written.key)
    head = s3.head_object(Bucket=bucket, Key=key)
    assert head["ObjectLockMode"] == "GOVERNANCE"
    assert head["ObjectLockRetainUntilDate"] >= add_years(finished, 7) - timedelta(seconds=1)
    assert store.locked_until(written.key) == written.retain_until

    # A second write to the same key is refused by the store, and by S3 itself.
    with pytest.raises(RecordExists):
        store.create(written.key, b"{}")
    with pytest.raises(botocore.exceptions.ClientError) as info:
        s3.put_object(Bucket=bucket, Key=key, Body=b"{}", IfNoneMatch="*")
    assert info.value.response["Error"]["Code"] == "PreconditionFailed"
    # A locked version cannot be deleted (governance mode, no bypass).
    with pytest.raises(botocore.exceptions.ClientError) as info:
        s3.delete_object(Bucket=bucket, Key=key, VersionId=head["VersionId"])
    assert info.value.response["Error"]["Code"] == "AccessDenied"
    assert s3.get_object(Bucket=bucket, Key=key, VersionId=head["VersionId"])["Body"].read().decode() == written.text

    # The same start time again: a new name, never the old one.
    again = store_receipt(store, receipt, Redactor())
    assert again.key.endswith("-1.json")
    assert list_receipts(store, "orders", "dev", ["dev"]) == [written.key, again.key]
    assert list_receipts(store, "orders", None, ["dev", "staging"]) == [written.key, again.key]


def test_destroy_style_retention_extends_a_locked_receipt(moto_server):
    store = s3_store(moto_server, moto_server.bucket(object_lock=True))
    start = datetime.now(timezone.utc)
    key = store.key("receipts", "orders", "dev", "r.json")
    store.create(key, b"{}", retain_until=add_years(start, 7))
    ended = start + timedelta(days=400)
    assert store.retain(key, add_years(ended, 7)) == add_years(ended, 7)
    assert store.locked_until(key) >= add_years(ended, 7) - timedelta(seconds=1)
    # Never shortened by runway: asking for less keeps what is in force.
    assert store.retain(key, add_years(start, 1)) >= add_years(ended, 7) - timedelta(seconds=1)


def test_a_bucket_without_object_lock_takes_the_receipt_unlocked_and_says_so(moto_server, dev_plan):
    store = s3_store(moto_server, moto_server.bucket(versioning=True))
    receipt = Receipt(product="orders", environment="dev", region="us-east-1", stack="orders-dev", plan=dev_plan,
                      started_at=T0, outcome="refused", exit_code=2)
    written = store_receipt(store, receipt, Redactor())
    assert written.retain_until is None and "has no Object Lock" in (store.unlocked_reason or "")
    assert store.locked_until(written.key) is None
    with pytest.raises(RecordExists):
        store.create(written.key, b"{}")


def test_no_secret_is_written_to_any_record(moto_server, tmp_path):
    for store in (s3_store(moto_server, moto_server.bucket()), FileStore(tmp_path)):
        redactor = Redactor(["hunter2-very-secret"])
        w = write_json(store, store.key("drift", "orders", "dev", "a.json"), {"why": "pw hunter2-very-secret"}, redactor)
        assert "hunter2" not in store.read(w.key).data.decode() and "[redacted]" in w.text

        class Broken(Redactor):
            def scrub_doc(self, doc):
                return doc

        with pytest.raises(ValueError, match="still holds a secret"):
            write_json(store, store.key("drift", "orders", "dev", "b.json"), {"why": "hunter2-very-secret"}, Broken(["hunter2-very-secret"]))
        assert store.read(store.key("drift", "orders", "dev", "b.json")) is None


@pytest.mark.parametrize("kind", ["file", "s3"])
def test_conditional_replace_and_delete_compare_the_etag(kind, tmp_path, moto_server):
    store = FileStore(tmp_path) if kind == "file" else s3_store(moto_server, moto_server.bucket(versioning=True))
    key = store.lease_key("orders", "dev")
    first = store.create(key, b'{"n": 1}')
    with pytest.raises(RecordExists):
        store.create(key, b'{"n": 2}')
    second = store.replace(key, b'{"n": 2}', first)
    assert store.read(key).data == b'{"n": 2}' and store.read(key).etag == second
    with pytest.raises(RecordChanged):
        store.replace(key, b'{"n": 3}', first)  # stale ETag
    with pytest.raises(RecordChanged):
        store.delete(key, first)
    store.delete(key, second)
    assert store.read(key) is None
    with pytest.raises(RecordChanged):
        store.delete(key, second)  # gone
    store.create(key, b'{"n": 4}')  # free again (S3: the delete marker does not count)


def test_a_lease_in_s3_is_refused_taken_over_renewed_and_released(moto_server):
    store = s3_store(moto_server, moto_server.bucket(versioning=True))
    alice = acquire("/a", "orders", "dev", holder="alice", clock=lambda: T0, ttl=timedelta(minutes=10), store=store, host="runner-a")
    assert alice.path == f"s3://{store.bucket}/orders/runway/leases/orders-dev.json"
    with pytest.raises(LeaseHeld, match="alice"):
        acquire("/b", "orders", "dev", holder="bob", clock=lambda: T0 + timedelta(minutes=5), store=store, host="runner-b")
    alice = renew(alice, clock=lambda: T0 + timedelta(minutes=9), ttl=timedelta(minutes=10))
    with pytest.raises(LeaseHeld, match="alice"):  # renewed: not expired at 09:15
        acquire("/b", "orders", "dev", holder="bob", clock=lambda: T0 + timedelta(minutes=15), store=store, host="runner-b")
    bob = acquire("/b", "orders", "dev", holder="bob", clock=lambda: T0 + timedelta(minutes=20), store=store, host="runner-b")
    assert bob.takeover["reason"] == "expired" and bob.takeover["previous_holder"] == "alice"
    assert release(alice) is False  # the late original holder never removes bob's lease
    with pytest.raises(LeaseHeld):
        renew(alice, clock=lambda: T0 + timedelta(minutes=21))
    assert current_lease(store, "orders", "dev").token == bob.token
    assert release(bob) is True and current_lease(store, "orders", "dev") is None
    events = [k.rsplit("/", 1)[-1].split("-")[1] for k in store.list(store.key("lease-history", "orders", "dev"))]
    assert events == ["taken", "renewed", "taken", "released"]  # taken-over is "taken-over-<token>"
    history = [store.read(k).json() for k in store.list(store.key("lease-history", "orders", "dev"))]
    assert [h["event"] for h in history] == ["taken", "renewed", "taken-over", "released"]


def test_the_file_store_prunes_lease_history_after_90_days(tmp_path):
    lease = acquire(tmp_path, "orders", "dev", holder="alice", clock=lambda: T0)
    release(lease, clock=lambda: T0)
    folder = tmp_path / ".runway" / "lease-history" / "dev"
    assert len(list(folder.glob("*.json"))) == 2
    later = T0 + timedelta(days=91)
    release(acquire(tmp_path, "orders", "dev", holder="bob", clock=lambda: later), clock=lambda: later)
    names = sorted(p.name for p in folder.glob("*.json"))
    assert len(names) == 2 and all(n.startswith("20270301") for n in names)


RACER = textwrap.dedent(
    """
    import json, os, sys
    from datetime import datetime
    sys.path.insert(0, {repo!r})
    from deploy_engine.leases import LeaseHeld, acquire
    from deploy_engine.records import open_store
    url, now = sys.argv[1], datetime.fromisoformat(sys.argv[2])
    store = open_store(url, os.getcwd(), os.environ)   # each racer in its own working folder
    sys.stdin.readline()  # the start signal: every racer is running by now
    try:
        lease = acquire(os.getcwd(), "orders", "dev", holder=sys.argv[3], clock=lambda: now, store=store)
    except LeaseHeld as exc:
        print(json.dumps({{"won": False, "why": str(exc)}}), flush=True)
        code = {held}
    else:
        print(json.dumps({{"won": True, "token": lease.token}}), flush=True)
        code = 0
    sys.stdin.readline()  # alive until every racer has answered (a dead holder's lease is taken over at once)
    sys.exit(code)
    """
).format(repo=str(REPO), held=EXIT_LEASE_HELD)


def race(tmp_path: Path, url: str, env: dict[str, str], n: int = 10) -> list[tuple[int, dict]]:
    folders = [tmp_path / f"checkout-{i}" for i in range(n)]
    procs = []
    for i, folder in enumerate(folders):
        folder.mkdir()
        procs.append(subprocess.Popen([sys.executable, "-c", RACER, url, T0.isoformat(), f"job-{i}"], cwd=folder,
                                      env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    answers = [json.loads(p.stdout.readline()) for p in procs]
    results = []
    for p, answer in zip(procs, answers):
        _, err = p.communicate("exit\n", timeout=300)
        assert p.returncode in (0, EXIT_LEASE_HELD), err
        results.append((p.returncode, answer))
    return results


def test_ten_processes_in_ten_folders_race_for_one_lease_in_s3_and_exactly_one_holds_it(tmp_path, moto_server):
    import os

    bucket = moto_server.bucket(object_lock=True)
    results = race(tmp_path, f"s3://{bucket}/orders", {**os.environ, **moto_server.env()})
    assert sorted(code for code, _ in results) == [0] + [EXIT_LEASE_HELD] * 9
    winner = next(a for code, a in results if code == 0)
    assert all("being deployed by job-" in a["why"] for code, a in results if code != 0)
    store = s3_store(moto_server, bucket)
    assert current_lease(store, "orders", "dev").token == winner["token"]
    # No racer left anything in its own folder: the lease lives in the bucket only.
    assert not list(tmp_path.glob("checkout-*/.runway/leases/*"))


def test_ten_folders_with_the_file_store_do_not_share_a_lease(tmp_path):
    """Why the S3 store exists: a lease in each checkout's `.runway/` protects nothing across them."""
    import os

    results = race(tmp_path, "", dict(os.environ))
    assert [code for code, _ in results] == [0] * 10
