"""The deploy records through ``runway-deploy`` with an ``s3://`` backend on a real moto_server:
receipts in the bucket (none under ``.runway/``), locked 7 years, listed and exported; the
reviewed plan stored by ``preview`` and compared by ``up --plan-digest``; drift reports;
``destroy`` and the start of the 7-year retention; ``state check``; and ten ``runway-deploy up``
processes from ten checkouts racing for one environment's lease.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from deploy_engine import automation, engine_events
from deploy_engine.engine_events import DestroySummary, DriftReport, PreviewSummary
from deploy_engine.leases import current_lease
from deploy_engine.receipts import list_receipts
from deploy_engine.records import open_store
from deploy_engine.records.kinds import add_years
from deploy_engine.records.store import RecordExists
from deploy_engine.state_check import lifecycle_document
from test_deploy_cli import INFISICAL_OK, NETWORK, REPO, deploy, found_pulumi, orders, receipts, stack  # noqa: F401

PASS = {"PULUMI_CONFIG_PASSPHRASE": "team-passphrase-123"}


def s3(moto_server, bucket: str):
    return open_store(f"s3://{bucket}/orders", "/nonexistent", moto_server.env())


def stored_receipts(moto_server, bucket: str, env: str = "dev") -> list[tuple[str, dict]]:
    store = s3(moto_server, bucket)
    return [(k, store.read(k).json()) for k in list_receipts(store, "orders", env, [env])]


def test_a_refused_up_writes_its_receipt_to_the_bucket_locked_seven_years_and_receipts_lists_it(capsys, tmp_path, moto_server, account_checks_pass):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    environ = {**moto_server.env(), "PULUMI_BACKEND_URL": f"s3://{bucket}/orders"}
    before = datetime.now(timezone.utc)
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--format", "json", environ=environ, clock=lambda: datetime.now(timezone.utc))
    assert rc == 4, err  # not the protected job: refused
    doc = json.loads(out)
    assert doc["outcome"] == "refused" and doc["receipt"].startswith(f"s3://{bucket}/orders/runway/receipts/orders/dev/")
    assert not (root / ".runway").exists()  # nothing under .runway/: no receipt, no lease, no state
    ((key, r),) = stored_receipts(moto_server, bucket)
    assert r["exit_code"] == 4 and r["command"] == "up"
    store = s3(moto_server, bucket)
    assert store.locked_until(key) >= add_years(before, 7)
    head = moto_server.client().head_object(Bucket=bucket, Key=store.object_key(key))
    assert head["ObjectLockMode"] == "GOVERNANCE"
    with pytest.raises(RecordExists):  # a second write to the same key is refused by the store
        store.create(key, b"{}")

    rc, out, err = deploy(capsys, "receipts", str(root), "--format", "json", environ=environ)
    assert rc == 0, err
    listed = json.loads(out)
    assert listed["product"] == "orders" and listed["store"] == "s3"
    (row,) = listed["receipts"]
    assert row["key"] == key and row["receipt"]["outcome"] == "refused" and row["receipt"]["exit_code"] == 4
    assert datetime.fromisoformat(row["locked_until"].replace("Z", "+00:00")) >= add_years(before, 7)
    rc, out, _ = deploy(capsys, "receipts", str(root), "--env", "dev", environ=environ)
    assert rc == 0 and "refused" in out and "1 receipt(s) of orders" in out and "locked until 20" in out
    rc, out, _ = deploy(capsys, "receipts", str(root), "--env", "staging", "--format", "json", environ=environ)
    assert rc == 0 and json.loads(out)["receipts"] == []


def test_receipts_export_mirrors_the_store_and_never_overwrites(capsys, tmp_path, moto_server):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    environ = {**moto_server.env(), "PULUMI_BACKEND_URL": f"s3://{bucket}/orders"}
    for minute in (1, 2):
        deploy(capsys, "up", str(root), "--env", "dev", environ=environ, clock=lambda m=minute: datetime(2026, 11, 30, 9, m, tzinfo=timezone.utc))
    mirror = tmp_path / "mirror"
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(mirror), environ=environ)
    assert rc == 0, err
    assert "2 new, 0 already there, 0 conflicting" in err
    files = sorted(p.relative_to(mirror).as_posix() for p in mirror.rglob("*.json"))
    assert files == [k for k, _ in stored_receipts(moto_server, bucket)]
    store = s3(moto_server, bucket)
    for f in files:
        assert (mirror / f).read_bytes() == store.read(f).data  # byte for byte
    sums = (mirror / "SHA256SUMS").read_text().splitlines()
    assert sums == [f"{hashlib.sha256((mirror / f).read_bytes()).hexdigest()}  {f}" for f in files]
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(mirror), environ=environ)
    assert rc == 0 and "0 new, 2 already there" in err
    (mirror / files[0]).write_text("{}")
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(mirror), environ=environ)
    assert rc == 3 and "exists with other content; not overwritten" in err
    assert (mirror / files[0]).read_text() == "{}"
    rc, _, err = deploy(capsys, "receipts", "export", str(root), environ=environ)
    assert rc == 64 and "--to DIR is required" in err


def test_sha256sums_vouches_for_the_store_never_for_an_altered_or_planted_file(capsys, tmp_path, moto_server):
    # Sixth adversary F4: after a receipt was altered in the mirror, the next export reported
    # the conflict (exit 3) and then wrote SHA256SUMS from the mirror's own files, so
    # `sha256sum -c SHA256SUMS` (docs/deploy.md: "the mirror is intact") passed; a planted
    # receipt was vouched for too. sha256sum is coreutils' own, run on the mirror.
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    environ = {**moto_server.env(), "PULUMI_BACKEND_URL": f"s3://{bucket}/orders"}
    for env, minute in (("dev", 1), ("dev", 2), ("staging", 3)):
        deploy(capsys, "up", str(root), "--env", env, environ=environ, clock=lambda m=minute: datetime(2026, 11, 30, 9, m, tzinfo=timezone.utc))
    mirror = tmp_path / "mirror"
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(mirror), environ=environ)
    assert rc == 0 and "3 new" in err, err

    def check() -> subprocess.CompletedProcess:
        return subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=mirror, capture_output=True, text=True, timeout=60)

    assert check().returncode == 0
    dev = sorted((mirror / "receipts/orders/dev").glob("*.json"))
    dev[0].write_text("{}")
    planted = mirror / "receipts/orders/dev/20991231T000000.000000Z.json"
    planted.write_text("{}")
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(mirror), "--env", "dev", environ=environ)
    assert rc == 3 and "exists with other content; not overwritten" in err, err
    assert f"{planted} is neither a record of the store nor listed in the SHA256SUMS there before" in err, err
    got = check()
    assert got.returncode == 1 and f"{dev[0].relative_to(mirror)}: FAILED" in got.stdout, got.stdout
    sums = (mirror / "SHA256SUMS").read_text()
    store = s3(moto_server, bucket)
    key = dev[0].relative_to(mirror).as_posix()
    assert f"{hashlib.sha256(store.read(key).data).hexdigest()}  {key}\n" in sums  # the store's hash, not the file's
    assert planted.name not in sums
    # The staging receipt this `--env dev` run did not read keeps its line from before.
    assert sum("/staging/" in line for line in sums.splitlines()) == 1
    # Restored from the store, the mirror checks again.
    dev[0].write_bytes(store.read(key).data)
    planted.unlink()
    rc, _, err = deploy(capsys, "receipts", "export", str(root), "--to", str(mirror), environ=environ)
    assert rc == 0 and check().returncode == 0, err


def test_the_file_store_keeps_receipts_under_dot_runway_and_lists_them(capsys, tmp_path):
    root = orders(tmp_path)
    rc, _, _ = deploy(capsys, "up", str(root), "--env", "dev", environ={})
    assert rc == 4
    (r,) = receipts(root)
    rc, out, _ = deploy(capsys, "receipts", str(root), "--format", "json", environ={})
    (row,) = json.loads(out)["receipts"]
    assert rc == 0 and json.loads(out)["store"] == "file" and row["receipt"] == r and row["locked_until"] is None


def test_preview_stores_the_reviewed_plan_and_up_says_what_changed(capsys, tmp_path, monkeypatch, moto_server, stack, account_checks_pass):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    environ = {**moto_server.env(), **NETWORK, **PASS, "PULUMI_BACKEND_URL": f"s3://{bucket}/orders"}
    monkeypatch.setattr(automation, "preview", lambda target, on_output: PreviewSummary({}, ()))
    rc, out, err = deploy(capsys, "preview", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
    assert rc == 0, err
    doc = json.loads(out)
    reviewed = doc["plan_digest"]
    assert doc["plan_record"] == f"s3://{bucket}/orders/runway/plans/orders/dev/{reviewed}.json"
    stored = s3(moto_server, bucket).read(f"plans/orders/dev/{reviewed}.json").json()
    assert stored["plan_digest"] == reviewed and stored["plan"]["environment"]["name"] == "dev"
    # Plain env values are kept as hashes only (a pasted secret never spreads into a record).
    envs = [i["capacity"]["env"] for i in stored["plan"]["environment"]["items"] if "env" in (i.get("capacity") or {})]
    assert envs and all(v.startswith("sha256:") for env in envs for v in env.values())
    assert any(env.get("MB_DB_TYPE") == "sha256:" + hashlib.sha256(b"postgres").hexdigest() for env in envs)
    # A second preview of the same plan: stored once, no error.
    assert deploy(capsys, "preview", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 0

    # The runway changes after the review: the queue grows, a cache size changes.
    text = (root / "runway.yaml").read_text(encoding="utf-8")
    assert "monthly: 150" not in text
    (root / "runway.yaml").write_text(text.replace("  dev:                      # default cap: $150/month\n",
                                                   "  dev:\n    limits:\n      monthly: 149\n")
                                      .replace("      MB_DB_TYPE: postgres\n", "      MB_DB_TYPE: postgresql\n"), encoding="utf-8")
    rc, out, err = deploy(capsys, "up", str(root), "--env", "dev", "--plan-digest", reviewed, "--format", "json",
                          environ={**environ, "RUNWAY_DEPLOY_JOB": "protected", **INFISICAL_OK}, which=found_pulumi)
    assert rc == 8, err
    assert "Changed since the reviewed plan: cap: $150.00 -> $149.00 per month" in err
    assert "env MB_DB_TYPE changed" in err and "postgresql" not in err
    ((_, r),) = stored_receipts(moto_server, bucket)
    assert r["outcome"] == "refused" and r["reviewed_plan_digest"] == reviewed and "cap: $150.00 -> $149.00" in r["reason"]
    # A digest nobody previewed: said so.
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", "--plan-digest", "0" * 64, environ=environ, which=found_pulumi)
    assert rc == 8 and f"No plan with digest {'0' * 64} is stored for dev" in err


def test_drift_stores_its_report_in_the_bucket(capsys, tmp_path, monkeypatch, moto_server, account_checks_pass):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    environ = {**moto_server.env(), **NETWORK, **PASS, "PULUMI_BACKEND_URL": f"s3://{bucket}/orders"}
    item = engine_events.DriftItem(urn="urn:pulumi:orders-dev::runway-orders::aws:sqs/queue:Queue::q", type="aws:sqs/queue:Queue",
                                change="updated", properties=("visibilityTimeoutSeconds",))
    monkeypatch.setattr(automation, "drift", lambda target, on_output: DriftReport((item,), 12))
    rc, out, err = deploy(capsys, "drift", str(root), "--env", "dev", "--format", "json", environ=environ, which=found_pulumi)
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["report"].startswith(f"s3://{bucket}/orders/runway/drift/orders/dev/")
    store = s3(moto_server, bucket)
    (key,) = store.list("drift/orders/dev/")
    kept = store.read(key).json()
    assert kept["drifted"][0]["properties"] == ["visibilityTimeoutSeconds"] and kept["checked"] == 12
    assert "team-passphrase-123" not in store.read(key).data.decode()
    assert not (root / ".runway" / "drift").exists()


def test_destroy_is_guarded_like_up_and_refuses_while_protected_resources_remain(capsys, tmp_path, monkeypatch, moto_server, account_checks_pass):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    environ = {**moto_server.env(), **NETWORK, **PASS, "PULUMI_BACKEND_URL": f"s3://{bucket}/orders"}
    rc, _, err = deploy(capsys, "destroy", str(root), "--env", "dev", environ=environ, which=found_pulumi)
    assert rc == 4 and "`destroy` runs only in a protected deploy job" in err
    rc, _, err = deploy(capsys, "destroy", str(root), "--env", "dev", environ={**environ, "RUNWAY_DEPLOY_JOB": "protected"},
                        which=lambda name, path=None: None)
    assert rc == 5 and "get.pulumi.com" in err
    calls: list[bool] = []
    protected = ("urn:pulumi:orders-dev::runway-orders::aws:rds/instance:Instance::dev-main-db",)
    monkeypatch.setattr(automation, "protected_resources", lambda target: protected)
    monkeypatch.setattr(automation, "destroy", lambda target, on_output, unprotect=False: calls.append(unprotect) or DestroySummary({"delete": 9}, protected))
    job = {**environ, "RUNWAY_DEPLOY_JOB": "protected"}
    rc, _, err = deploy(capsys, "destroy", str(root), "--env", "dev", environ=job, which=found_pulumi)
    assert rc == 9 and "1 protected resource(s) remain" in err and protected[0] in err and calls == []
    outcomes = [(r["command"], r["outcome"], r["exit_code"]) for _, r in stored_receipts(moto_server, bucket)]
    assert outcomes == [("destroy", "refused", 4), ("destroy", "failed", 5), ("destroy", "refused", 9)]
    assert current_lease(s3(moto_server, bucket), "orders", "dev") is None  # released


def test_destroy_ends_the_environment_and_locks_its_receipts_until_end_plus_seven_years(capsys, tmp_path, monkeypatch, moto_server, account_checks_pass):
    root = orders(tmp_path)
    bucket = moto_server.bucket(object_lock=True)
    environ = {**moto_server.env(), **NETWORK, **PASS, "PULUMI_BACKEND_URL": f"s3://{bucket}/orders"}
    first = datetime.now(timezone.utc)
    deploy(capsys, "up", str(root), "--env", "dev", environ=environ, clock=lambda: first)  # a refused up: one receipt
    store = s3(moto_server, bucket)
    ((old_key, _),) = stored_receipts(moto_server, bucket)
    assert store.locked_until(old_key) < add_years(first + timedelta(days=30), 7)
    monkeypatch.setattr(automation, "protected_resources", lambda target: ("urn:a",))
    calls: list[bool] = []
    monkeypatch.setattr(automation, "destroy", lambda target, on_output, unprotect=False: calls.append(unprotect) or DestroySummary({"delete": 3}, ("urn:a",)))
    ended = first + timedelta(days=30)  # the environment ends a month later
    rc, out, err = deploy(capsys, "destroy", str(root), "--env", "dev", "--include-protected", "--format", "json",
                          environ={**environ, "RUNWAY_DEPLOY_JOB": "protected"}, which=found_pulumi, clock=lambda: ended)
    assert rc == 0, err
    assert calls == [True]  # unprotected first, only because it was asked
    doc = json.loads(out)
    assert doc["command"] == "destroy" and doc["outcome"] == "succeeded" and doc["protected"] == ["urn:a"]
    until = add_years(ended, 7)
    assert datetime.fromisoformat(doc["retain_until"].replace("Z", "+00:00")) >= until - timedelta(seconds=1)
    # The earlier receipt now stays locked until the end + 7 years, and so does the destroy's own.
    assert store.locked_until(old_key) >= until - timedelta(seconds=1)
    new_key = [k for k, _ in stored_receipts(moto_server, bucket) if k != old_key][0]
    assert store.locked_until(new_key) >= until - timedelta(seconds=1)
    (end_key,) = store.list("ends/orders/dev/")
    assert store.read(end_key).json()["receipts"] == 1 and store.locked_until(end_key) >= until - timedelta(seconds=1)
    assert "dev ended" in err and "(1 locked)" in err


def test_an_environment_over_its_cap_can_still_be_destroyed(capsys, tmp_path, monkeypatch, account_checks_pass):
    root = orders(tmp_path, dev_cap=10)
    environ = {**NETWORK, **PASS, "RUNWAY_DEPLOY_JOB": "protected"}
    monkeypatch.setattr(automation, "protected_resources", lambda target: ())
    monkeypatch.setattr(automation, "destroy", lambda target, on_output, unprotect=False: DestroySummary({"delete": 1}, ()))
    assert deploy(capsys, "up", str(root), "--env", "dev", environ=environ, which=found_pulumi)[0] == 2
    later = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
    rc, _, err = deploy(capsys, "destroy", str(root), "--env", "dev", environ=environ, which=found_pulumi, clock=lambda: later)
    assert rc == 0, err
    assert [r["command"] for r in receipts(root)] == ["up", "destroy"]
    assert (root / ".runway" / "ends" / "dev").is_dir()


def fully_configured(moto_server, *, object_lock: bool = True) -> str:
    bucket = moto_server.bucket(object_lock=object_lock, versioning=True)
    c = moto_server.client()
    c.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration={"Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"}}]})
    c.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={k: True for k in ("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets")})
    c.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration=lifecycle_document("orders/runway/"))
    return bucket


def test_state_check_passes_on_a_bucket_set_up_as_the_docs_say(capsys, moto_server):
    bucket = fully_configured(moto_server)
    rc, out, err = deploy(capsys, "state", "check", "--backend", f"s3://{bucket}/orders", "--format", "json", environ=moto_server.env())
    assert rc == 0, out + err
    doc = json.loads(out)
    assert doc["ok"] is True and [c["name"] for c in doc["checks"]] == ["versioning", "object lock", "default encryption", "public access block", "lifecycle rules"]
    assert doc["records"] == f"s3://{bucket}/orders/runway/"


def test_state_check_on_a_bucket_without_object_lock_exits_3_naming_it(capsys, moto_server):
    bucket = fully_configured(moto_server, object_lock=False)
    rc, out, _ = deploy(capsys, "state", "check", "--backend", f"s3://{bucket}/orders", environ=moto_server.env())
    assert rc == 3
    assert "MISSING  object lock: Object Lock is not enabled" in out
    assert f"aws s3api put-object-lock-configuration --bucket {bucket} --object-lock-configuration ObjectLockEnabled=Enabled" in out
    assert 'aws.s3.BucketObjectLockConfiguration("state", bucket=state.id, object_lock_enabled="Enabled")' in out
    assert "ok       versioning" in out and "missing: object lock" in out


def test_state_check_names_every_missing_setting_of_a_bare_bucket(capsys, moto_server):
    bucket = moto_server.bucket()
    rc, out, _ = deploy(capsys, "state", "check", "--backend", f"s3://{bucket}/orders", "--format", "json", environ=moto_server.env())
    assert rc == 3
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert [n for n, c in checks.items() if not c["ok"]] == ["versioning", "object lock", "default encryption", "public access block", "lifecycle rules"]
    assert checks["lifecycle rules"]["detail"] == "no enabled rule for orders/runway/drift/; no enabled rule for orders/runway/lease-history/; no enabled rule for orders/runway/leases/"
    assert "put-bucket-lifecycle-configuration" in " ".join(checks["lifecycle rules"]["fix"]["aws_cli"])


def test_state_check_flags_a_rule_that_would_expire_receipts_and_wrong_retention(capsys, moto_server):
    bucket = fully_configured(moto_server)
    rules = lifecycle_document("orders/runway/")["Rules"]
    rules[0]["Expiration"] = {"Days": 30}
    rules.append({"ID": "everything-30-days", "Filter": {"Prefix": "orders/"}, "Status": "Enabled", "Expiration": {"Days": 30}})
    moto_server.client().put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    rc, out, _ = deploy(capsys, "state", "check", "--backend", f"s3://{bucket}/orders", environ=moto_server.env())
    assert rc == 3
    assert "orders/runway/drift/ expires after 30 days, not 396" in out
    assert "rule everything-30-days on orders/ would expire receipts under orders/runway/receipts/" in out


def test_state_check_needs_an_s3_backend_and_a_bucket_that_exists(capsys, moto_server):
    rc, _, err = deploy(capsys, "state", "check", environ={})
    assert rc == 3 and "is no s3:// bucket" in err
    rc, out, _ = deploy(capsys, "state", "check", "--backend", "s3://runway-no-such-bucket-here/x", environ=moto_server.env())
    assert rc == 3 and "does not exist" in out and "--object-lock-enabled-for-bucket" in out


UP_RACER = """
import sys
sys.path.insert(0, {repo!r})
from deploy_engine import automation, cli, engine_events, stack_outputs
from deploy_engine.secrets import KnownDatabase

