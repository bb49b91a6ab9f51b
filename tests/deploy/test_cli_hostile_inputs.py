"""The CLI against a fresh adversary's inputs (round 2 report, /work/coord/adv rows C1, C2, E1-E9,
M2, M5, M6; docs/reliability.md, "Hostile files"; docs/cli.md, "Exit codes"): forged plan JSON
fails closed, records commands refuse foreign backends, every JSON read is bounded, ``--output``
never overwrites an input nor blocks, closed or full standard streams end with one line.
Expected figures come from ``plan --format json`` of the example, never typed in.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from deploy_engine.cli import main

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHOP = "runway: 1\nproduct: shop\nregion: us-east-1\nenvironments:\n  dev:\n    limits: {monthly: 10}\n"


def run(*argv: str, environ: dict | None = None, stdin=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ=environ if environ is not None else {}, stdin=stdin)
    return rc, out.getvalue(), err.getvalue()


def child(*argv: str, cwd: Path | None = None, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """``python -m deploy_engine ARGV`` as a process (streams closed or full are a process's)."""
    environ = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "deploy_engine", *argv], cwd=cwd, env=environ, capture_output=kw.pop("capture", True),
                          timeout=120, **kw)


@pytest.fixture(scope="module")
def plan_doc(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("shop")
    (folder / "runway.yaml").write_text(SHOP + "resources:\n  jobs: {kind: queue}\n  db: {kind: postgres}\n", encoding="utf-8")
    rc, out, err = run("plan", str(folder), "--format", "json")
    assert rc in (0, 2), err
    return json.loads(out, parse_float=Decimal)


def write(path: Path, doc: dict) -> str:
    path.write_text(json.dumps(doc, default=float), encoding="utf-8")
    return str(path)


# --- C1: diff of plan JSON fails closed ------------------------------------------------------


def test_diff_recomputes_a_verdict_the_plan_json_lies_about(tmp_path, plan_doc):
    env = plan_doc["environments"][0]
    assert env["total_monthly_usd"] > 1, "the example must cost something"
    lie = json.loads(json.dumps(plan_doc, default=float))
    lie["environments"][0]["cap_monthly_usd"] = 1
    lie["environments"][0]["verdict"] = "ok"
    base = write(tmp_path / "base.json", plan_doc)
    rc, out, err = run("diff", base, write(tmp_path / "lie.json", lie))
    assert rc == 2, (out, err)
    assert "OVER THE CAP (refused)" in out and "— ok" not in out
    rc, out, _ = run("diff", base, str(tmp_path / "lie.json"), "--format", "json")
    assert rc == 2 and json.loads(out)["environments"][0]["head_verdict"] == "over-cap"
    # A missing price under a cap is "unpriced" whatever the document says.
    unpriced = json.loads(json.dumps(plan_doc, default=float))
    unpriced["environments"][0].update(cap_monthly_usd=10_000, verdict="ok", missing_prices=["sqs:request"])
    assert run("diff", base, write(tmp_path / "unpriced.json", unpriced))[0] == 2


@pytest.mark.parametrize("field, value", [
    ("cap_monthly_usd", -5), ("total_monthly_usd", -1), ("item", -1e9), ("total", "sum+1"), ("verdict", "fine"),
])
def test_diff_refuses_a_plan_json_with_impossible_money_exit_3(tmp_path, plan_doc, field, value):
    doc = json.loads(json.dumps(plan_doc, default=float))
    env = doc["environments"][0]
    if field == "item":
        env["items"][0]["monthly_usd"] = value
    elif field == "total":
        env["total_monthly_usd"] = float(Decimal(str(env["total_monthly_usd"])) + 1)
    else:
        env[field] = value
    rc, out, err = run("diff", write(tmp_path / "base.json", plan_doc), write(tmp_path / "head.json", doc))
    assert rc == 3, (out, err)
    assert "not a valid plan JSON document" in err and "Traceback" not in err


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "DEEP"])
def test_diff_refuses_nan_infinity_and_deep_json_exit_3(tmp_path, plan_doc, text):
    base = write(tmp_path / "base.json", plan_doc)
    head = tmp_path / "head.json"
    if text == "DEEP":
        head.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    else:
        head.write_text(json.dumps(plan_doc, default=float).replace(f'"total_monthly_usd": {plan_doc["environments"][0]["total_monthly_usd"]}',
                                                                    f'"total_monthly_usd": {text}', 1), encoding="utf-8")
        assert text in head.read_text(encoding="utf-8")
    rc, _, err = run("diff", base, str(head))
    assert rc == 3 and "internal error" not in err, err


def test_diff_of_a_plan_json_that_is_a_fifo_is_refused_without_blocking(tmp_path, plan_doc):
    fifo = tmp_path / "head.json"
    os.mkfifo(fifo)
    rc, _, err = run("diff", write(tmp_path / "base.json", plan_doc), str(fifo))
    assert rc == 3 and "not a regular file" in err


