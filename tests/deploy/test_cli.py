"""Tests of the ``runway-deploy`` command line (deploy_engine/cli/, docs/cli.md).

Exit codes and output formats are part of the interface (docs/architecture.md, "Habits"): every code of the
table in docs/cli.md is exercised here. Most tests call ``main()`` in-process (capsys); two run
real subprocesses (the console script, and ``python -m deploy_engine`` proving pulumi stays
unimported). The dev/staging/production totals of examples/orders are recomputed here from
catalog/prices.csv rows and the docs/catalog.md capacities, without the planner.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from deploy_engine import cli
from deploy_engine.cli import main
from mdtables import flat

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
PRICES_CSV = REPO / "catalog" / "prices.csv"
SCRIPT = Path(sys.executable).parent / "runway-deploy"

# The one genuine error of the example: metabase's digest has 63 hex digits.
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
SEVERITIES = {"error", "warning", "information", "hint"}


def run(capsys, *argv: str, **kw) -> tuple[int, str, str]:
    rc = main(list(argv), **kw)
    out, err = capsys.readouterr()
    return rc, out, err


def run_json(capsys, *argv: str) -> tuple[int, dict, str]:
    rc, out, err = run(capsys, *argv)
    return rc, json.loads(out), err


def copy_orders(tmp_path: Path, *, fix_digest: bool = True, dev_cap: int | None = None) -> Path:
    dest = tmp_path / "orders"
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    text = root.read_text(encoding="utf-8")
    if fix_digest:
        assert SHORT_DIGEST in text
        text = text.replace(SHORT_DIGEST, SHORT_DIGEST + "0")
    if dev_cap is not None:
        text, n = re.subn(r"\n  dev:[^\n]*\n", f"\n  dev:\n    limits:\n      monthly: {dev_cap}\n", text, count=1)
        assert n == 1
    root.write_text(text, encoding="utf-8")
    return dest


def assert_diagnostic_shape(d: dict) -> None:
    assert set(d) == {"file", "range", "severity", "code", "message"}
    assert isinstance(d["file"], str) and "\\" not in d["file"] and not d["file"].startswith("/")
    for end in ("start", "end"):
        pos = d["range"][end]
        assert set(pos) == {"line", "character"}
        assert all(isinstance(v, int) and v >= 0 for v in pos.values())
    assert d["severity"] in SEVERITIES
    assert re.fullmatch(r"RW\d{3}", d["code"])
    assert isinstance(d["message"], str) and d["message"]


# --------------------------------------------------------------------------------------
# Independent recomputation (catalog/prices.csv + docs/catalog.md, no planner)
# --------------------------------------------------------------------------------------

HOURS = Decimal(730)
CENT = Decimal("0.01")


def us_east_1_prices() -> dict[str, Decimal]:
    out: dict[str, Decimal] = {}
    with PRICES_CSV.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["key"] and "us-east-1" in row["region"].split(";"):
                out[row["key"]] = Decimal(row["usd"])
    return out


class Bill:
    """Sums line items rounded half-up to cents, as docs/catalog.md's worked check does."""

    def __init__(self) -> None:
        self.prices = us_east_1_prices()
        self.total = Decimal("0.00")

    def add(self, key: str, quantity) -> None:
        self.total += (self.prices[key] * Decimal(str(quantity))).quantize(CENT, rounding=ROUND_HALF_UP)

    # docs/catalog.md capacities, typed in here on purpose.
    def postgres_rds(self, size: str) -> None:
        cls, multi_az, storage_gb, vcpus = {
            "small": ("db.t4g.micro", False, 20, 2),
            "medium": ("db.t4g.medium", True, 100, 2),
            "large": ("db.m7g.large", True, 250, 2),
        }[size]
        az = "multi-az" if multi_az else "single-az"
        self.add(f"rds:{cls}:{az}", HOURS)
        self.add(f"rds:gp3:{az}", storage_gb)
        self.add("rds-proxy:vcpu", max(vcpus, 2) * HOURS)  # minimum 2 vCPUs
        self.add("secretsmanager:secret", 1)  # the proxy's admin secret

    def topic(self, size: str) -> None:
        self.add("sns:standard", {"small": 1, "medium": 25, "large": 100}[size])

    def queue(self, size: str) -> None:
        self.add("sqs:standard", {"small": 1, "medium": 25, "large": 100}[size])

    def bucket(self, size: str) -> None:
        gb, put_k, get_k = {"small": (50, 100, 1000), "medium": (500, 1000, 10000), "large": (5000, 10000, 100000)}[size]
        self.add("s3:storage", gb)
        self.add("s3:tier1", put_k)  # priced per 1,000 requests
        self.add("s3:tier2", get_k)

    def cache(self, size: str) -> None:
        node, n = {"small": ("cache.t4g.micro", 1), "medium": ("cache.t4g.small", 2), "large": ("cache.m7g.large", 2)}[size]
        self.add(f"valkey:{node}", n * HOURS)

    def workload(self, size: str, tasks: int) -> None:
        vcpu, mem, logs_gb = {"small": (Decimal("0.25"), Decimal("0.5"), Decimal("1.5")), "medium": (1, 2, 6), "large": (4, 8, 24)}[size]
        self.add("fargate:arm:vcpu", vcpu * tasks * HOURS)
        self.add("fargate:arm:memory", mem * tasks * HOURS)
        # Its log group: assumed GB ingested per task-month, kept 30 days = one month stored.
        self.add("logs:ingestion", logs_gb * tasks)
        self.add("logs:storage", logs_gb * tasks * 30 / 30)

    def alb(self) -> None:
        self.add("alb:hour", HOURS)
        self.add("alb:lcu", 1 * HOURS)
        self.add("vpc:public-ipv4", 2 * HOURS)

    def service_discovery(self, internal_tasks: int) -> None:
        self.add("route53:private-zone", 1)
        self.add("cloudmap:instance", internal_tasks)


