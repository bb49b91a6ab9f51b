"""The eighth fresh adversary's CLI findings (issue 23, round 5).

- F3: a product folder's name is input (a pull request adds it). Its newline and escape
  characters reached standard error raw in three warnings (two runways declaring one product;
  a folder holding both ``runway.yaml`` and ``runway.yml``; a path skipped past PATH_MAX), so a
  folder named ``a<LF>::error title=forged::...`` put a line of its own on stderr, which GitHub's
  runner reads for workflow commands as it reads stdout (docs.github.com, "Workflow commands
  for GitHub Actions": commands are lines of the step's output, ``::name params::message``),
  and ESC/BEL sequences drove the terminal. Every warning line is now escaped
  (:func:`deploy_engine.cli.inputs.stderr_warn`).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from deploy_engine.cli import main

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"

FORGED = "products/a\n::error title=forged::injected by a folder name\x1b]0;pwned\x07"
SHADOWED = "products/c\n::warning::yml-injected\x1b[2J"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ={})
    return rc, out.getvalue(), err.getvalue()


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def hostile_monorepo(tmp_path, monkeypatch) -> Path:
    """A git work tree: ``products/b`` and a folder named FORGED declare product ``orders``;
    a folder named SHADOWED holds both runway.yaml and runway.yml (product ``other``)."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    for name in (FORGED, "products/b", SHADOWED):
        shutil.copytree(ORDERS, ws / name)
    root = ws / SHADOWED / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace("product: orders", "product: other", 1), encoding="utf-8")
    shutil.copy(root, ws / SHADOWED / "runway.yml")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "base")
    monkeypatch.chdir(ws)
    return ws


def _forged_lines(err: str) -> list[str]:
    return [line for line in err.split("\n") if line.startswith("::")]


@pytest.mark.parametrize("argv", [
    ["check", "products", "--format", "github"],
    ["plan", "products", "--format", "json"],
    ["diff", "products", "--base", "main"],
], ids=["check", "plan", "diff"])
def test_a_folder_name_never_starts_a_line_of_its_own_in_a_warning(hostile_monorepo, argv):
    rc, _out, err = run(*argv)
    assert rc < 3, err
    # Both warnings were given (so the assertions below are about them) ...
    assert "runways declare product 'orders'" in err
    if argv[0] != "diff":  # diff names the products it compares, not their shadowed files
        assert "runway.yml is ignored" in err
    # ... with the folder names escaped: no forged workflow command, no terminal escape.
    assert _forged_lines(err) == []
    assert "\x1b" not in err and "\x07" not in err
    assert "products/a\\n::error title=forged" in err


# F2: a plan JSON side listing one environment (or one item) twice.

SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"


@pytest.fixture
def base_plan(tmp_path) -> dict:
    """``plan --format json`` of the example (its digest completed, so it has no error)."""
    import json

    shutil.copytree(ORDERS, tmp_path / "p")
    root = tmp_path / "p" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    rc, out, err = run("plan", str(tmp_path / "p"), "--format", "json")
    assert rc == 0, err
    return json.loads(out)


def _over_cap_copy(env: dict) -> dict:
    """``env`` with every amount ten times over (totals and confidences still exact sums), its
    verdict written ``over-cap``: a side ``diff`` must never pass as ok."""
    import copy
    from decimal import Decimal as D

    env = copy.deepcopy(env)
    for item in env["items"]:
        for li in item["line_items"]:
            li["monthly_usd"] = str(D(str(li["monthly_usd"])) * 10)
        item["monthly_usd"] = str(sum(D(li["monthly_usd"]) for li in item["line_items"]))
    env["total_monthly_usd"] = str(sum(D(i["monthly_usd"]) for i in env["items"]))
    confidence = {k: D(0) for k in env["price_confidence"]}
    for item in env["items"]:
        for li in item["line_items"]:
            confidence[li["confidence"]] += D(li["monthly_usd"])
    env["price_confidence"] = {k: str(v) for k, v in confidence.items()}
    env["verdict"] = "over-cap"
    return env


