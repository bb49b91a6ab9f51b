"""What the CLI's speed work (issue 14) replaced gives the same bytes: the indented JSON encoder
(``json.dumps(indent=2)``), the output redaction (``runway_core.text.redact``) and the plan
digest from the built environment JSON (``runway_core.planner.plan_digest``). The redaction's
fast paths (literal hints, the 40-character pre-scan, the memo of clean strings, the
no-copy walk of ``redact_doc``) give what every shape's ``sub`` in full gives. No timing here:
benchmarks/bench_cli.py measures it.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from deploy_engine.cli import main
from deploy_engine.cli.formats.json import dumps, environment_digest
from runway_core.planner import environment_json, plan_digest
from runway_core import text as text_module
from runway_core.text import REDACTED, SECRET_VALUE_SHAPES, redact, redact_doc

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    | st.tuples(children, children),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_dumps_is_json_dumps_indent_2(doc):
    # Issue 23: as json.dumps(allow_nan=False) (NaN/Infinity raise ValueError), with DEL, C1
    # controls and U+2028/U+2029 as \\uXXXX escapes (tests/deploy/test_json_writer.py).
    for ensure_ascii in (False, True):
        try:
            want = json.dumps(doc, indent=2, ensure_ascii=ensure_ascii, allow_nan=False)
        except ValueError:
            try:
                dumps(doc, ensure_ascii=ensure_ascii)
            except ValueError:
                continue
            raise AssertionError(f"dumps accepted {doc!r}")
        assert dumps(doc, ensure_ascii=ensure_ascii) == _escaped(want)


def _escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" if 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" else c for c in text)


def test_dumps_keys_and_errors_as_json():
    doc = {1: "a", 2.5: [True, None], True: {}, None: [], "ü": [1.5, -2.0], "n": 0.0}
    assert dumps(doc) == json.dumps(doc, indent=2, ensure_ascii=False)
    for bad in ({"ü": [math.inf]}, [-math.inf], {"n": math.nan}, {math.inf: 1}):
        try:
            dumps(bad)
        except ValueError:
            continue
        raise AssertionError(f"dumps accepted {bad!r}")
    for bad in ({"a": object()}, [1, {2}], {(1, 2): 3}, {"d": __import__("decimal").Decimal("1")}):
        try:
            json.dumps(bad, indent=2)
        except TypeError:
            pass
        else:  # pragma: no cover
            raise AssertionError(bad)
        try:
            dumps(bad)
        except TypeError:
            continue
        raise AssertionError(f"dumps accepted {bad!r}")


# Fragments that make every shape match, nearly match, or sit at a window's edge.
FRAGMENTS = [
    "AKIA" + "A" * 16, "ASIAQWERTYUIOPASDFGH", "xAKIAABCDEFGHIJKLMNOP", "AKIA" + "1" * 15,
    "-----BEGIN RSA PRIVATE KEY-----", "PRIVATE KEY-----", "ghp_" + "a" * 30, "github_pat_" + "b" * 22, "gho_short",
    "glpat-" + "x" * 20, "glpat-short", "npm_" + "N" * 36, "npm_" + "n" * 35, "SG." + "s" * 16 + "." + "t" * 16, "SG.",
    "sk-" + "o" * 32, "sk-proj-" + "p" * 32, "sk-short", "Basic dXNlcjpwYXNzd29yZA==", "Basic Authentication", "Basic ",
    "jdbc:postgresql://h/db?user=u&password=hunter2", "https://h/x?token=abc123", "?a=1&X-Amz-Security-Token=IQo", "&sig=", "?sig=[redacted]", "Password=s3cr3t;", "PWD=", "password=[redacted]",
    "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "0123456789abcdef0123456789abcdef01234567", "A" * 39 + "a", "Ab1" * 13 + "x", "=", "-",
    "xoxb-1234567890-abc", "xox", "sk_live_" + "c" * 16, "rk_test_" + "d" * 20, "_live_", "AIza" + "e" * 35,
    "eyJ" + "f" * 8 + ".eyJ" + "g" * 8 + "." + "h" * 8, "eyJ", "postgres://user:pw@host", "https://a:b@c/",
    "ftp://" + "u" * 300 + ":p@x", "x://" + "u" * 250 + ":" + "p" * 250 + "@", "s3://bucket/path@v", "://", "@", " ", "\n", "/",
    ":", "é", "\u2028", '"', "\\",
    # round 2 (adversary L1-L4): the families added, URL userinfo with an empty user or a `/`,
    # registry credentials without a scheme, tokens glued to a preceding character
    "hooks.slack.com/services/T0/B0/" + "X" * 16, "xoxe.xoxp-1-" + "m" * 10, "xapp-1-" + "A" * 10, "whsec_" + "w" * 20,
    "ya29." + "y" * 20, "pul-" + "0a" * 20, "st.abcdef12-3456-7890-abcd-ef1234567890." + "0" * 32 + "." + "f" * 32, "st.",
    "hvs." + "V" * 24, "hvb.", "FwoGZXIvYXdz" + "F" * 16, "IQoJb3JpZ2lu" + "i" * 16, "AccountKey=" + "K" * 20 + "==",
    "dop_v1_" + "d" * 64, "pypi-AgEIcHlwaS5vcmc" + "p" * 16, "AGE-SECRET-KEY-1" + "Q" * 20, "hf_" + "H" * 30,
    "shpat_" + "a" * 32, "lin_api_" + "L" * 40, "dapi" + "0" * 32, "redis://:pw@h", "mysql://u:pa/ss@h/db",
    "https://h:8080/@scope", "deploy:pw@registry.example.com/api:1", "nginx:1.25@sha256:ab", "mailto:a@b.c",
    "Bearer eyJhbGciOi.bad", "Bearer tokens.", "xghp_" + "g" * 30, "1AKIA" + "B" * 16, "=" + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "A3TX" + "C" * 16, "password: hunter2", "password: prose", "PUL_" + "0A" * 20,
    # round 3: spaced URL passwords, token-shaped names as injected variables, a key glued to
    # a character beside a word that names a key
    "postgres://app:my secret pw@db", "a://b:c d@", "GLPAT_" + "A" * 20 + "_URL", "SK_" + "B" * 32, "XOXB_" + "1" * 10,
    "DAPI" + "0" * 32 + "_NAME", "dev-sk-" + "o" * 32, "x" + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws ", "key=", "secret",
]


def redact_in_full(text: str) -> str:
    """Every shape's ``sub`` in order, no hint, no pre-scan, no memo: what ``redact`` must equal."""
    for _why, pattern in SECRET_VALUE_SHAPES:
        text = pattern.sub(REDACTED, text)
    return text_module.redact_glued_keys(text)