def expected_orders_total(env: str) -> Decimal:
    """examples/orders by hand: sizes from its runway.yaml, shared pools per environment."""
    b = Bill()
    sizes = {
        # main-db, invoices, shared queue, shared cache, (metabase size, tasks), (zitadel), (pdf-renderer)
        "dev": ("small", "small", "small", "small", ("small", 1), ("small", 1), ("medium", 1)),
        "staging": ("medium", "small", "small", "medium", ("small", 1), ("small", 1), ("medium", 1)),
        "production": ("large", "medium", "medium", "large", ("medium", 2), ("medium", 3), ("medium", 3)),
    }[env]
    db, invoices, queue, cache, metabase, zitadel, pdf = sizes
    b.postgres_rds(db)
    b.topic("small")  # order-events
    b.bucket(invoices)
    b.queue(queue)
    b.cache(cache)
    b.workload(*metabase)  # internal
    b.workload(*zitadel)  # public -> the ALB
    b.workload(*pdf)  # internal
    b.alb()
    b.service_discovery(metabase[1] + pdf[1])
    return b.total


def test_independent_dev_total_matches_the_brief():
    assert expected_orders_total("dev") == Decimal("126.88")


@pytest.mark.parametrize("env", ["dev", "staging", "production"])
def test_plan_json_totals_match_independent_recomputation(capsys, env):
    rc, doc, _ = run_json(capsys, "plan", str(ORDERS), "--format", "json", "--env", env)
    assert rc == cli.EXIT_INVALID  # the example's genuine RW140; plans are still printed
    (envdoc,) = doc["environments"]
    assert envdoc["name"] == env
    assert Decimal(str(envdoc["total_monthly_usd"])) == expected_orders_total(env)
    # Items add up to the total, to the cent.
    assert sum(Decimal(str(i["monthly_usd"])) for i in envdoc["items"]) == expected_orders_total(env)


# --------------------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------------------


def test_check_text_real_example_exit_1(capsys, monkeypatch):
    monkeypatch.chdir(REPO)  # file names are relative to the current folder (issue 14)
    rc, out, err = run(capsys, "check", str(ORDERS))
    assert rc == 1
    lines = out.splitlines()
    assert lines[0].startswith("examples/orders/runway.yaml:49:12: error RW140: image is not pinned by digest")
    assert lines[-1] == "1 error, 0 warnings, 0 hints in 3 files"
    assert err == ""


def test_check_json_shape(capsys, monkeypatch):
    monkeypatch.chdir(ORDERS)  # file names are relative to the current folder (issue 14)
    rc, doc, _ = run_json(capsys, "check", str(ORDERS), "--format", "json")
    assert rc == 1
    assert doc["format_version"] == 1
    assert doc["summary"] == {"errors": 1, "warnings": 0, "information": 0, "hints": 0, "files": 3}
    (d,) = doc["diagnostics"]
    assert_diagnostic_shape(d)
    assert d["file"] == "runway.yaml"
    assert d["range"]["start"] == {"line": 48, "character": 11}
    assert (d["severity"], d["code"]) == ("error", "RW140")