def _numbers(text: str) -> str:
    # The amounts above are written as JSON numbers, as plan writes them (only the amounts:
    # an engine_version "16" is a string in a plan, and a number there is refused).
    import re
    return re.sub(r'("(?:monthly_usd|total_monthly_usd|price-list|aws-static|secondary|derived|unverified)": )"(-?\d+(?:\.\d+)?)"', r"\1\2", text)


@pytest.mark.parametrize("where", ["first", "last"])
def test_an_environment_listed_twice_in_a_plan_side_is_refused_whichever_comes_first(base_plan, tmp_path, where):
    import json

    dev = next(e for e in base_plan["environments"] if e["name"] == "dev")
    head = dict(base_plan)
    envs = list(base_plan["environments"])
    head["environments"] = [_over_cap_copy(dev), *envs] if where == "first" else [*envs, _over_cap_copy(dev)]
    (tmp_path / "base.json").write_text(json.dumps(base_plan), encoding="utf-8")
    (tmp_path / "head.json").write_text(_numbers(json.dumps(head)), encoding="utf-8")
    rc, out, err = run("diff", str(tmp_path / "base.json"), str(tmp_path / "head.json"))
    # Before: "dev: no change ... ok", exit 0, with the over-cap entry listed last.
    assert rc == 3, (rc, out, err)
    assert "not a valid plan JSON document" in err and "'dev' is listed twice" in err


def test_an_item_listed_twice_in_a_plan_side_is_refused(base_plan, tmp_path):
    import copy
    import json
    from decimal import Decimal as D

    head = copy.deepcopy(base_plan)
    env = next(e for e in head["environments"] if e["items"])
    env["items"].append(copy.deepcopy(env["items"][0]))
    env["total_monthly_usd"] = str(sum(D(str(i["monthly_usd"])) for i in env["items"]))
    (tmp_path / "base.json").write_text(json.dumps(base_plan), encoding="utf-8")
    (tmp_path / "head.json").write_text(_numbers(json.dumps(head)), encoding="utf-8")
    rc, out, err = run("diff", str(tmp_path / "base.json"), str(tmp_path / "head.json"))
    # Before: the total moved while the diff said every item was unchanged, exit 0.
    assert rc == 3, (rc, out, err)
    assert f"the item {env['items'][0]['name']!r} is listed twice" in err


# F7: Pulumi resource type tokens taken for AWS secret access keys.

def _pulumi_aws_type_tokens() -> list[str]:
    """Every resource type token pulumi-aws registers (its ``__init__``'s ``_utilities.register``
    table: ``"aws:s3/bucket:Bucket"``, ... ; about 1,700), from the installed package."""
    import importlib.util
    import re

    spec = importlib.util.find_spec("pulumi_aws")
    if spec is None or spec.origin is None:
        pytest.skip("pulumi-aws is not installed")
    text = Path(spec.origin).read_text(encoding="utf-8")
    return sorted(set(re.findall(r'"(aws:[a-z0-9]+/[A-Za-z0-9]+:[A-Za-z0-9]+)"', text)))


def test_no_pulumi_aws_type_token_or_urn_looks_like_a_secret():
    from runway_core.text import redact, value_shape

    tokens = _pulumi_aws_type_tokens()
    assert "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2" in tokens
    shown = [t for t in tokens if redact(t) != t or value_shape(t) is not None]
    urn = [t for t in tokens if redact(f"urn:pulumi:dev::orders::{t}::files") != f"urn:pulumi:dev::orders::{t}::files"]
    # Before: aws:s3/bucketServerSideEncryptionConfiguration(V2) read "aws:<a value that looks like a secret>:..."
    assert shown == [] and urn == []


@pytest.mark.parametrize("text", [
    "aws:s3/bucket:Bucket AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "aws:s3/bucket:Bucket aws key x1wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "type aws:s3/bucket:Bucket wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
])
def test_a_secret_beside_a_type_token_is_still_redacted(text):
    from runway_core.text import REDACTED, redact, value_shape

    out = redact(text)
    assert "wJalrXUtnFEMI" not in out and REDACTED in out and "aws:s3/bucket:Bucket" in out
    assert value_shape(text) is not None