# --- C2: records commands follow only the backends this tool deploys to -----------------------


@pytest.mark.parametrize("url", ["gs://x", "azblob://x", "https://u:p@api.pulumi.com"])
def test_receipts_with_a_foreign_backend_exit_3(tmp_path, url):
    (tmp_path / "runway.yaml").write_text(SHOP, encoding="utf-8")
    rc, out, err = run("receipts", str(tmp_path), "--backend", url)
    assert rc == 3 and "use file://<folder> or s3://" in err and out == ""
    rc, out, _ = run("receipts", str(tmp_path), "--format", "json", environ={"PULUMI_BACKEND_URL": url})
    assert rc == 3 and json.loads(out)["error"]["exit_code"] == 3


# --- E5: a receipt that is no JSON is named, never exit 70 -------------------------------------


def test_a_deep_receipt_is_listed_as_invalid_never_a_crash(tmp_path):
    (tmp_path / "runway.yaml").write_text(SHOP, encoding="utf-8")
    folder = tmp_path / ".runway" / "receipts" / "dev"
    folder.mkdir(parents=True)
    os.chmod(tmp_path / ".runway", 0o700)
    (folder / "20260101T000000.000000Z.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    rc, out, err = run("receipts", str(tmp_path))
    assert rc == 0 and "unreadable: invalid JSON (nested deeper than" in out and "internal error" not in err
    os.mkfifo(folder / "20260102T000000.000000Z.json")
    rc, out, err = run("receipts", str(tmp_path))  # a FIFO among the receipts: never opened (it would block)
    assert rc in (0, 3) and "internal error" not in err
    with pytest.raises(Exception, match="not a regular file"):
        from deploy_engine.records.file_store import FileStore

        FileStore(tmp_path).read("receipts/dev/20260102T000000.000000Z.json")


# --- E6-E8: --output, GITHUB_STEP_SUMMARY and the standard streams ------------------------------


def shop(tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "runway.yaml").write_text(SHOP + "resources:\n  jobs: {kind: queue, size: huge}\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", ["check", "plan"])
def test_output_onto_a_file_the_command_read_is_refused_and_the_file_kept(tmp_path, command):
    folder = shop(tmp_path)
    (folder / "services").mkdir()
    member = folder / "services" / "runway.yaml"
    member.write_text("resources:\n  q2: {kind: queue}\n", encoding="utf-8")
    root = folder / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8") + "members: [services]\n", encoding="utf-8")
    os.link(root, tmp_path / "hard-link.yaml")
    for target in (root, member, tmp_path / "hard-link.yaml"):
        before = {p: p.read_bytes() for p in (root, member)}
        rc, _, err = run(command, str(folder), "--format", "json", "--output", str(target))
        assert rc == 3 and "a file this command read" in err and "not overwritten" in err, err
        assert {p: p.read_bytes() for p in (root, member)} == before


def test_diff_output_onto_a_plan_json_side_is_refused(tmp_path, plan_doc):
    base = write(tmp_path / "base.json", plan_doc)
    before = Path(base).read_bytes()
    rc, _, err = run("diff", base, base, "--format", "json", "--output", base)
    assert rc == 3 and Path(base).read_bytes() == before, err


@pytest.mark.parametrize("argv", [["check", "{p}", "--format", "json", "--output", "{f}"], ["plan", "{p}", "--output", "{f}"],
                                  ["schema", "--output", "{f}"]])
def test_output_to_a_fifo_no_one_reads_is_exit_3_and_never_blocks(tmp_path, argv):
    folder, fifo = shop(tmp_path), tmp_path / "fifo"
    os.mkfifo(fifo)
    rc, _, err = run(*[a.format(p=folder, f=fifo) for a in argv])
    assert rc == 3 and "a FIFO that no process reads" in err


def test_output_to_a_fifo_with_a_reader_or_a_device_is_written(tmp_path):
    # `--output /dev/stdout | jq` and `--output /dev/null` are ordinary CI usage.
    folder, fifo = shop(tmp_path), tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        rc, _, err = run("check", str(folder), "--format", "json", "--output", str(fifo))
        received = reader.communicate(timeout=60)[0]
    finally:
        reader.kill()
    assert rc == 1, err
    assert json.loads(received)["diagnostics"]
    rc, _, err = run("check", str(folder), "--output", "/dev/null")
    assert rc == 1 and "not written" not in err


def test_output_to_a_folder_is_exit_3(tmp_path):
    folder = shop(tmp_path)
    rc, _, err = run("check", str(folder), "--output", str(tmp_path))
    assert rc == 3 and "not written" in err


def test_a_step_summary_that_is_a_fifo_no_one_reads_is_exit_3_and_never_blocks(tmp_path):
    folder, fifo = shop(tmp_path), tmp_path / "fifo"
    os.mkfifo(fifo)
    rc, _, err = run("check", str(folder), environ={"GITHUB_STEP_SUMMARY": str(fifo)})
    assert rc == 3 and "GITHUB_STEP_SUMMARY" in err and "a FIFO that no process reads" in err
    summary = tmp_path / "summary.md"
    rc, _, err = run("plan", str(folder), environ={"GITHUB_STEP_SUMMARY": str(summary)})
    assert rc == 1 and "### runway-deploy plan" in summary.read_text(encoding="utf-8")  # a regular file still works


def test_a_step_summary_that_is_a_link_to_nothing_is_exit_3_and_creates_no_file(tmp_path):
    # The fifth adversary's notes: appending through a dangling link created its target,
    # wherever it pointed. GitHub's runner makes the summary file before the step; actions/core
    # (summary.ts ``filePath``) refuses one it cannot access ("Unable to access summary file").
    folder, link, target = shop(tmp_path), tmp_path / "summary.md", tmp_path / "elsewhere" / "made.md"
    target.parent.mkdir()
    link.symlink_to(target)
    rc, _, err = run("plan", str(folder), environ={"GITHUB_STEP_SUMMARY": str(link)})
    assert rc == 3 and "GITHUB_STEP_SUMMARY" in err and "a symbolic link to nothing" in err, err
    assert not target.exists() and link.is_symlink()
    target.write_text("", encoding="utf-8")  # a link to an existing file is appended through
    rc, _, err = run("plan", str(folder), environ={"GITHUB_STEP_SUMMARY": str(link)})
    assert rc == 1 and "### runway-deploy plan" in target.read_text(encoding="utf-8"), err


def test_closed_or_full_standard_streams_end_with_one_line_exit_3(tmp_path):
    folder = shop(tmp_path)
    closed_out = child("plan", str(folder), stdout=None, capture=False, stderr=subprocess.PIPE,
                       preexec_fn=lambda: os.close(1))
    assert closed_out.returncode == 3 and closed_out.stderr.decode().strip().count("\n") == 0
    assert "standard output is closed" in closed_out.stderr.decode()
    closed_in = child("check", "-", capture=False, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      preexec_fn=lambda: os.close(0))
    assert closed_in.returncode == 3 and "standard input is closed" in closed_in.stderr.decode()
    with open("/dev/full", "w") as full:
        proc = child("plan", str(folder), "--details", capture=False, stdout=full, stderr=subprocess.PIPE)
    err = proc.stderr.decode()
    assert proc.returncode == 3 and err.strip() .endswith("cannot write standard output: No space left on device"), err
    assert "Traceback" not in err and "Exception ignored" not in err


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["plan", "--help"]])
def test_help_or_version_to_a_full_stream_is_exit_3_and_to_a_closed_pipe_exit_0(argv):
    # argparse writes --help/--version and swallows OSError (CPython 3.11 argparse.py
    # ``_print_message``: ``except (AttributeError, OSError): pass``): `--help > /dev/full`
    # exited 0 with nothing written (fifth adversary's notes).
    with open("/dev/full", "w") as full:
        proc = child(*argv, capture=False, stdout=full, stderr=subprocess.PIPE)
    err = proc.stderr.decode()
    assert proc.returncode == 3 and err.strip() == "runway-deploy: cannot write standard output: No space left on device", err
    reader = child(*argv, capture=True)
    assert reader.returncode == 0 and reader.stdout.decode().startswith(("usage: ", "runway-deploy 0.1"))
    # `--help | head -c 10`: the reader goes away; not a failure, and nothing on stderr.
    head = subprocess.run(f"PYTHONPATH={REPO} {sys.executable} -m deploy_engine {' '.join(argv)} | head -c 10 >/dev/null; echo ${{PIPESTATUS[0]}}",
                          shell=True, executable="/bin/bash", capture_output=True, text=True, timeout=60)
    assert head.stdout.strip() == "0" and head.stderr == "", head