def test_check_valid_copy_exit_0(capsys, tmp_path):
    rc, out, _ = run(capsys, "check", str(copy_orders(tmp_path)))
    assert rc == 0
    assert out == "0 errors, 0 warnings, 0 hints in 3 files\n"


def test_check_counts_over_cap_as_an_error(capsys, tmp_path):
    rc, out, _ = run(capsys, "check", str(copy_orders(tmp_path, dev_cap=100)))
    assert rc == 1
    assert "error RW170: dev: estimate $126.88/month" in out


def test_utf16_columns_after_an_emoji_on_the_same_line(capsys, tmp_path):
    line = '  db: { kind: bucket, engine: { versioning: true }, label: "🚀🚀", sizee: small }  # 🚀 lift-off'
    (tmp_path / "runway.yaml").write_text(
        "# 🚀 comment line above, with an emoji too\nrunway: 1\nproduct: emoji\nenvironments:\n  dev: {}\nresources:\n" + line + "\n",
        encoding="utf-8",
    )
    cp = line.index("sizee")  # code points
    astral_before = sum(1 for c in line[:cp] if ord(c) > 0xFFFF)
    assert astral_before == 2
    rc, doc, _ = run_json(capsys, "check", str(tmp_path), "--format", "json")
    assert rc == 1
    (d,) = [d for d in doc["diagnostics"] if "sizee" in d["message"]]
    assert d["code"] == "RW102"
    assert d["range"]["start"] == {"line": 6, "character": cp + 2}
    assert d["range"]["end"] == {"line": 6, "character": cp + 2 + len("sizee")}
    # Text output is for humans: 1-based line and code-point column.
    rc, out, _ = run(capsys, "check", str(tmp_path))
    assert f"runway.yaml:7:{cp + 1}: error RW102: unknown key `sizee`" in out


def test_color_only_on_a_tty_without_no_color(capsys):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    for environ, coloured in (({}, True), ({"NO_COLOR": "1"}, False)):
        out = Tty()
        assert main(["check", str(ORDERS)], stdout=out, environ=environ) == 1
        assert ("\033[" in out.getvalue()) is coloured
    rc, out, _ = run(capsys, "check", str(ORDERS))  # capsys is not a TTY
    assert "\033[" not in out


# --------------------------------------------------------------------------------------
# plan
# --------------------------------------------------------------------------------------


def test_plan_text_ok_exit_0(capsys, tmp_path):
    rc, out, err = run(capsys, "plan", str(copy_orders(tmp_path)))
    assert rc == 0
    assert err == ""
    headings = [l for l in out.splitlines() if " — " in l]
    assert headings == [
        "dev — $126.88 / $150.00 cap (85%) — ok",
        "staging — $258.11 / $500.00 cap (52%) — ok",
        "production — $828.03 / $2,500.00 cap (33%) — ok",
    ]
    assert re.search(r"^  shared-cache\*\s+cache\s+small\s+\$9\.34$", out, re.M)
    assert re.search(r"^  total\s+\$126\.88$", out, re.M)
    # Footnotes once, not per environment.
    assert out.count("Free tiers are ignored") == 1
    assert out.count("not estimated") == 1


def test_plan_details_line_items(capsys, tmp_path):
    rc, out, _ = run(capsys, "plan", str(copy_orders(tmp_path)), "--env", "dev", "--details")
    assert rc == 0
    assert "db.t4g.micro Single-AZ, 730 h: 730 x $0.016 per instance-hour = $11.68 (price-list)" in out


