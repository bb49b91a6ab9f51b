"""The CLI's JSON writer (deploy_engine/cli/formats/json.py ``dumps``) on values from systems
others control (issue 23): RFC 8259 §6 has no NaN or Infinity, so a document holding one is
refused (``json.dumps(allow_nan=False)`` raises ValueError) instead of printing JavaScript's
names that no strict parser reads; DEL, the C1 controls (U+0080–U+009F: U+009B is CSI, an
escape sequence to a terminal) and U+2028/U+2029 (line terminators to JavaScript before
ES2019, and line breaks to editors and log viewers) are written as ``\\uXXXX`` escapes, which
RFC 8259 §7 allows for any character."""

from __future__ import annotations

import json

import pytest

from deploy_engine.cli.formats.json import dumps


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), [1.0, float("inf")], {"a": {"b": float("nan")}}])
@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_non_finite_numbers_are_refused(value, ensure_ascii):
    with pytest.raises(ValueError):
        dumps({"x": value}, ensure_ascii=ensure_ascii)


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_del_c1_and_line_separators_are_escaped(ensure_ascii):
    doc = {"k\x9b": ["a\x7fb\x85c\u2028d\u2029e\x9b[2J", {"n": "\x80x\x9f"}], "plain": "café"}
    out = dumps(doc, ensure_ascii=ensure_ascii)
    for ch in ("\x7f", "\x80", "\x85", "\x9b", "\x9f", "\u2028", "\u2029"):
        assert ch not in out
    assert "\\u007f" in out and "\\u009b" in out and "\\u2028" in out and "\\u2029" in out
    assert json.loads(out) == doc
    assert ("café" in out) != ensure_ascii