# --- E3, E4: --network FILE and catalog refresh sources go through the bounded JSON reader ------


def deep(path: Path, levels: int = 50_000) -> Path:
    path.write_text('{"a":' * levels + "1" + "}" * levels, encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["fifo", "device", "deep", "nan"])
def test_resources_network_file_that_is_hostile_is_exit_3(tmp_path, kind):
    folder = shop(tmp_path)
    (folder / "runway.yaml").write_text(SHOP + "resources:\n  jobs: {kind: queue}\n", encoding="utf-8")
    network = tmp_path / "network.json"
    if kind == "fifo":
        os.mkfifo(network)
    elif kind == "device":
        network = Path("/dev/zero")
    elif kind == "deep":
        deep(network)
    else:
        network.write_text('{"vpc_id": NaN}', encoding="utf-8")
    rc, _, err = run("resources", str(folder), "--env", "dev", "--network", str(network))
    assert rc == 3 and "network settings file" in err and "internal error" not in err, err


@pytest.mark.parametrize("kind", ["fifo", "device", "deep"])
def test_catalog_refresh_from_a_hostile_file_mirror_is_exit_3(tmp_path, kind):
    offers = tmp_path / "mirror" / "offers" / "v1.0" / "aws"
    offers.mkdir(parents=True)
    index = offers / "index.json"
    if kind == "fifo":
        os.mkfifo(index)
    elif kind == "device":
        index.symlink_to("/dev/zero")
    else:
        index.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    rc, _, err = run("catalog", "refresh", "--region", "us-east-1", "--output", str(tmp_path / "out"),
                     "--source", f"file://{tmp_path / 'mirror'}")
    # A link to /dev/zero is refused as leading out of the mirror (issue 23: paths stay inside it).
    assert rc == 3 and ("not a regular file" in err or "leads out of the mirror" in err or "nested deeper than 64 levels" in err), err
    assert not (tmp_path / "out").exists()