def test_plan_details_show_each_line_items_price_source(capsys, tmp_path):
    """A cost auditor traces every figure: under each line item, the catalogue row's source
    (shortened) and its price key, as JSON's ``line_items[].source`` / ``price_key`` say."""
    from runway_core.catalog import load_catalog

    rc, out, _ = run(capsys, "plan", str(copy_orders(tmp_path)), "--env", "dev", "--details")
    assert rc == 0
    lines = out.splitlines()
    at = lines.index("      db.t4g.micro Single-AZ, 730 h: 730 x $0.016 per instance-hour = $11.68 (price-list)")
    assert lines[at + 1] == "        source: AWS Price List, AmazonRDS offer, us-east-1, 2026-09-24 [rds:db.t4g.micro:single-az]"
    row = load_catalog().price("rds:db.t4g.micro:single-az", "us-east-1")
    assert row.source.startswith("AWS Price List, AmazonRDS offer, us-east-1, 2026-09-24 (")
    # Every line item of the JSON plan has its source line in the text plan, in order.
    rc, doc, _ = run_json(capsys, "plan", str(copy_orders(tmp_path / "j")), "--env", "dev", "--format", "json")
    keys = [li["price_key"] for i in doc["environments"][0]["items"] for li in i["line_items"]]
    shown = [ln.rsplit("[", 1)[1].rstrip("]") for ln in lines if ln.startswith("        source: ")]
    assert shown == keys and len(keys) > 10
    long = [ln for ln in lines if ln.startswith("        source: ")]
    assert all(len(ln) <= len("        source: ") + 72 + 3 + max(map(len, keys)) for ln in long)
    # markdown --details has the same source column.
    rc, md, _ = run(capsys, "plan", str(copy_orders(tmp_path / "m")), "--env", "dev", "--details", "--format", "markdown")
    head = next(ln for ln in md.splitlines() if "| confidence" in ln)
    assert head.split("|")[-2].strip() == "source"
    assert "| AWS Price List, AmazonRDS offer, us-east-1, 2026-09-24 (`rds:db.t4g.micro:single-az`)" in md


def test_plan_json_shape(capsys):
    rc, doc, err = run_json(capsys, "plan", str(ORDERS), "--format", "json")
    assert rc == 1
    assert "error RW140" in err  # diagnostics also on stderr
    assert doc["format_version"] == 1
    assert (doc["product"], doc["region"]) == ("orders", "us-east-1")
    assert [e["name"] for e in doc["environments"]] == ["dev", "staging", "production"]
    for env in doc["environments"]:
        assert {"name", "cap_monthly_usd", "total_monthly_usd", "verdict", "items"} <= set(env)
        assert env["verdict"] in {"ok", "over-cap", "no-cap"}
        assert env["cap_monthly_usd"] is None or isinstance(env["cap_monthly_usd"], (int, float))
        for item in env["items"]:
            assert {"name", "kind", "size", "implicit", "capacity", "monthly_usd", "line_items", "consumers", "variables"} <= set(item)
            for li in item["line_items"]:
                assert {"description", "quantity", "unit", "unit_usd", "monthly_usd", "source"} <= set(li)
    dev = doc["environments"][0]
    assert dev["cap_monthly_usd"] == 150 and dev["verdict"] == "ok"
    main_db = next(i for i in dev["items"] if i["name"] == "main-db")
    assert main_db["variables"][:2] == ["MAIN_DB_URL", "MAIN_DB_HOST"]
    assert next(i for i in dev["items"] if i["name"] == "shared-queue")["implicit"] is True
    (d,) = doc["diagnostics"]
    assert_diagnostic_shape(d)
    # The same diagnostics document as check's.
    _, check, _ = run_json(capsys, "check", str(ORDERS), "--format", "json")
    assert doc["diagnostics"] == check["diagnostics"]


def test_plan_over_cap_exit_2_names_top_contributors(capsys, tmp_path):
    folder = copy_orders(tmp_path, dev_cap=100)
    rc, out, err = run(capsys, "plan", str(folder))
    assert rc == cli.EXIT_REFUSED
    assert "dev — $126.88 / $100.00 cap (127%) — REFUSED" in out
    assert "staging — $258.11 / $500.00 cap (52%) — ok" in out
    assert "error RW170" in err
    assert "Top contributors: main-db $36.28, pdf-renderer $32.02, alb $29.57" in err
    rc, doc, _ = run_json(capsys, "plan", str(folder), "--format", "json", "--env", "dev")
    assert rc == 2
    assert doc["environments"][0]["verdict"] == "over-cap"
    top = sorted(doc["environments"][0]["items"], key=lambda i: -i["monthly_usd"])[:3]
    (rw170,) = [d for d in doc["diagnostics"] if d["code"] == "RW170"]
    for item in top:
        assert item["name"] in rw170["message"]


def test_plan_over_cap_elsewhere_does_not_refuse_the_selected_env(capsys, tmp_path):
    rc, _, _ = run(capsys, "plan", str(copy_orders(tmp_path, dev_cap=100)), "--env", "staging")
    assert rc == 0


def test_plan_invalid_takes_precedence_over_refused(capsys, tmp_path):
    rc, out, _ = run(capsys, "plan", str(copy_orders(tmp_path, fix_digest=False, dev_cap=100)))
    assert rc == cli.EXIT_INVALID
    assert "REFUSED" in out


def test_plan_env_filter_keeps_declaration_order(capsys):
    rc, doc, _ = run_json(capsys, "plan", str(ORDERS), "--format", "json", "--env", "production", "--env", "dev")
    assert [e["name"] for e in doc["environments"]] == ["dev", "production"]