texts = st.lists(st.sampled_from(FRAGMENTS) | st.text(alphabet="aAkKIiSs:/@_-.xoe0123456789+= \n", max_size=12), max_size=12).map("".join)


@settings(max_examples=600, deadline=None)
@given(texts)
def test_redact_is_every_shape_in_full(text):
    text_module._CLEAN.clear()
    assert redact(text) == redact_in_full(text)
    assert redact(text) == redact_in_full(text)  # the second time from the memo when clean


@settings(max_examples=300, deadline=None)
@given(st.recursive(texts | st.integers() | st.none() | st.booleans(),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(texts, c, max_size=4), max_leaves=20))
def test_redact_doc_is_every_string_redacted_and_no_copy_when_clean(doc):
    def full(d):
        if isinstance(d, str):
            return redact_in_full(d)
        if isinstance(d, dict):
            return {full(k): full(v) for k, v in d.items()}
        if isinstance(d, list):
            return [full(v) for v in d]
        return d

    out = redact_doc(doc)
    assert out == full(doc)
    if out == doc:
        assert out is doc


def test_every_secret_shape_but_the_lone_key_has_a_literal_hint_in_its_matches():
    # A shape without a hint would make redact() skip it wrongly: each example match holds one.
    for (why, pattern), (hints, blind) in zip(SECRET_VALUE_SHAPES, text_module._HINTS):
        examples = [m.group() for f in FRAGMENTS for m in pattern.finditer(f)]
        assert examples, why
        if hints is None:
            assert pattern is text_module._LONE_KEY and all(text_module._LONE_KEY_RUN.search(e) for e in examples)
            continue
        for e in examples:
            assert any(h in (e.lower() if blind else e) for h in hints), (why, e)


def test_the_plan_digest_from_the_environment_json_is_plan_digest(catalog):
    from runway_core.analysis import analyze

    an = analyze(str(ORDERS / "runway.yaml"), catalog)
    for env in an.plans.values():
        assert environment_digest(environment_json(env), "orders", "us-east-1") == plan_digest(env, "orders", "us-east-1")
    out = io.StringIO()
    main(["plan", str(ORDERS), "--format", "json"], stdout=out, stderr=io.StringIO(), environ={})
    doc = json.loads(out.getvalue())
    assert [e["plan_digest"] for e in doc["environments"]] == [plan_digest(p, "orders", "us-east-1") for p in an.plans.values()]
    assert out.getvalue() == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def test_the_console_script_ends_with_its_output_complete(tmp_path):
    # Run as the process, main() freezes the garbage collector before exiting: nothing may be lost.
    proc = subprocess.run([sys.executable, "-m", "deploy_engine", "plan", str(ORDERS), "--format", "json"],
                          capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1  # the example's digest error
    assert json.loads(proc.stdout)["product"] == "orders" and proc.stderr.endswith("1 error, 0 warnings, 0 hints in 3 files\n")
    summary = tmp_path / "summary.md"
    proc = subprocess.run([sys.executable, "-m", "deploy_engine", "check", str(ORDERS)], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode == 1 and summary.read_text(encoding="utf-8").startswith("### runway-deploy check — ")
