"""`runway-deploy resources --format json` and plain `env` values that look like secrets
(adversary report row L6): the ECS container definitions (a JSON string inside the JSON
document) carried the values the plan hides by name, and a private key's `\\n`-escaped body
was printed after its redacted BEGIN line. Real Pulumi program under Pulumi's mock monitor."""

from __future__ import annotations

import io
import json

from deploy_engine.cli import main
from runway_core.text import REDACTED

RUNWAY = """runway: 1
product: shop
region: us-east-1
environments:
  dev: {}
workloads:
  api:
    image: nginx@sha256:aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899
    port: 80
    health: {path: /h}
    expose: internal
    reason: "no-managed-fit: x"
    env:
      LOG_LEVEL: info
      AWS_SECRET_ACCESS_KEY: value-of-aws-secret
      GITHUB_TOKEN: value-of-github-token
      CLIENT_SECRET: value-of-client-secret
      ENCRYPTION_KEY: value-of-encryption-key
      PK: "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA0123456789abcdef\\n-----END RSA PRIVATE KEY-----"
"""


def test_container_definitions_hide_secret_env_values_as_the_plan_does(tmp_path):
    (tmp_path / "runway.yaml").write_text(RUNWAY, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["resources", "--env", "dev", str(tmp_path), "--format", "json"], stdout=out, stderr=err, environ={})
    assert code == 0, err.getvalue()
    text = out.getvalue()
    for leaked in ("value-of-", "MIIEowIBAAKCAQEA", "END RSA PRIVATE KEY"):
        assert leaked not in text, leaked
    doc = json.loads(text)
    defs = [r["inputs"]["containerDefinitions"] for r in doc["resources"] if "containerDefinitions" in r.get("inputs", {})]
    assert defs
    env = {v["name"]: v["value"] for v in json.loads(defs[0])[0]["environment"]}
    assert env["LOG_LEVEL"] == "info"  # an ordinary value is kept
    assert all(env[n] == REDACTED for n in ("AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "CLIENT_SECRET", "ENCRYPTION_KEY", "PK"))


TOKEN_NAMED = """runway: 1
product: shop
region: us-east-1
environments:
  dev: {}
resources:
  glpat-abcdefghijklmnopqrst12: {kind: bucket}
  dapi0123456789abcdef0123456789abcdef: {kind: postgres}
workloads:
  sk-abcdefghijklmnopqrstuvwxyz012345:
    image: nginx@sha256:aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899
    port: 80
    health: {path: /h}
    expose: internal
    reason: "no-managed-fit: x"
    uses: [glpat-abcdefghijklmnopqrst12, dapi0123456789abcdef0123456789abcdef]
"""


def test_token_named_entries_reach_no_resource_name_nor_injected_variable(tmp_path):
    """Round 3 (issue 16): names shaped like tokens (valid DNS labels) inside AWS names
    (`shop-dev-sk-…`: the OpenAI shape did not start after a `-`) and as the injected variables
    of the container definitions (`GLPAT_…_NAME`, `DAPI…_PASSWORD`)."""
    (tmp_path / "runway.yaml").write_text(TOKEN_NAMED, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["resources", "--env", "dev", str(tmp_path), "--format", "json"], stdout=out, stderr=err, environ={})
    assert code == 0, err.getvalue()
    text = out.getvalue() + err.getvalue()
    for leaked in ("sk-abcdefghij", "glpat-abcdefghij", "dapi0123456789", "SK_ABCDEFGHIJ", "GLPAT_ABCDEFGHIJ", "DAPI0123456789",
                   "glpat_abcdefghij", "sk_abcdefghij"):
        at = text.find(leaked)
        assert at < 0, (leaked, text[max(0, at - 200):at + 50])
    assert f"{REDACTED}_NAME" in text and f"{REDACTED}_PASSWORD" in text  # the variables, suffix kept