def test_plan_markdown_table(capsys, tmp_path):
    rc, out, _ = run(capsys, "plan", str(copy_orders(tmp_path)), "--format", "markdown")
    assert rc == 0
    assert "## dev — $126.88 / $150.00\n" in out
    assert "| item | kind | size | monthly |\n|---|---|---|---:|\n| main-db | postgres | small | $36.28 |" in flat(out)
    assert "| shared-queue (implicit) | queue | small | $0.40 |" in flat(out)
    assert "| **total** | | | **$126.88** |" in flat(out)
    assert "Verdict: **ok**" in out
    rc, out, _ = run(capsys, "plan", str(copy_orders(tmp_path / "capped", dev_cap=100)), "--format", "markdown", "--env", "dev")
    assert rc == 2
    assert "over cap — refused" in out


def test_member_path_resolves_to_the_root(capsys, monkeypatch):
    monkeypatch.chdir(ORDERS)  # file names are relative to the current folder (issue 14)
    for path in (ORDERS / "services" / "billing" / "runway.yaml", ORDERS / "services" / "checkout"):
        rc, doc, _ = run_json(capsys, "plan", str(path), "--format", "json", "--env", "dev")
        assert rc == 1
        assert doc["product"] == "orders"
        assert doc["environments"][0]["total_monthly_usd"] == 126.88
        assert doc["diagnostics"][0]["file"] == "runway.yaml"


@pytest.mark.parametrize("member_key", [True, False], ids=["member-key", "no-member-key"])
def test_relative_member_folder_resolves_to_the_root(capsys, monkeypatch, tmp_path, member_key):
    # A member is any runway without `product:`: with or without `member:`, checking its
    # folder checks the root above it (never the member alone, with RW101 missing `product`).
    folder = copy_orders(tmp_path)
    billing = folder / "services" / "billing" / "runway.yaml"
    if not member_key:
        text = billing.read_text(encoding="utf-8")
        assert "\nmember: billing\n" in text
        billing.write_text(text.replace("\nmember: billing\n", "\n"), encoding="utf-8")
    monkeypatch.chdir(folder)
    rc, out, _ = run(capsys, "check", "services/billing")
    assert rc == 0
    assert out == "0 errors, 0 warnings, 0 hints in 3 files\n"
    rc, doc, _ = run_json(capsys, "plan", "services/billing", "--format", "json", "--env", "dev")
    assert rc == 0 and doc["product"] == "orders"
    assert doc["environments"][0]["total_monthly_usd"] == 126.88


def test_lone_member_is_analysed_alone(capsys, tmp_path):
    # No root runway above: the member is checked alone, as a member, with the RW154 warning
    # (exit 0), never refused with exit 3 nor told that it misses `product`.
    svc = tmp_path / "svc"
    svc.mkdir()
    (svc / "runway.yaml").write_text("runway: 1\nmember: svc\nuses: [db]\n", encoding="utf-8")
    for path in (svc, svc / "runway.yaml"):
        rc, doc, err = run_json(capsys, "check", str(path), "--format", "json")
        assert rc == cli.EXIT_OK, err
        assert [(d["file"], d["severity"], d["code"]) for d in doc["diagnostics"]] == [("runway.yaml", "warning", "RW154")]
        assert doc["summary"]["files"] == 1
    rc, out, _ = run(capsys, "check", str(svc))
    assert rc == 0
    assert "runway.yaml:1:1: warning RW154: this member runway is not listed by a root runway above it" in out
    assert out.endswith("0 errors, 1 warning, 0 hints in 1 file\n")


def test_lone_member_with_errors_exit_1(capsys, tmp_path):
    (tmp_path / "runway.yaml").write_text("runway: 1\nmember: svc\nrequires: [queues]\n", encoding="utf-8")
    rc, doc, _ = run_json(capsys, "check", str(tmp_path), "--format", "json")
    assert rc == cli.EXIT_INVALID
    assert [d["code"] for d in doc["diagnostics"]] == ["RW154", "RW120"]
    assert "RW101" not in {d["code"] for d in doc["diagnostics"]}


