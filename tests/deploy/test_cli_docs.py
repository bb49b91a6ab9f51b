"""Every command, flag and exit code of ``runway-deploy`` is documented (issue 14): the
parser's own options against docs/cli.md and the README's command table, the exit codes of
deploy_engine/exits.py against docs/cli.md's table."""

from __future__ import annotations

import re
from pathlib import Path

from deploy_engine import exits
from deploy_engine.cli.commands import COMMANDS
from deploy_engine.cli.parser import build_parser

REPO = Path(__file__).resolve().parents[2]
CLI_MD = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
README = (REPO / "README.md").read_text(encoding="utf-8")


def options() -> dict[str, set[str]]:
    parser = build_parser()
    out = {"": {o for a in parser._actions for o in a.option_strings if o.startswith("--")}}
    for name, sub in parser.commands.items():
        out[name] = {o for a in sub._actions for o in a.option_strings if o.startswith("--") and o != "--help"}
    return out


def test_every_option_of_every_command_is_in_docs_cli_md():
    missing = [(cmd, opt) for cmd, opts in options().items() for opt in sorted(opts) if f"`{opt}" not in CLI_MD and f"{opt}" not in CLI_MD]
    assert missing == []
    # And every command has its own section or synopsis line.
    for command in COMMANDS:
        assert f"runway-deploy {command.NAME}" in CLI_MD, command.NAME


def test_every_command_is_in_the_readme_table():
    table = README[README.index("## The commands"):]
    for command in COMMANDS:
        assert re.search(rf"`runway-deploy [^`]*\b{command.NAME}\b", table), command.NAME
    assert "`runway-deploy --version`" in table and "docs/ci.md" in table


def test_every_exit_code_is_in_the_exit_code_table():
    table = CLI_MD[CLI_MD.index("## Exit codes"):CLI_MD.index("## CI formats")]
    codes = {v for k, v in vars(exits).items() if k.startswith("EXIT_")}
    for code in sorted(codes):
        assert re.search(rf"^\| {code} \|", table, re.M), code
    assert "did you mean" in table and "[deploy]" in table and "--max-increase" in table
