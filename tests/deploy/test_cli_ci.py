"""``runway-deploy`` in any CI (issue 14): no exit 70 for ordinary situations (closed pipe, an
ASCII stdout, the [deploy] extra missing), ``--version``, no abbreviated options and a "did you
mean", ``check -``, ``--exit-zero`` / ``--fail-on`` / ``--output``, SARIF that is always a valid
log with fingerprints, one labelled step summary, and several runways (a monorepo).

In-process through ``main()`` where a stream is enough; real processes (the console script,
bash with ``pipefail``, git) where the situation is the process's own.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deploy_engine import __version__
from deploy_engine.cli import main

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
SCRIPT = Path(sys.executable).parent / "runway-deploy"


def run(*argv: str, environ: dict | None = None, stdin=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ=environ if environ is not None else {}, stdin=stdin)
    return rc, out.getvalue(), err.getvalue()


def product(tmp_path: Path, name: str, folder: str | None = None, *, fix_digest: bool = True) -> Path:
    """A copy of examples/orders named ``name`` (its digest fixed: valid) at ``tmp_path/folder``."""
    dest = tmp_path / (folder or name)
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    text = root.read_text(encoding="utf-8").replace("product: orders", f"product: {name}")
    if fix_digest:
        text = text.replace(SHORT_DIGEST, SHORT_DIGEST + "0")
    root.write_text(text, encoding="utf-8")
    return dest


def env_with_repo(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTHONIOENCODING"))}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def cli_cmd() -> list[str]:
    return [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "deploy_engine"]


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from generate import generate
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return generate(tmp_path_factory.mktemp("big") / "x1", 1).parent


# --------------------------------------------------------------------------------------
# Ordinary situations are no internal error
# --------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("head") is None, reason="needs bash and head")
@pytest.mark.parametrize("command", ["plan --details", "check", "plan --format json"])
def test_a_closed_pipe_ends_quietly_with_the_status_of_the_work(big, command):
    # GitHub's bash runs steps with pipefail: `runway-deploy ... | head -1` must not fail the step.
    line = f"set -o pipefail; {' '.join(map(str, cli_cmd()))} {command} {big} | head -1"
    proc = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=300, env=env_with_repo())
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 1
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr and "BrokenPipe" not in proc.stderr


def test_a_closed_pipe_keeps_the_status_the_work_had(tmp_path):
    # An invalid runway is still exit 1 when the reader has gone: the status is the work's.
    big = tmp_path / "big"
    shutil.copytree(ORDERS, big)
    lines = (big / "runway.yaml").read_text(encoding="utf-8")
    (big / "runway.yaml").write_text(lines + "".join(f"\nextra{i}: 1" for i in range(3000)), encoding="utf-8")
    proc = subprocess.run(["bash", "-c", f"set -o pipefail; {' '.join(cli_cmd())} check {big} | head -1"],
                          capture_output=True, text=True, timeout=300, env=env_with_repo())
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_an_ascii_stdout_gets_an_ascii_fallback(tmp_path, encoding):
    folder = product(tmp_path, "orders")
    env = env_with_repo(PYTHONIOENCODING=encoding)
    proc = subprocess.run(cli_cmd() + ["plan", str(folder)], capture_output=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode(encoding)
    assert "dev - $126.88 / $150.00 cap (85%) - ok" in out  # "—" written as "-"
    # JSON stays the same document: non-ASCII escaped, never replaced.
    proc = subprocess.run(cli_cmd() + ["plan", str(folder), "--format", "json"], capture_output=True, timeout=120, env=env)
    assert proc.returncode == 0
    ascii_doc = json.loads(proc.stdout.decode("ascii"))
    utf8 = subprocess.run(cli_cmd() + ["plan", str(folder), "--format", "json"], capture_output=True, timeout=120,
                          env=env_with_repo(PYTHONIOENCODING="utf-8"))
    assert ascii_doc == json.loads(utf8.stdout.decode("utf-8"))


def test_a_non_ascii_name_on_an_ascii_stdout_is_escaped_not_a_crash(tmp_path):
    folder = product(tmp_path, "orders")
    text = (folder / "runway.yaml").read_text(encoding="utf-8")
    (folder / "runway.yaml").write_text(text.replace("  order-events:\n", "  order-events:  # 注文 ✓\n"), encoding="utf-8")
    (folder / "runway.yaml").write_text(text + "\nbogus-ключ: 1\n", encoding="utf-8")
    proc = subprocess.run(cli_cmd() + ["check", str(folder)], capture_output=True, timeout=120, env=env_with_repo(PYTHONIOENCODING="ascii"))
    assert proc.returncode == 1
    assert b"bogus-\\u043a\\u043b\\u044e\\u0447" in proc.stdout
    assert b"Traceback" not in proc.stderr


def test_preview_without_the_deploy_extra_is_exit_3_with_the_install_line(tmp_path):
    folder = product(tmp_path, "orders")
    # Python's own way to make a module unimportable: None in sys.modules.
    code = ("import sys\nfor m in ('pulumi', 'pulumi_aws', 'infisical_sdk'):\n    sys.modules[m] = None\n"
            "from deploy_engine.cli import main\n"
            f"sys.exit(main(['preview', {str(folder)!r}, '--env', 'dev'], which=lambda *a, **k: '/bin/pulumi'))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env_with_repo())
    assert proc.returncode == 3, proc.stderr
    assert "needs the [deploy] extra" in proc.stderr and "pip install 'runway-tooling[deploy]'" in proc.stderr
    assert "no module pulumi, pulumi_aws" in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


# --------------------------------------------------------------------------------------
# Distribution: --version, no abbreviations, did you mean, check -
# --------------------------------------------------------------------------------------


def test_version_prints_the_version(capsys):
    rc = main(["--version"], environ={})
    out = capsys.readouterr().out
    assert rc == 0 and out.strip() == f"runway-deploy {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    proc = subprocess.run(cli_cmd() + ["--version"], capture_output=True, text=True, timeout=60, env=env_with_repo())
    assert proc.returncode == 0 and proc.stdout.strip() == f"runway-deploy {__version__}"


def test_an_abbreviated_option_is_a_usage_error_with_a_suggestion():
    rc, out, err = run("check", str(ORDERS), "--form", "json")
    assert rc == 64 and out == ""
    assert "unrecognized arguments: --form json" in err and "did you mean --format?" in err
    rc, out, err = run("check", str(ORDERS), "--formt", "json")
    assert rc == 64 and out == "" and "--formt: did you mean --format?" in err
    rc, _, err = run("plan", str(ORDERS), "--detials")
    assert rc == 64 and "did you mean --details?" in err
    rc, _, err = run("chek", str(ORDERS))
    assert rc == 64 and "did you mean 'check'?" in err
    rc, _, err = run("check", str(ORDERS), "--format", "jsno")
    assert rc == 64 and "did you mean 'json'?" in err


def test_check_dash_reads_one_runway_from_stdin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = (ORDERS / "runway.yaml").read_text(encoding="utf-8").replace("members:\n  - services/checkout\n  - services/billing\n", "")
    rc, out, _ = run("check", "-", "--format", "json", stdin=io.BytesIO(text.encode("utf-8")))
    doc = json.loads(out)
    assert rc == 1
    assert [(d["file"], d["code"], d["range"]["start"]["line"]) for d in doc["diagnostics"] if d["severity"] == "error"] == [("<stdin>", "RW140", 45)]
    rc, out, _ = run("check", "-", stdin=io.BytesIO(text.replace(SHORT_DIGEST, SHORT_DIGEST + "0").encode()))
    assert rc == 0 and out.endswith("in 1 file\n")
    # Not UTF-8, and over 1 MiB: diagnostics, as for a file.
    rc, out, _ = run("check", "-", "--format", "json", stdin=io.BytesIO(b"runway: 1\nproduct: \xff\n"))
    assert rc == 1 and json.loads(out)["diagnostics"][0]["code"] == "RW001"
    rc, out, _ = run("check", "-", "--format", "json", stdin=io.BytesIO(b"#" * (1024 * 1024 + 10)))
    assert rc == 1 and json.loads(out)["diagnostics"][0]["code"] == "RW011"
    # A real process reading its standard input.
    proc = subprocess.run(cli_cmd() + ["check", "-"], input=text.encode(), capture_output=True, timeout=60, env=env_with_repo(), cwd=tmp_path)
    assert proc.returncode == 1 and b"\n<stdin>:46:12: error RW140" in proc.stdout


# --------------------------------------------------------------------------------------
# CI flags
# --------------------------------------------------------------------------------------


def test_exit_zero_and_fail_on(tmp_path):
    assert run("check", str(ORDERS))[0] == 1
    assert run("check", str(ORDERS), "--exit-zero")[0] == 0
    valid = product(tmp_path, "orders")  # no diagnostic; below, one with a hint and one with a warning
    rc, out, _ = run("check", str(valid), "--format", "json")
    severities = {d["severity"] for d in json.loads(out)["diagnostics"]}
    assert rc == 0 and "error" not in severities
    hinted = tmp_path / "hinted"
    shutil.copytree(valid, hinted)
    t = (hinted / "runway.yaml").read_text(encoding="utf-8")
    (hinted / "runway.yaml").write_text(t.replace("resources:\n", "resources:\n  spare:\n    kind: queue\n", 1), encoding="utf-8")
    rc, out, _ = run("check", str(hinted), "--format", "json")
    assert rc == 0 and [d["code"] for d in json.loads(out)["diagnostics"]] == ["RW180"]
    assert run("check", str(hinted), "--fail-on", "warning")[0] == 0
    assert run("check", str(hinted), "--fail-on", "hint")[0] == 1
    assert run("check", str(hinted), "--fail-on", "hint", "--exit-zero")[0] == 0
    warned = tmp_path / "warned"
    shutil.copytree(valid, warned)
    t = (warned / "runway.yaml").read_text(encoding="utf-8")
    (warned / "runway.yaml").write_text(t.replace("    limits:\n      monthly: 2500\n", ""), encoding="utf-8")
    rc, out, _ = run("check", str(warned), "--format", "json")
    assert "RW171" in {d["code"] for d in json.loads(out)["diagnostics"]} and rc == 0
    assert run("check", str(warned), "--fail-on", "warning")[0] == 1
    # No runway is still exit 3: --exit-zero reports findings, it does not hide a broken setup.
    assert run("check", str(tmp_path / "nowhere"), "--exit-zero")[0] == 3


def test_output_file_gets_the_format_and_stdout_the_text(tmp_path, sarif_schema, monkeypatch):
    monkeypatch.chdir(REPO)
    target = tmp_path / "out" / "check.sarif"
    rc, out, err = run("check", str(ORDERS), "--format", "sarif", "--output", str(target))
    assert rc == 1
    assert out.startswith("examples/orders/runway.yaml:49:12: error RW140") and out.endswith("1 error, 0 warnings, 0 hints in 3 files\n")
    doc = json.loads(target.read_text(encoding="utf-8"))
    validate_sarif(doc, sarif_schema)
    assert doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "examples/orders/runway.yaml"
    plan_file = tmp_path / "plan.json"
    rc, out, _ = run("plan", str(ORDERS), "--format", "json", "--output", str(plan_file))
    assert rc == 1 and out.startswith("dev — $126.88 / $150.00 cap (85%) — ok")
    assert json.loads(plan_file.read_text(encoding="utf-8"))["product"] == "orders"
    rc, _, err = run("check", str(ORDERS), "--output", str(tmp_path / "plan.json" / "x"))
    assert rc == 3 and "cannot write" in err


def test_sarif_is_valid_when_no_runway_is_found(tmp_path, sarif_schema):
    target = tmp_path / "results.sarif"
    for argv in (["check", str(tmp_path / "nowhere"), "--format", "sarif"], ["plan", str(tmp_path), "--format", "sarif"]):
        rc, out, err = run(*argv)
        assert rc == 3 and "no runway found" in err or "no such file" in err
        doc = json.loads(out)
        validate_sarif(doc, sarif_schema)
        (run_,) = doc["runs"]
        assert run_["results"] == []
        (inv,) = run_["invocations"]
        assert inv["executionSuccessful"] is False and inv["exitCode"] == 3
        assert inv["toolExecutionNotifications"][0]["level"] == "error"
    rc, out, _ = run("check", str(tmp_path), "--format", "sarif", "--output", str(target))
    assert rc == 3 and out == ""
    validate_sarif(json.loads(target.read_text(encoding="utf-8")), sarif_schema)


def test_sarif_of_every_run_has_fingerprints_automation_details_and_invocations(tmp_path, sarif_schema):
    broken = REPO / "examples" / "broken"
    for argv in (["check", str(broken)], ["plan", str(broken)], ["check", str(ORDERS)], ["plan", str(ORDERS)]):
        rc, out, _ = run(*argv, "--format", "sarif", environ={"GITHUB_RUN_ID": "4242"})
        doc = json.loads(out)
        validate_sarif(doc, sarif_schema)
        (run_,) = doc["runs"]
        assert run_["automationDetails"]["id"] == f"runway-deploy/{argv[0]}/4242"
        assert run_["invocations"] == [{"executionSuccessful": True, "exitCode": rc}]
        results = run_["results"]
        assert results and all(re.fullmatch(r"[0-9a-f]{32}", r["partialFingerprints"]["runwayDiagnostic/v1"]) for r in results)
        prints = [r["partialFingerprints"]["runwayDiagnostic/v1"] for r in results]
        assert len(set(prints)) == len(prints)  # one alert, one fingerprint
    # A line moving (a comment added above) keeps every fingerprint; an edited line changes its own.
    moved = tmp_path / "orders"
    shutil.copytree(ORDERS, moved)
    before = json.loads(run("check", str(moved), "--format", "sarif")[1])["runs"][0]["results"]
    text = (moved / "runway.yaml").read_text(encoding="utf-8")
    (moved / "runway.yaml").write_text("# a new comment\n" + text, encoding="utf-8")
    after = json.loads(run("check", str(moved), "--format", "sarif")[1])["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in after] == [r["partialFingerprints"] for r in before]
    assert after[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == before[0]["locations"][0]["physicalLocation"]["region"]["startLine"] + 1


def test_one_labelled_step_summary_per_run_with_the_diagnostics(tmp_path):
    summary = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    rc, _, _ = run("check", str(REPO / "examples" / "broken"), environ=env)
    assert rc == 1
    text = summary.read_text(encoding="utf-8")
    assert text.count("### runway-deploy check — ") == 1
    assert "**37 errors, 8 warnings, 1 hint in 16 files**" in text  # the usage file of the example: 3 errors, 1 file
    assert re.search(r"\| where +\| severity +\| code +\| message +\|", text)
    assert "RW170" in text and "RW001" in text
    run("plan", str(ORDERS), environ=env)
    text = summary.read_text(encoding="utf-8")
    assert text.count("### runway-deploy ") == 2 and text.count("### runway-deploy plan — ") == 1
    assert "**1 error, 0 warnings, 0 hints in 3 files**" in text and "RW140" in text.split("### runway-deploy plan")[1]


# --------------------------------------------------------------------------------------
# Several runways (monorepo)
# --------------------------------------------------------------------------------------


def test_check_a_folder_holding_two_products_reports_both(tmp_path, monkeypatch):
    mono = tmp_path / "mono"
    product(mono, "orders", "products/orders", fix_digest=False)
    product(mono, "billing", "products/billing", fix_digest=False)
    # Skipped: hidden folders, node_modules, virtual environments.
    for skipped in ("node_modules/pkg", ".cache/x", "venv-x"):
        product(mono, "skipped", skipped, fix_digest=False)
    (mono / "venv-x" / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
    monkeypatch.chdir(mono)
    rc, out, _ = run("check", ".", "--format", "json")
    doc = json.loads(out)
    assert rc == 1
    assert [d["file"] for d in doc["diagnostics"]] == ["products/billing/runway.yaml", "products/orders/runway.yaml"]
    assert doc["summary"]["files"] == 6
    rc, out, _ = run("check")
    assert out.splitlines()[0].startswith("products/billing/runway.yaml:49:12: error RW140")
    # Several PATHs, each once; a member resolves to its root.
    rc, out, _ = run("check", "products/orders", "products/billing/services/checkout", "products/orders", "--format", "json")
    assert [d["file"] for d in json.loads(out)["diagnostics"]] == ["products/orders/runway.yaml", "products/billing/runway.yaml"]
    # Text plans of both; JSON: one products document, each the one-product document unchanged (issue 22).
    rc, out, _ = run("plan", ".")
    assert out.count("production — ") == 2
    rc, out, err = run("plan", ".", "--format", "json")
    doc = json.loads(out)
    assert rc == 1 and set(doc) == {"format_version", "products"} and doc["format_version"] == 1
    assert [p["product"] for p in doc["products"]] == ["billing", "orders"]
    rc_one, one, _ = run("plan", "products/orders", "--format", "json")
    # Each entry: the one-product document with the product's folder in front, as diff's.
    assert [p["path"] for p in doc["products"]] == ["products/billing", "products/orders"]
    assert list(doc["products"][1])[0] == "path" and {k: v for k, v in doc["products"][1].items() if k != "path"} == json.loads(one)
    # A monorepo folder of one product is still a products document: the shape follows what was named.
    rc, out, _ = run("plan", "products/orders", "products/orders", "--format", "json")
    assert len(json.loads(out)["products"]) == 1
    # From elsewhere: relative to the folder searched, so the two stay apart.
    monkeypatch.chdir(REPO)
    rc, out, _ = run("check", str(mono), "--format", "github", environ={})
    assert "file=products/billing/runway.yaml," in out and "file=products/orders/runway.yaml," in out
    rc, out, _ = run("check", str(mono), "--format", "github", environ={"GITHUB_WORKSPACE": str(tmp_path)})
    assert "file=mono/products/orders/runway.yaml," in out
    # GITHUB_WORKSPACE naming the runway file itself (a careless CI config): the file is not
    # "." (SARIF's artifactLocation.uri "." names no file; code scanning drops the alert), it
    # is taken relative to the current folder, as without the variable.
    orders_file = mono / "products" / "orders" / "runway.yaml"
    monkeypatch.chdir(mono)
    rc, out, _ = run("check", str(orders_file), "--format", "github", environ={"GITHUB_WORKSPACE": str(orders_file)})
    assert "file=products/orders/runway.yaml," in out and "file=.," not in out, out
    rc, out, _ = run("check", str(orders_file), "--format", "sarif", environ={"GITHUB_WORKSPACE": str(orders_file)})
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in json.loads(out)["runs"][0]["results"] for loc in r["locations"]}
    assert uris and "." not in uris and uris <= {"products/orders/runway.yaml", "products/orders/services/api.yaml"}, uris
    monkeypatch.chdir(REPO)
    rc, _, err = run("check", str(tmp_path / "mono" / "products" / "orders" / "services"))
    assert rc == 1  # the members' folder: their root above


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_a_git_repository_only_tracked_runways_count(tmp_path, monkeypatch):
    mono = tmp_path / "repo"
    product(mono, "orders", "products/orders")
    product(mono, "scratch", "scratch/copy", fix_digest=False)  # not tracked: ignored
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(git + ["init", "-q", str(mono)], check=True)
    subprocess.run(git + ["-C", str(mono), "add", "products"], check=True)
    subprocess.run(git + ["-C", str(mono), "commit", "-qm", "products"], check=True)
    monkeypatch.chdir(mono)
    rc, out, _ = run("check", ".", "--format", "json")
    assert rc == 0 and json.loads(out)["summary"]["files"] == 3
    rc, _, err = run("check", "scratch")
    assert rc == 3 and "no runway found" in err


def test_a_folder_with_nothing_under_it_is_exit_3(tmp_path):
    (tmp_path / "empty" / "node_modules" / "x").mkdir(parents=True)
    shutil.copy(ORDERS / "runway.yaml", tmp_path / "empty" / "node_modules" / "x" / "runway.yaml")
    rc, _, err = run("check", str(tmp_path / "empty"))
    assert rc == 3 and "nor any folder under it" in err


# The OASIS schema and its URI check, shared with tests/deploy/test_ci_formats.py.
from test_ci_formats import sarif_schema, validate_sarif  # noqa: E402,F401