def test_default_path_is_the_current_folder(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(copy_orders(tmp_path))
    rc, out, _ = run(capsys, "check")
    assert rc == 0


# --------------------------------------------------------------------------------------
# The CLI's own failures: 3, 64, 70
# --------------------------------------------------------------------------------------


def test_folder_without_runway_exit_3(capsys, tmp_path):
    rc, out, err = run(capsys, "check", str(tmp_path))
    assert rc == cli.EXIT_NO_INPUT
    assert out == ""
    assert err.startswith("runway-deploy: no runway found:")
    rc, _, err = run(capsys, "plan", str(tmp_path / "missing"))
    assert rc == 3
    assert "no such file or folder" in err


def test_bad_catalog_folder_exit_3(capsys, tmp_path):
    rc, _, err = run(capsys, "plan", str(ORDERS), "--catalog", str(tmp_path))
    assert rc == 3
    assert "catalogue" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--bogus"],
        ["plan", str(ORDERS), "--format", "yaml"],
        ["check", str(ORDERS), "--format", "markdown"],
        [],
        ["deploy"],
    ],
)
def test_usage_errors_exit_64(capsys, argv):
    rc, out, err = run(capsys, *argv)
    assert rc == cli.EXIT_USAGE
    assert out == ""
    assert "usage: runway-deploy" in err


def test_undeclared_env_is_a_usage_error(capsys):
    rc, out, err = run(capsys, "plan", str(ORDERS), "--env", "qa")
    assert rc == 64
    assert out == ""
    assert "--env qa: no such environment" in err and "dev, staging, production" in err


def test_help_exit_0(capsys):
    rc, out, _ = run(capsys, "plan", "--help")
    assert rc == 0
    assert "--details" in out


