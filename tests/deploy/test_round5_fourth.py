"""Round 5 (issue 23), the fourth fresh adversary's F01, F08 (tests/deploy/test_url_credentials.py),
F10, F11 (F12: tests/core/test_secret_shapes_round2.py): writers that followed a link to one of
the process's own descriptors as if it were a file, a step summary appended to the runway read
from standard input, and folders made by recursion.

- F01: ``--output /dev/stdout > file`` (the CI form): ``/dev/stdout`` is a symlink to
  ``/proc/self/fd/1`` (proc(5): "a symbolic link to the file"), which under ``> file`` is a
  regular file, so the link was "replaced" by a temporary file: the report never reached the
  file, and as root ``/dev/stdout`` itself became a regular file for the whole container. A
  path naming one of this process's descriptors is now written through the descriptor. The
  tests use a private link made exactly like ``/dev/stdout`` (``-> /proc/self/fd/1``) and the
  literal ``/dev/fd/1``, never the machine's own ``/dev/stdout``.
- F11: ``GITHUB_STEP_SUMMARY=/dev/stdin check - --summary < runway.yaml`` appended the summary
  to runway.yaml (standard input's file was not among the inputs compared).
- F10: ``--output`` (and ``receipts export --to``, ``catalog refresh --output``) whose folder is
  missing 1,200 levels deep: RecursionError in ``os.makedirs`` (exit 70); a legal path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"


def cli(*argv: str, cwd: Path, stdout, stdin=None, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RUNWAY_", "GITHUB_"))} | (env or {})
    return subprocess.run([sys.executable, "-m", "deploy_engine", *argv], cwd=cwd, stdin=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=environ, timeout=120)


@pytest.fixture
def product(tmp_path) -> Path:
    shutil.copytree(ORDERS, tmp_path / "p")
    return tmp_path / "p"


@pytest.mark.skipif(not os.path.exists("/proc/self/fd/1"), reason="needs Linux's /proc/self/fd")
@pytest.mark.parametrize("how", ["private link to /proc/self/fd/1", "/dev/fd/1", "a link to a link"])
@pytest.mark.parametrize("command", [["check", "p", "--format", "json"], ["plan", "p", "--format", "json"], ["schema"]])
def test_output_to_this_process_stdout_under_a_redirect_lands_in_the_file(product, tmp_path, how, command):
    link = tmp_path / "mystdout"
    if how == "/dev/fd/1":
        target = "/dev/fd/1"
    else:
        os.symlink("/proc/self/fd/1", link)
        if how == "a link to a link":
            os.symlink(link, tmp_path / "hop")
            link = tmp_path / "hop"
        target = str(link)
    captured = tmp_path / "captured.txt"
    with open(captured, "w") as out:
        got = cli(*command, "--output", target, cwd=tmp_path, stdout=out)
    assert got.returncode in (0, 1), got.stderr
    text = captured.read_text()
    # The JSON report is in the file, after any text output the command printed.
    start = text.index("{")
    doc = json.loads(text[start:])
    assert "format_version" in doc or "$schema" in doc, text[:300]
    if how != "/dev/fd/1":
        assert os.readlink(tmp_path / "mystdout") == "/proc/self/fd/1"  # the link never replaced
    assert not list(tmp_path.glob(".mystdout.*.tmp")) and not list(tmp_path.glob(".hop.*.tmp"))


@pytest.mark.skipif(not os.path.exists("/proc/self/fd/0"), reason="needs Linux's /proc/self/fd")
def test_output_to_a_read_only_descriptor_is_exit_3(product, tmp_path):
    with open(product / "runway.yaml") as stdin:
        got = cli("check", "-", "--format", "json", "--output", "/dev/fd/0", cwd=tmp_path, stdout=subprocess.PIPE, stdin=stdin)
    assert got.returncode == 3 and "file this command read" in got.stderr, got.stderr
    with open(os.devnull) as stdin:
        got = cli("check", "p", "--format", "json", "--output", "/dev/fd/0", cwd=tmp_path, stdout=subprocess.PIPE, stdin=stdin)
    assert got.returncode == 3 and "open for reading only" in got.stderr, got.stderr


@pytest.mark.skipif(not os.path.exists("/proc/self/fd/0"), reason="needs Linux's /proc/self/fd")
@pytest.mark.parametrize("summary", ["/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"])
@pytest.mark.parametrize("command", [["check", "-", "--summary"], ["plan", "-", "--summary"]])
def test_a_step_summary_naming_standard_input_never_appends_to_the_runway(product, tmp_path, summary, command):
    runway = product / "runway.yaml"
    before = runway.read_bytes()
    with open(runway) as stdin:
        got = cli(*command, cwd=product, stdout=subprocess.PIPE, stdin=stdin, env={"GITHUB_STEP_SUMMARY": summary, "GITHUB_ACTIONS": "true"})
    assert got.returncode == 3, got.stderr
    assert "is a file this command read (standard input); not appended" in got.stderr, got.stderr
    assert runway.read_bytes() == before


def _deep(root: Path, levels: int) -> Path:
    return root.joinpath(*["b"] * levels)


@pytest.fixture
def deep_roots(tmp_path):
    roots = [tmp_path / "out", tmp_path / "x", tmp_path / "y"]
    yield roots
    # Removed here, iteratively: pytest's own clean-up of old temporary folders (shutil.rmtree,
    # which recurses once per level) would end a later session in RecursionError.
    from deploy_engine.folders import remove_tree

    for root in roots:
        remove_tree(root)


@pytest.mark.parametrize("command", [
    ["check", "p", "--format", "json", "--output", "{deep}/report.json"],
    ["plan", "p", "--format", "json", "--output", "{deep}/report.json"],
    ["diff", "p", "p", "--format", "json", "--output", "{deep}/report.json"],
    ["receipts", "export", "p", "--to", "{deep}"],
])
def test_a_missing_folder_1200_levels_deep_is_made_or_refused_never_a_crash(product, tmp_path, deep_roots, command):
    deep = _deep(deep_roots[0], 1200)  # 2,400+ characters: under PATH_MAX (4,096)
    argv = [a.format(deep=deep) for a in command]
    got = cli(*argv, cwd=tmp_path, stdout=subprocess.PIPE)
    assert got.returncode in (0, 1), (got.returncode, got.stderr[-300:])
    assert "internal error" not in got.stderr
    assert deep.is_dir()


def test_make_folders_makes_what_is_missing_and_refuses_a_file_on_the_way(tmp_path, deep_roots):
    from deploy_engine.folders import make_folders

    make_folders(_deep(deep_roots[1], 1500))
    assert _deep(deep_roots[1], 1500).is_dir()
    make_folders(_deep(deep_roots[1], 1500))  # already there: nothing to do
    (tmp_path / "f").write_text("")
    with pytest.raises(FileExistsError):
        make_folders(tmp_path / "f" / "g")
    with pytest.raises(OSError):
        make_folders(_deep(deep_roots[2], 2100))  # past PATH_MAX: ENAMETOOLONG, an OSError


def test_remove_tree_removes_a_tree_past_path_max_and_never_follows_a_link(tmp_path, deep_roots):
    """shutil.rmtree (TemporaryDirectory.cleanup) recurses once per level; remove_tree does not,
    and never names a path longer than three levels below its root."""
    from deploy_engine.folders import make_folders, remove_tree

    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "precious").write_text("x")
    root = deep_roots[1]
    make_folders(_deep(root, 1500))
    (_deep(root, 1500) / "leaf.txt").write_text("deep")
    (root / "b" / "out").symlink_to(kept)
    os.chdir(_deep(root, 1500))  # from here on, one level at a time: past PATH_MAX
    try:
        for _ in range(1200):
            os.mkdir("c")
            os.chdir("c")
        Path("bottom.txt").write_text("past PATH_MAX")
    finally:
        os.chdir(tmp_path)
    remove_tree(root)
    assert not root.exists() and (kept / "precious").read_text() == "x"
    remove_tree(root)  # already gone: no error


@pytest.mark.parametrize("argv", [["check", "p", "--deployed", ""], ["check", "p", "--deployed", "  "],
                                  ["preview", "p", "--env", "dev", "--backend", ""]])
def test_an_empty_deployed_file_or_backend_is_a_usage_error(product, tmp_path, argv):
    """Minor of the fourth adversary: `check --deployed ""` was exit 3 quoting `[Errno 2] ... ''`;
    `--backend ""` fell back to the embedded state. An empty FILE/URL option is exit 64 (docs/cli.md)."""
    got = cli(*argv, cwd=tmp_path, stdout=subprocess.PIPE)
    assert got.returncode == 64 and "is empty" in got.stderr, (got.returncode, got.stderr)
