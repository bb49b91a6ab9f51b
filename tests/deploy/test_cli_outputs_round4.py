"""``schema --output`` never replaces a runway, and an empty FILE/DIR argument is a usage error
(issue 23 item 3): ``check``/``plan`` already refuse to overwrite what they read
(:func:`deploy_engine.cli.output.refuse_input_as_output`); ``schema`` reads no runway, so it
refuses any runway file (``runway.yaml``/``runway.yml``, through a symlink too). ``--output ""``
is what a CI template with an unset variable passes (``--output "$REPORT"``): exit 64 naming the
option, as GNU coreutils refuse an empty file name (``touch ''``: "cannot touch '': No such file
or directory") instead of reporting success with nothing written.
"""

from __future__ import annotations

import os

import pytest

from deploy_engine.cli import main
from test_deploy_cli import orders  # noqa: F401


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv), environ={})
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("name", ["runway.yaml", "runway.yml", "members/api/runway.yaml"])
def test_schema_output_refuses_to_replace_a_runway(capsys, tmp_path, name):
    root = orders(tmp_path)
    target = root / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_text("environments: {dev: {}}\n", encoding="utf-8")
    before = target.read_bytes()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        rc, _, err = run(capsys, "schema", "--output", name)
    finally:
        os.chdir(cwd)
    assert rc == 3, err
    assert "is a runway file; not overwritten" in err
    assert target.read_bytes() == before


def test_schema_output_refuses_a_symlink_to_a_runway_and_writes_a_new_file(capsys, tmp_path):
    root = orders(tmp_path)
    before = (root / "runway.yaml").read_bytes()
    (tmp_path / "schema.json").symlink_to(root / "runway.yaml")
    rc, _, err = run(capsys, "schema", "--output", str(tmp_path / "schema.json"))
    assert rc == 3 and "runway file" in err, err
    assert (root / "runway.yaml").read_bytes() == before
    rc, _, err = run(capsys, "schema", "--output", str(tmp_path / "runway.schema.json"))
    assert rc == 0, err
    assert (tmp_path / "runway.schema.json").read_text().startswith("{")


@pytest.mark.parametrize("argv", [
    ["schema", "--output", ""],
    ["check", "{root}", "--output", ""],
    ["plan", "{root}", "--format", "json", "--output", ""],
    ["check", "{root}", "--catalog", ""],
    ["plan", "{root}", "--output", "   "],
    ["receipts", "export", "{root}", "--to", ""],
])
def test_an_empty_file_or_folder_argument_is_a_usage_error(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)  # a regression writes its "   " file here, not into the checkout
    root = orders(tmp_path)
    rc, out, err = run(capsys, *[a.format(root=root) for a in argv])
    assert rc == 64, (out, err)
    assert "empty" in err or "required" in err


@pytest.mark.parametrize("command", [["plan", "{root}"], ["check", "{root}"], ["preview", "{root}"], ["resources", "{root}"],
                                     ["plan", "{root}", "--format", "json"]])
def test_an_env_value_with_control_characters_is_never_echoed_raw(capsys, tmp_path, command):
    """``--env $'dev\\x1b[2J\\x07'`` (clear the screen, ring the bell): the usage error quotes it
    with escapes, as the rest of the output already shows a runway's text (deploy_engine.terminal)."""
    root = orders(tmp_path)
    rc, out, err = run(capsys, *[a.format(root=root) for a in command], "--env", "dev\x1b[2J\x07\x9b")
    assert rc == 64, (out, err)
    assert "\\x1b[2J" in err
    for c in "\x1b\x07\x9b":
        assert c not in out + err
