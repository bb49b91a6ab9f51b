"""``runway-deploy up`` keeps its lease alive (deploy_engine/leases.py ``LeaseKeeper``): renewed
in the background every third of its lifetime during a long phase, checked before each phase,
and a lease found taken over stops the run before its next phase with exit 6 (docs/deploy.md,
"Lease"). Against a real moto_server S3 bucket as the records store, with a short lease
(``RUNWAY_LEASE_SECONDS``) and the real clock; Pulumi's ``up`` is replaced by a function that
plays the long phase. No timed asserts: the long phase waits for an event (the renewal seen in
the bucket), bounded only so a broken renewer fails instead of hanging.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from deploy_engine import automation
from deploy_engine.leases import LeaseKeeper, LeaseLost, acquire, current_lease, utc_now
from deploy_engine.records import open_store
from test_deploy_cli import INFISICAL_OK, MAIN_DB, NETWORK, bucket_receipts, deploy, echoing_up, found_pulumi, infisical, orders, stack, writes  # noqa: F401

PASS = {"PULUMI_CONFIG_PASSPHRASE": "team-passphrase-123"}
#: How long the fake phase waits for the renewal before failing the test (a bound, not a measure).
PATIENCE = 120.0

pytestmark = pytest.mark.usefixtures("account_checks_pass")


def _env(moto_server, bucket: str, seconds: int) -> dict:
    return {**moto_server.env(), **NETWORK, **PASS, **INFISICAL_OK, "RUNWAY_DEPLOY_JOB": "protected",
            "PULUMI_BACKEND_URL": f"s3://{bucket}/orders", "RUNWAY_LEASE_SECONDS": str(seconds)}


def _store(moto_server, bucket: str):
    return open_store(f"s3://{bucket}/orders", "/nonexistent", moto_server.env())


def phase_then_takeover(stack, root, store):
    """An ``up`` that runs its phase, then, as if this runner had stalled past the expiry,
    lets another deploy (``other-job``) take the lease over in ``store``."""
    then = echoing_up(stack)

    def up(target, on_output):
        result = then(target, on_output)
        acquire(root, "orders", "dev", holder="other-job", clock=lambda: utc_now() + timedelta(hours=2), store=store)
        return result

    return up


def test_a_long_phase_renews_the_lease_in_the_bucket(capsys, tmp_path, monkeypatch, moto_server, stack):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    stack.outputs = {"resources": {"main-db": MAIN_DB}}
    store = _store(moto_server, bucket)
    seen: dict = {}
    then = echoing_up(stack)

    def long_phase(target, on_output):
        if target.exclude and "first" not in seen:
            first = current_lease(store, "orders", "dev")
            seen["first"] = first
            done = threading.Event()
            # Phase 1 "runs" until the lease in the bucket is renewed twice by this run (same
            # token, a new ETag and a later expiry each time): longer than the 3 s lease itself.
            while not done.wait(0.2):
                now = current_lease(store, "orders", "dev")
                if now is not None and now.token == first.token and now.expires_at > first.expires_at + timedelta(seconds=1):
                    seen["renewed"] = now
                    break
                if (utc_now() - first.taken_at).total_seconds() > PATIENCE:
                    break
        return then(target, on_output)

    monkeypatch.setattr(automation, "up", long_phase)
    rc, _out, err = deploy(capsys, "up", str(root), "--env", "dev", environ=_env(moto_server, bucket, 3), which=found_pulumi,
                           clock=utc_now)
    assert "renewed" in seen, "the lease was not renewed during the long phase"
    first, renewed = seen["first"], seen["renewed"]
    assert renewed.holder == first.holder and renewed.etag != first.etag
    # Held past the 3 s lifetime it was taken with: renewed, not taken anew.
    assert renewed.taken_at == first.taken_at and renewed.expires_at - renewed.taken_at > timedelta(seconds=4)
    assert rc == 0, err
    # The renewals are in the lease history; the lease is released at the end.
    history = [k for k in store.list("lease-history/") if "-renewed-" in k]
    assert history
    assert current_lease(store, "orders", "dev") is None
    (r,) = bucket_receipts(moto_server, bucket)
    assert r["outcome"] == "succeeded" and r["lease"]["status"] == "held"


def test_a_lease_taken_over_during_a_phase_stops_up_before_the_next_phase(capsys, tmp_path, monkeypatch, moto_server, stack):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    stack.outputs = {"resources": {"main-db": MAIN_DB}}
    store = _store(moto_server, bucket)
    monkeypatch.setattr(automation, "up", phase_then_takeover(stack, root, store))
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", environ=_env(moto_server, bucket, 600), which=found_pulumi,
                          clock=utc_now)
    assert rc == 6, err
    assert "stopped before phase 2 (writing values to Infisical)" in err
    assert "taken over or released by another process" in err and "now held by other-job" in err
    assert "Traceback" not in err
    assert stack.phases == ["data"]  # the services' update never ran
    # The other deploy's lease is untouched (ours no longer matches its ETag).
    assert current_lease(store, "orders", "dev").holder == "other-job"
    (r,) = bucket_receipts(moto_server, bucket)
    assert r["outcome"] == "failed" and r["exit_code"] == 6 and r["lease"]["status"] == "lost"


def test_a_takeover_after_phase_1_set_a_password_says_how_to_rotate_it(capsys, tmp_path, monkeypatch, moto_server, stack):
    """Phase 1 created the database with a new password; the lease is lost before phase 2
    would have written it to Infisical: nothing is written, and the message says to rotate."""
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    store = _store(moto_server, bucket)
    monkeypatch.setattr(automation, "up", phase_then_takeover(stack, root, store))
    with infisical(monkeypatch, **PASS, **moto_server.env(), PULUMI_BACKEND_URL=f"s3://{bucket}/orders") as (srv, environ):
        rc, _out, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi, clock=utc_now)
    assert rc == 6, err
    assert "stopped before phase 2" in err and "up --rotate-credentials" in err and "main-db" in err
    assert writes(srv) == []  # phase 2 never ran
    (r,) = bucket_receipts(moto_server, bucket)
    assert r["lease"]["status"] == "lost" and r["outcome"] == "failed"


def test_a_lease_lifetime_that_is_not_whole_seconds_is_refused(capsys, tmp_path, moto_server, stack):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    environ = {**_env(moto_server, bucket, 3), "RUNWAY_LEASE_SECONDS": "1h"}
    rc, _out, err = deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 3 and "RUNWAY_LEASE_SECONDS must be a whole number of seconds from 1 to 86400" in err
    assert current_lease(_store(moto_server, bucket), "orders", "dev") is None


def test_the_keeper_renews_on_check_and_reports_a_takeover(tmp_path):
    t = [utc_now()]
    lease = acquire(tmp_path, "orders", "dev", holder="me", clock=lambda: t[0], ttl=timedelta(minutes=10))
    keeper = LeaseKeeper(lease, lambda: t[0], timedelta(minutes=10))
    t[0] += timedelta(minutes=4)
    keeper.check()
    assert keeper.renewals == 1 and keeper.lease.expires_at == t[0] + timedelta(minutes=10)
    t[0] += timedelta(minutes=11)  # stalled past the expiry: another deploy takes over
    acquire(tmp_path, "orders", "dev", holder="other", clock=lambda: t[0])
    with pytest.raises(LeaseLost, match="now held by other"):
        keeper.check()
    with pytest.raises(LeaseLost):
        keeper.check()  # lost for good