# Sixth adversary F6: --output naming the job's step summary file.

@pytest.mark.parametrize("command", ["check", "plan"])
@pytest.mark.parametrize("how", ["same-name", "a-link-to-it"])
def test_output_naming_the_step_summary_file_is_refused_before_anything_is_written(tmp_path, command, how):
    summary = tmp_path / "step_summary.md"
    summary.write_text("### an earlier step\n", encoding="utf-8")
    target = summary
    if how == "a-link-to-it":
        target = tmp_path / "report.sarif"
        target.symlink_to(summary)
    out, err = io.StringIO(), io.StringIO()
    rc = main([command, str(ORDERS), "--format", "sarif" if command == "check" else "json", "--output", str(target)],
              stdout=out, stderr=err, environ={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_ACTIONS": "true"})
    # Before: the report was written there, then the summary section appended to it (exit 1:
    # the example's own error), so the file was neither a SARIF log nor a summary.
    assert rc == 3, err.getvalue()
    assert "step summary file" in err.getvalue()
    assert summary.read_text(encoding="utf-8") == "### an earlier step\n"
    assert out.getvalue() == ""


# F5: usage init --force dropped the team's comments.

TEAM_USAGE = """usage: 1
# Team note: figures from Cost Explorer, Nov 2026 (ticket FIN-123) - keep!
environments:
  production:
    items:
      invoices:
        # storage lens export, see FIN-124
        storage_gb: 12.5   # measured 2026-11-30 from the S3 storage lens
# a last note
"""


def test_usage_init_force_keeps_the_teams_comments_and_is_stable(tmp_path):
    shutil.copytree(ORDERS, tmp_path / "p")
    usage = tmp_path / "p" / "runway.usage.yaml"
    usage.write_text(TEAM_USAGE, encoding="utf-8")
    rc, _out, err = run("usage", "init", str(tmp_path / "p"), "--force")
    assert rc == 0, err
    text = usage.read_text(encoding="utf-8")
    # Before: 0 of the 4 comments left (the values were kept).
    for note in ("# Team note: figures from Cost Explorer", "# storage lens export, see FIN-124",
                 "storage_gb: 12.5   # measured 2026-11-30 from the S3 storage lens", "# a last note"):
        assert note in text, note
    lines = text.split("\n")
    at = lines.index("        storage_gb: 12.5   # measured 2026-11-30 from the S3 storage lens")
    assert lines[at - 1] == "        # storage lens export, see FIN-124"
    assert lines[lines.index("environments:") - 1].startswith("# Team note")
    # The file still reads as the same usage, and a second --force changes nothing.
    from runway_core.usage import parse_usage
    assert not [d for d in parse_usage(text, str(usage)).diagnostics if d.severity.name == "ERROR"]
    rc, _out, err = run("usage", "init", str(tmp_path / "p"), "--force")
    assert rc == 0, err
    assert usage.read_text(encoding="utf-8") == text


def test_a_comment_whose_key_is_gone_is_kept_at_the_end_never_dropped():
    from runway_core.analysis.usage import carry_comments

    template = 'usage: 1\nenvironments:\n  dev:\n    items:\n      "a b":   # bucket, small\n        storage_gb: 2   # GB: stored\n'
    previous = ('usage: 1\nenvironments:\n  dev:\n    items:\n      old:\n        # why 7\n        storage_gb: 7   # from the bill\n'
                '      "a b":\n        storage_gb: 2   # quoted key, kept\n')
    out = carry_comments(template, previous)
    assert '        storage_gb: 2   # quoted key, kept' in out
    assert out.rstrip("\n").split("\n")[-3:] == ["# Comments of the earlier file whose key usage init no longer writes:",
                                                  "# why 7", "# environments.dev.items.old.storage_gb: # from the bill"]
    assert carry_comments(out, out) == out