def holding_up(target, on_output):
    print("RUNNING", flush=True)   # the lease is ours: hold it until every racer has answered
    sys.stdin.readline()
    return engine_events.UpSummary({{"same": 5}}, ())

# The stack holds the database already: nothing to generate, no Infisical write.
automation.stored_state = lambda target: stack_outputs.StoredState({{"main-db": KnownDatabase("rds", True, ("main-db.proxy", 5432))}})
automation.up = holding_up
# The network pre-flight runs for real against moto_server (the VPC the test made); the SSM
# wait is tested against moto in test_preflight.py and is not what this race is about.
from deploy_engine import preflight
preflight.wait_for_parameters = lambda *a, **k: preflight.ParameterWait()
sys.stdin.readline()  # the start signal: every racer has imported everything by now
rc = cli.main(sys.argv[1:], which=lambda name, path=None: "/opt/pulumi/bin/pulumi")
print("EXIT", rc, flush=True)
sys.exit(rc)
"""


from test_preflight import healthy  # noqa: E402  (same tier folder)


def test_ten_runway_deploy_up_from_ten_checkouts_one_holds_the_lease_nine_exit_6(tmp_path, moto_server):
    bucket = moto_server.bucket(object_lock=True)
    _, net = healthy(moto_server.client("ec2"))  # a real VPC in moto: two zones, NAT, internet gateway
    network = {"RUNWAY_VPC_ID": net.vpc_id, "RUNWAY_PRIVATE_SUBNET_IDS": ",".join(net.private_subnet_ids),
               "RUNWAY_PUBLIC_SUBNET_IDS": ",".join(net.public_subnet_ids)}
    env = {**os.environ, **moto_server.env(), **network, **PASS, **INFISICAL_OK, "RUNWAY_DEPLOY_JOB": "protected",
           "PULUMI_BACKEND_URL": f"s3://{bucket}/orders"}
    code = UP_RACER.format(repo=str(REPO))
    procs = []
    for i in range(10):
        checkout = orders(tmp_path / f"runner-{i}")  # a separate working folder per racer
        procs.append(subprocess.Popen([sys.executable, "-c", code, "up", str(checkout), "--env", "dev"], env={**env, "GITHUB_ACTOR": f"job-{i}"},
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    try:
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        first = [p.stdout.readline().strip() for p in procs]  # RUNNING (the holder) or EXIT 6
        assert sorted(first) == ["EXIT 6"] * 9 + ["RUNNING"], first
        holder = procs[first.index("RUNNING")]
        lease = current_lease(s3(moto_server, bucket), "orders", "dev")
        assert lease is not None and lease.pid == holder.pid
        outputs = [p.communicate("done\n", timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    codes = [p.returncode for p in procs]
    assert sorted(codes) == [0] + [6] * 9, [e[-500:] for _, e in outputs]
    for (_, err), code_ in zip(outputs, codes):
        if code_ == 6:
            assert "refused: environment dev is being deployed by job-" in err
    rs = [r for _, r in stored_receipts(moto_server, bucket)]
    assert sorted((r["outcome"], r["exit_code"]) for r in rs) == [("refused", 6)] * 9 + [("succeeded", 0)]
    assert all(r["lease"]["status"] == "held-by-another" for r in rs if r["exit_code"] == 6)
    assert current_lease(s3(moto_server, bucket), "orders", "dev") is None  # released by the holder
    assert not list(tmp_path.glob("runner-*/orders/.runway"))  # every record is in the bucket


def test_receipts_from_a_bucket_that_does_not_exist_exit_3_naming_it(capsys, tmp_path, moto_server):
    root = orders(tmp_path)
    rc, out, err = deploy(capsys, "receipts", str(root), "--backend", "s3://runway-no-such-bucket-x/orders", "--format", "json",
                          environ=moto_server.env())
    assert rc == 3 and "NoSuchBucket" in err and "s3://runway-no-such-bucket-x/orders/runway/receipts/" in err
    assert json.loads(out)["error"]["exit_code"] == 3


def test_a_refused_up_whose_bucket_is_missing_keeps_its_receipt_under_dot_runway(capsys, tmp_path, moto_server, account_checks_pass):
    root = orders(tmp_path)
    rc, _, err = deploy(capsys, "up", str(root), "--env", "dev", "--backend", "s3://runway-no-such-bucket-y/orders", environ=moto_server.env())
    assert rc == 4
    assert "warning: the receipt could not be stored" in err and "NoSuchBucket" in err
    (r,) = receipts(root)
    assert r["outcome"] == "refused" and r["backend"] == "s3://runway-no-such-bucket-y/orders"


def test_state_check_warns_about_a_default_retention(capsys, moto_server):
    bucket = fully_configured(moto_server)
    moto_server.client().put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 30}}})
    rc, out, _ = deploy(capsys, "state", "check", "--backend", f"s3://{bucket}/orders", environ=moto_server.env())
    assert rc == 0, out  # a warning, not a failure
    assert "warning  object lock default retention" in out