# --- E2, E9: symlinks at a base revision, paths longer than PATH_MAX --------------------------------


@pytest.mark.parametrize("target", ["/etc", "../../../etc"])
def test_diff_base_whose_tree_holds_an_escaping_symlink_is_exit_3_with_the_reason(tmp_path, monkeypatch, target):
    repo = tmp_path / "repo"
    (repo / "services" / "b").mkdir(parents=True)
    (repo / "runway.yaml").write_text(SHOP + "members: [services/a, services/b]\n", encoding="utf-8")
    (repo / "services" / "a").symlink_to(target)
    (repo / "services" / "b" / "runway.yaml").write_text("resources:\n  q: {kind: queue}\n", encoding="utf-8")
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "symlink"], check=True)
    monkeypatch.chdir(repo)
    rc, _, err = run("diff", ".", "--base", "HEAD")
    assert rc == 3 and "services/a at HEAD is a symlink" in err and "never followed" in err, err
    rc, out, _ = run("check", ".")  # the working tree: RW151 on the member, as before
    assert rc == 1 and "RW151" in out


def test_a_path_longer_than_path_max_in_the_folder_walk_is_skipped_with_a_warning(tmp_path):
    (tmp_path / "ok" ).mkdir()
    (tmp_path / "ok" / "runway.yaml").write_text(SHOP, encoding="utf-8")
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        for _ in range(25):  # 25 x 200 characters: past PATH_MAX (4,096), made with mkdirat
            os.mkdir("d" * 200, dir_fd=fd)
            new = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new
        os.close(os.open("runway.yaml", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)
    rc, out, err = run("check", str(tmp_path))
    assert rc == 0 and "warning: skipped" in err and "File name too long" in err and "internal error" not in err, err
    rc, _, err = run("check", "")
    assert rc == 3 and "PATH is empty" in err


# --- M2, M5, M6 ------------------------------------------------------------------------------------


def test_diff_side_that_is_neither_a_runway_nor_a_plan_json_is_exit_3(tmp_path, monkeypatch):
    (tmp_path / "runway.yaml").write_text(SHOP, encoding="utf-8")
    (tmp_path / "junk.txt").write_text("hello\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rc, _, err = run("diff", "junk.txt", "runway.yaml")
    assert rc == 3 and "neither a runway" in err
    assert run("diff", "runway.yaml", "runway.yaml")[0] in (0, 2)  # a runway file still is a side


@pytest.mark.parametrize("amount", ["1_000", "1e3", "Infinity", "1,00", "-5"])
def test_max_increase_refuses_what_a_yaml_cap_refuses_exit_64(tmp_path, amount):
    (tmp_path / "runway.yaml").write_text(SHOP, encoding="utf-8")
    rc, _, err = run("diff", str(tmp_path), str(tmp_path), "--max-increase", amount)
    assert rc == 64 and "is not an amount in USD" in err
    for ok in ("1000", "1,000", "$99.50"):
        assert run("diff", str(tmp_path), str(tmp_path), "--max-increase", ok)[0] in (0, 2)


def test_a_folder_with_runway_yaml_and_runway_yml_warns_naming_the_ignored_one(tmp_path):
    (tmp_path / "runway.yaml").write_text(SHOP, encoding="utf-8")
    (tmp_path / "runway.yml").write_text("runway: 1\nproduct: other\n", encoding="utf-8")
    for command in ("check", "plan"):
        rc, out, err = run(command, str(tmp_path))
        assert "runway.yml is ignored: its folder also holds runway.yaml" in err, err
        assert "other" not in out
