"""Issue 23 item 6, the core's part: a plan JSON's ``format_version`` is the integer 1 (JSON's
``true`` and ``1.0`` compare equal to 1 in Python, and are no version: JSON Schema's own
``"type": "integer"`` refuses ``true``, and ``1.0`` is only an integer to draft 6+ validators that
compare numerically, which a version field should not rely on); a tab YAML 1.2 allows as
separation after an explicit key's ``?``/``:`` or after ``- `` gets no RW006 (YAML 1.2 §6.2
s-separate-in-line is ``s-white+``, spaces or tabs; §8.2.2 c-l-block-map-explicit-entry;
libyaml refuses these tabs, as round 3 found for ``-\\t``)."""

from __future__ import annotations

import pytest

from runway_core.plan_diff import PlanDocumentError, side_of_json
from runway_core.yamlsrc import parse_yaml


@pytest.mark.parametrize("version", [True, 1.0, "1", [1], None, 2])
def test_a_plan_json_version_other_than_the_integer_1_is_refused(version):
    with pytest.raises(PlanDocumentError, match="format_version"):
        side_of_json({"format_version": version, "environments": []})


def test_the_integer_1_is_a_plan_json_version():
    assert side_of_json({"format_version": 1, "environments": []}) is not None


def plain(node):
    """A YAML node as Python values (mappings, lists, scalars)."""
    if hasattr(node, "entries"):
        return {k.value: plain(v) for k, v in node.entries}
    if hasattr(node, "items"):
        return [plain(i) for i in node.items]
    return node.value


@pytest.mark.parametrize("text, value", [
    ("?\ta\n:\tb\n", {"a": "b"}),
    ("? \ta\n: \tb\n", {"a": "b"}),
    ("m:\n  ?\tk\n  :\tv\n", {"m": {"k": "v"}}),
    ("members:\n  - \tsvc\n  -\t \t'two'\n", {"members": ["svc", "two"]}),
])
def test_a_yaml_1_2_separating_tab_after_an_indicator_is_no_rw006(text, value):
    parsed = parse_yaml(text)
    assert [d.code for d in parsed.diagnostics] == []
    assert plain(parsed.root) == value


@pytest.mark.parametrize("text", ["members:\n  - \t- x\n", "members:\n  -\t- x\n", "a:\n\tb: c\n"])
def test_a_tab_that_indents_is_still_rw006(text):
    assert "RW006" in [d.code for d in parse_yaml(text).diagnostics]
