"""The GitHub Actions example of docs/deploy.md, read as YAML: what a CI user copies must work.

- the tooling is installed from a checkout of its repository (it is not on PyPI);
- the receipts folder is uploaded although it is under a hidden folder (upload-artifact v4.4+);
- the plan runs even when check failed (its cost tables explain an RW170 refusal);
- the pull-request job gets no production secret, no Infisical identity, no deploy role.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

DOC = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"


@pytest.fixture(scope="module")
def workflow() -> dict:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## GitHub Actions"):]
    block = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return YAML(typ="safe").load(block)


def steps(workflow: dict, job: str) -> list[dict]:
    return workflow["jobs"][job]["steps"]


@pytest.mark.parametrize("job", ["preview", "deploy"])
def test_the_tooling_is_installed_from_a_checkout_of_its_repository(workflow, job):
    runs = [s.get("run", "") for s in steps(workflow, job)]
    assert not any(re.search(r"pip install\s+[\"']?runway-tooling", r) for r in runs)
    (install,) = [r for r in runs if "pip install" in r]
    assert install.strip() == "pip install './tooling[deploy]'"
    checkouts = [s for s in steps(workflow, job) if s.get("uses", "").startswith("actions/checkout@")]
    assert len(checkouts) == 2 and checkouts[1]["with"]["path"] == "tooling"
    assert checkouts[1]["with"]["repository"] and checkouts[1]["with"]["ref"]


def test_receipts_are_uploaded_with_hidden_files(workflow):
    (upload,) = [s for s in steps(workflow, "deploy") if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["with"]["path"] == ".runway/receipts/" and upload["with"]["include-hidden-files"] is True
    assert upload["if"] == "always()"


def test_the_plan_runs_even_when_check_failed(workflow):
    names = [s.get("name", "") for s in steps(workflow, "preview")]
    check = next(i for i, n in enumerate(names) if n.startswith("Check"))
    plan = next(i for i, n in enumerate(names) if n.startswith("Plan"))
    assert plan < check or steps(workflow, "preview")[plan].get("if") == "always()"


def test_the_pull_request_job_holds_no_production_secret(workflow):
    preview = workflow["jobs"]["preview"]
    text = repr(preview)
    assert "environment" not in preview
    assert "secrets.PULUMI_CONFIG_PASSPHRASE" not in text and "INFISICAL" not in text and "AWS_DEPLOY_ROLE_ARN" not in text
    assert "--env production" not in text and "orders-production" not in text
    deploy = workflow["jobs"]["deploy"]
    assert deploy["environment"] == "production" and "secrets.PULUMI_CONFIG_PASSPHRASE" in repr(deploy)