def test_internal_error_exit_70_one_line(capsys, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("MB_ENCRYPTION_SECRET_KEY=hunter2")

    # deploy_engine.cli is a package: the analysis is called from its inputs module.
    monkeypatch.setattr(cli.inputs, "analyze", boom)
    rc, out, err = run(capsys, "check", str(ORDERS), environ={})
    assert rc == cli.EXIT_INTERNAL
    assert err.count("\n") == 1 and "internal error (RuntimeError)" in err
    assert "hunter2" not in err and "Traceback" not in err
    rc, _, err = run(capsys, "check", str(ORDERS), environ={"RUNWAY_DEBUG": "1"})
    assert rc == 70
    assert "Traceback" in err


# --------------------------------------------------------------------------------------
# Real processes
# --------------------------------------------------------------------------------------


@pytest.mark.skipif(not SCRIPT.exists(), reason="console script not installed next to this interpreter")
def test_console_script_subprocess(tmp_path):
    proc = subprocess.run([str(SCRIPT), "check", str(ORDERS), "--format", "json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["diagnostics"][0]["code"] == "RW140"
    proc = subprocess.run([str(SCRIPT), "plan", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3


def test_oversized_root_is_rw011_without_traceback(tmp_path):
    # A root over the 1 MiB limit: RW011, exit 1, no traceback. Measured in a real process,
    # which should take well under 2 s; the timeout is only a generous guard against a hang.
    from runway_core.workspace import MAX_FILE_CHARS

    text = "runway: 1\nproduct: huge\n"
    (tmp_path / "runway.yaml").write_text(text + "# padding\n" * (MAX_FILE_CHARS // 10 + 1), encoding="utf-8")
    assert (tmp_path / "runway.yaml").stat().st_size > MAX_FILE_CHARS
    proc = subprocess.run(
        [sys.executable, "-m", "deploy_engine", "check", str(tmp_path), "--format", "json"],
        capture_output=True, text=True, timeout=20, cwd=REPO,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    (d,) = json.loads(proc.stdout)["diagnostics"]
    assert (d["file"], d["severity"], d["code"]) == ("runway.yaml", "error", "RW011")
    assert d["range"]["start"] == d["range"]["end"] == {"line": 0, "character": 0}


def test_python_m_without_pulumi(tmp_path):
    folder = copy_orders(tmp_path, dev_cap=100)
    code = (
        "import runpy, sys\n"
        "sys.argv = ['runway-deploy', 'plan', sys.argv[1], '--format', 'json']\n"
        "try:\n"
        "    runpy.run_module('deploy_engine', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    rc = exc.code\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pulumi', 'pulumi_aws', 'pygls', 'lsprotocol'))\n"
        "print('RC', rc, 'BAD', bad, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert "RC 2 BAD []" in proc.stderr
    assert json.loads(proc.stdout)["environments"][0]["verdict"] == "over-cap"


# --- the usage file (docs/format.md "Usage file", docs/cli.md "usage init") ---------------


def test_usage_file_in_plan_check_and_usage_init(tmp_path, capsys) -> None:
    folder = copy_orders(tmp_path)
    # usage init: a template beside the root; a second run is refused (exit 3) without --force.
    rc, _out, err = run(capsys, "usage", "init", str(folder))
    assert rc == 0 and "wrote" in err, err
    template = (folder / "runway.usage.yaml").read_text()
    rc, _out, err = run(capsys, "usage", "init", str(folder))
    assert rc == 3 and "--force" in err
    # Uncommenting one key changes exactly that line item, and says where it came from.
    rc, before, _ = run_json(capsys, "plan", str(folder), "--env", "production", "--format", "json")
    line = next(n for n, text in enumerate(template.splitlines(), 1) if "# requests_millions: 25" in text)
    edited = template.replace("# requests_millions: 25 ", "requests_millions: 400", 1)
    (folder / "runway.usage.yaml").write_text(edited)
    rc, after, _ = run_json(capsys, "plan", str(folder), "--env", "production", "--format", "json")
    assert rc == 0
    old = {(i["name"], li["price_key"]): li for i in before["environments"][0]["items"] for li in i["line_items"]}
    new = {(i["name"], li["price_key"]): li for i in after["environments"][0]["items"] for li in i["line_items"]}
    changed = {k for k in new if new[k] != old.get(k)}
    assert changed == {("shared-queue", "sqs:standard")}
    assert new[("shared-queue", "sqs:standard")]["quantity_source"] == f"usage file L{line}"
    env = after["environments"][0]
    assert round(sum(env["price_confidence"].values()), 2) == env["total_monthly_usd"]
    # --usage names another file; a bad one is positioned diagnostics and fails check (exit 1).
    bad = tmp_path / "bad.usage.yaml"
    bad.write_text("usage: 1\nenvironments:\n  production:\n    items:\n      shared-queue: {request_millions: 4}\n")
    rc, out, _ = run(capsys, "check", str(folder), "--usage", str(bad))
    assert rc == 1
    assert "bad.usage.yaml:5:22: error RW202: `request_millions` is not a usage quantity of queue `shared-queue`" in out
    assert "did you mean `requests_millions`?" in out
    rc, _out, err = run(capsys, "check", str(folder), str(folder), "--usage", str(bad))
    assert rc == 3 and "one PATH" in err
    # usage init refuses to rewrite a usage file it cannot read whole (exit 1).
    rc, _out, err = run(capsys, "usage", "init", str(folder), "--usage", str(bad), "--force")
    assert rc == 1 and "error" in err


def test_plan_json_price_confidence_sums_to_each_total(tmp_path, capsys) -> None:
    rc, doc, _ = run_json(capsys, "plan", str(copy_orders(tmp_path)), "--format", "json")
    assert rc == 0
    for env in doc["environments"]:
        assert list(env["price_confidence"]) == ["price-list", "aws-static", "secondary", "derived", "unverified"]
        assert round(sum(env["price_confidence"].values()), 2) == env["total_monthly_usd"]


# --- catalog diff (docs/cli.md "catalog diff") ----------------------------------------------------

NEAR_CAP = REPO / "tests" / "golden" / "rw172_verdict_could_flip"


def _refreshed_catalog(tmp_path: Path) -> Path:
    """The packaged catalogue with what a refresh could bring: two derived eu-west-1 prices
    4.1% and 3.9% up (now price-list), a key removed and a region added."""
    folder = tmp_path / "new"
    folder.mkdir()
    shutil.copy(REPO / "catalog" / "sizes.toml", folder / "sizes.toml")
    rows = list(csv.reader(PRICES_CSV.open(newline="")))
    out = []
    for r in rows:
        if (r[0], r[3]) == ("rds:db.m7g.large:multi-az", "eu-west-1"):
            r[5], r[6], r[9] = "0.384", "price-list", ""
        if (r[0], r[3]) == ("rds:gp3:multi-az", "eu-west-1"):
            r[5], r[6], r[9] = "0.264", "price-list", ""
        if (r[0], r[3]) == ("nat:hour", "eu-central-1"):
            continue
        out.append(r)
    out.append(["valkey:cache.t4g.micro", "ElastiCache Valkey", "cache.t4g.micro node", "ap-southeast-2", "node-hour", "0.016", "price-list",
                "AWS Price List, AmazonElastiCache, ap-southeast-2 (test row)", "2026-12-01", ""])
    with (folder / "prices.csv").open("w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(out)
    return folder


def test_catalog_diff_lists_moved_prices_and_changed_verdicts(tmp_path, capsys) -> None:
    new = _refreshed_catalog(tmp_path)
    rc, doc, _ = run_json(capsys, "catalog", "diff", "packaged", str(new), str(NEAR_CAP), "--format", "json")
    assert rc == 2  # production newly over its cap
    prices = {(p["key"], p["region"]): p for p in doc["prices"]}
    assert set(prices) == {("rds:db.m7g.large:multi-az", "eu-west-1"), ("rds:gp3:multi-az", "eu-west-1"),
                           ("nat:hour", "eu-central-1"), ("valkey:cache.t4g.micro", "ap-southeast-2")}
    m7g = prices[("rds:db.m7g.large:multi-az", "eu-west-1")]
    assert (m7g["change"], m7g["old_usd"], m7g["new_usd"], m7g["percent"]) == ("changed", 0.369, 0.384, 4.1)
    assert (m7g["old_confidence"], m7g["new_confidence"]) == ("derived", "price-list")
    assert prices[("nat:hour", "eu-central-1")]["change"] == "removed"
    assert prices[("valkey:cache.t4g.micro", "ap-southeast-2")]["change"] == "added"
    (runway,) = doc["runways"]
    envs = {e["name"]: e for e in runway["environments"]}
    # 730 h x (0.384 - 0.369) = 10.95 and 250 GB x (0.264 - 0.254) = 2.50 more a month.
    assert (envs["production"]["old_total_monthly_usd"], envs["production"]["new_total_monthly_usd"]) == (366.08, 379.53)
    assert (envs["production"]["old_verdict"], envs["production"]["new_verdict"], envs["production"]["verdict_changed"]) == ("ok", "over-cap", True)
    assert envs["dev"]["verdict_changed"] is False and envs["dev"]["delta_monthly_usd"] == 0
    rc, out, _ = run(capsys, "catalog", "diff", "packaged", str(new), str(NEAR_CAP))
    assert "~ rds:db.m7g.large:multi-az eu-west-1: 0.369 → 0.384 per instance-hour (+4.1%)" in out
    assert "production: $366.08 → $379.53 (+$13.45) — verdict ok → over-cap" in out
    rc, out, _ = run(capsys, "catalog", "diff", "packaged", str(new), str(NEAR_CAP), "--format", "markdown")
    assert "| production  |   $366.08 |   $379.53 | +$13.45 | **ok → over-cap** |" in out
    # Equal catalogues: nothing moved, exit 0; an unusable catalogue: exit 3.
    rc, out, _ = run(capsys, "catalog", "diff", "packaged", "packaged", str(NEAR_CAP))
    assert rc == 0 and "0 price(s) changed, 0 added, 0 removed" in out
    rc, _out, err = run(capsys, "catalog", "diff", "packaged", str(tmp_path / "nope"))
    assert rc == 3 and "not a catalogue folder" in err


def test_diff_of_a_usage_file_change_names_the_items_and_the_source(tmp_path, capsys) -> None:
    base = copy_orders(tmp_path / "a")
    head = copy_orders(tmp_path / "b")
    (head / "runway.usage.yaml").write_text(
        "usage: 1\nenvironments:\n  production:\n    items:\n      invoices: {storage_gb: 5000}\n      shared-queue: {requests_millions: 400}\n")
    rc, out, _ = run(capsys, "diff", str(base), str(head), "--env", "production")
    assert rc == 0
    changed = [line for line in out.splitlines() if line.lstrip().startswith("~")]
    assert len(changed) == 2  # exactly the two items the usage file names
    assert "invoices" in changed[0] and "storage_gb assumed → 5000 (usage file)" in changed[0] and "+$103.50" in changed[0]
    assert "shared-queue" in changed[1] and "requests_millions assumed → 400 (usage file)" in changed[1] and "+$150.00" in changed[1]


def test_plan_json_of_the_near_cap_eu_runway_has_the_flip_warning(capsys) -> None:
    # eu-west-1 production at 98% of its cap, $356.96 of $366.08 on derived prices (±5% each).
    rc, doc, _ = run_json(capsys, "plan", str(NEAR_CAP), "--format", "json")
    assert rc == 0
    prod = next(e for e in doc["environments"] if e["name"] == "production")
    assert prod["verdict"] == "ok" and prod["price_confidence"]["derived"] == 356.96
    assert round(sum(prod["price_confidence"].values()), 2) == prod["total_monthly_usd"] == 366.08
    (warning,) = [d for d in doc["diagnostics"] if d["code"] == "RW172"]
    assert warning["severity"] == "warning" and "rds:db.m7g.large:multi-az (derived ±5%, $269.37)" in warning["message"]
