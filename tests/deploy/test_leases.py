"""The per-environment lease (deploy_engine/leases.py): atomic take, refusal, expiry takeover, release.

The races run real, separate Python processes (subprocess): each child blocks on its stdin
until every child has started, then all race for the same lease at once, and stays alive until
every child has answered (a holder that exited would be a dead holder, whose lease is taken
over at once: tested on its own below). No sleeps.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from deploy_engine.leases import LeaseError, LeaseHeld, acquire, held, lease_path, read_lease, release

REPO = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


def clock_at(t: datetime):
    return lambda: t


CHILD = textwrap.dedent(
    """
    import json, sys
    from datetime import datetime
    sys.path.insert(0, {repo!r})
    from deploy_engine.leases import LeaseHeld, acquire
    root, now = sys.argv[1], datetime.fromisoformat(sys.argv[2])
    sys.stdin.readline()  # the start signal: every child is running by now
    try:
        lease = acquire(root, "orders", "dev", holder=sys.argv[3], clock=lambda: now)
    except LeaseHeld as exc:
        print(json.dumps({{"won": False, "why": str(exc)}}), flush=True)
    else:
        print(json.dumps({{"won": True, "token": lease.token, "takeover": lease.takeover}}), flush=True)
    sys.stdin.readline()  # alive until every child has answered
    """
).format(repo=str(REPO))


def race(root: Path, now: datetime, n: int) -> list[dict]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(root), now.isoformat(), f"job-{i}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for i in range(n)
    ]
    for p in procs:  # release them all at once
        p.stdin.write("go\n")
        p.stdin.flush()
    results = [json.loads(p.stdout.readline()) for p in procs]
    for p in procs:
        _, err = p.communicate("exit\n", timeout=120)
        assert p.returncode == 0, err
    return results


def test_free_lease_is_taken_and_holds_who_and_when(tmp_path):
    lease = acquire(tmp_path, "orders", "dev", holder="alice", clock=clock_at(T0), pid=42, host="runner-1")
    doc = json.loads(lease_path(tmp_path, "orders", "dev").read_text())
    assert doc["holder"] == "alice" and doc["pid"] == 42 and doc["host"] == "runner-1"
    assert doc["taken_at"] == "2026-11-30T09:00:00Z"
    assert doc["expires_at"] == "2026-11-30T10:00:00Z"  # default 1 h
    assert doc["token"] == lease.token and doc["takeover"] is None
    assert lease.path == tmp_path / ".runway" / "leases" / "orders-dev.json"


def test_second_deploy_is_refused_while_held(tmp_path):
    acquire(tmp_path, "orders", "dev", holder="alice", clock=clock_at(T0))
    with pytest.raises(LeaseHeld) as info:
        acquire(tmp_path, "orders", "dev", holder="bob", clock=clock_at(T0 + timedelta(minutes=59)))
    assert "alice" in str(info.value) and info.value.lease.holder == "alice"
    # Another environment has its own lease.
    acquire(tmp_path, "orders", "staging", holder="bob", clock=clock_at(T0))


def test_expired_lease_is_taken_over_and_the_takeover_recorded(tmp_path):
    old = acquire(tmp_path, "orders", "dev", holder="alice", clock=clock_at(T0), ttl=timedelta(minutes=10))
    new = acquire(tmp_path, "orders", "dev", holder="bob", clock=clock_at(T0 + timedelta(minutes=10)))
    assert new.takeover["previous_holder"] == "alice"
    assert new.takeover["previous_token"] == old.token
    assert new.takeover["taken_over_at"] == "2026-11-30T09:10:00Z"
    assert read_lease(new.path).token == new.token
    # The late original holder cannot remove the new lease.
    assert release(old) is False
    assert read_lease(new.path).token == new.token
    assert not list(new.path.parent.glob("*.takeover-*")) and not list(new.path.parent.glob(".tmp-*"))


def test_release_frees_the_lease(tmp_path):
    lease = acquire(tmp_path, "orders", "dev", holder="alice", clock=clock_at(T0))
    assert release(lease) is True
    assert not lease.path.exists()
    assert release(lease) is False  # twice is harmless
    acquire(tmp_path, "orders", "dev", holder="bob", clock=clock_at(T0))


def test_held_releases_on_exceptions(tmp_path):
    with pytest.raises(RuntimeError):
        with held(tmp_path, "orders", "dev", holder="alice", clock=clock_at(T0)) as lease:
            assert lease.path.exists()
            raise RuntimeError("deploy blew up")
    assert not lease_path(tmp_path, "orders", "dev").exists()


def test_malformed_lease_is_never_taken_blindly(tmp_path):
    path = lease_path(tmp_path, "orders", "dev")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(LeaseError, match="not a lease file"):
        acquire(tmp_path, "orders", "dev", holder="bob", clock=clock_at(T0))


def test_two_processes_race_for_a_free_lease_and_exactly_one_wins(tmp_path):
    results = race(tmp_path, T0, 2)
    assert sorted(r["won"] for r in results) == [False, True]
    winner = next(r for r in results if r["won"])
    assert read_lease(lease_path(tmp_path, "orders", "dev")).token == winner["token"]


def test_many_processes_race_for_a_free_lease_and_exactly_one_wins(tmp_path):
    results = race(tmp_path, T0, 8)
    assert sum(r["won"] for r in results) == 1
    assert all("being deployed by job-" in r["why"] for r in results if not r["won"])


def test_processes_race_to_take_over_an_expired_lease_and_exactly_one_wins(tmp_path):
    old = acquire(tmp_path, "orders", "dev", holder="crashed-job", clock=clock_at(T0))
    results = race(tmp_path, T0 + timedelta(hours=2), 8)
    winners = [r for r in results if r["won"]]
    assert len(winners) == 1
    assert winners[0]["takeover"]["previous_holder"] == "crashed-job"
    current = read_lease(old.path)
    assert current.token == winners[0]["token"] and current.takeover["previous_token"] == old.token
    assert not list(old.path.parent.glob("*.takeover-*"))


HOLD = textwrap.dedent(
    """
    import sys
    from datetime import datetime
    sys.path.insert(0, {repo!r})
    from deploy_engine.leases import acquire
    acquire(sys.argv[1], "orders", "dev", holder="killed-job", clock=lambda: datetime.fromisoformat(sys.argv[2]))
    print("HELD", flush=True)
    sys.stdin.readline()  # holds the lease until killed
    """
).format(repo=str(REPO))


def holding_process(root: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(root), T0.isoformat()], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "HELD"
    return proc


def test_the_lease_of_a_killed_process_on_this_host_is_taken_over_at_once(tmp_path):
    proc = holding_process(tmp_path)
    try:
        # Alive: refused, however long before the expiry.
        with pytest.raises(LeaseHeld, match="killed-job"):
            acquire(tmp_path, "orders", "dev", holder="bob", clock=clock_at(T0 + timedelta(minutes=1)))
    finally:
        proc.kill()  # SIGKILL: no cleanup, the lease stays behind
        proc.wait()
    lease = acquire(tmp_path, "orders", "dev", holder="bob", clock=clock_at(T0 + timedelta(minutes=2)))
    assert lease.takeover["previous_holder"] == "killed-job" and lease.takeover["previous_pid"] == proc.pid
    assert lease.takeover["reason"] == f"holder process gone (pid {proc.pid} on {lease.host})"
    assert read_lease(lease.path).token == lease.token


def test_a_dead_pid_of_another_host_waits_for_the_expiry(tmp_path):
    acquire(tmp_path, "orders", "dev", holder="elsewhere", clock=clock_at(T0), pid=999_999, host="another-runner")
    with pytest.raises(LeaseHeld, match="elsewhere"):
        acquire(tmp_path, "orders", "dev", holder="bob", clock=clock_at(T0 + timedelta(minutes=5)), alive=lambda pid: False)
    lease = acquire(tmp_path, "orders", "dev", holder="bob", clock=clock_at(T0 + timedelta(hours=1)))
    assert lease.takeover["reason"] == "expired"
