"""Every relative link of the docs (``](format.md#workloads)``, ``](#tests)``) names a file
that exists and, with a ``#fragment``, a heading of that file: GitHub's anchor of it (lower
case, punctuation but ``-`` and ``_`` dropped, each space a hyphen, ``-1``, ``-2`` for a
repeated heading). A renamed heading otherwise leaves a link that opens the page's top on
GitHub and in the VS Code extension's rendered reference (issue 26: format.md's link to
catalog.md's workload heading was dead)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
PAGES = sorted(DOCS.rglob("*.md")) + [REPO / "README.md", REPO / "vscode-extension" / "README.md"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose_lines(text: str) -> list[str]:
    """The lines of ``text`` outside fenced code blocks (a fence closes on its own kind, at
    least as long)."""
    out, fence = [], None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):].strip():
                fence = None
            continue
        if fence is None:
            out.append(line)
    return out


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a heading's Markdown text: the rendered text (links' labels, code
    spans' contents, no emphasis marks) in lower case, every character but letters, digits,
    ``_``, ``-`` and spaces dropped, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    out: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose_lines(page.read_text(encoding="utf-8")):
        m = _HEADING.match(line)
        if m:
            slug = github_anchor(m.group(2))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(page: Path) -> list[str]:
    """Every link target of ``page``'s prose (not in code spans nor code blocks)."""
    return [m.group(1) for line in prose_lines(page.read_text(encoding="utf-8")) for m in _LINK.finditer(_CODE_SPAN.sub("", line))]


def test_anchor_of_a_heading_is_githubs():
    assert github_anchor("RW140 — image not pinned by digest") == "rw140--image-not-pinned-by-digest"
    assert github_anchor("`uses` and injected variables") == "uses-and-injected-variables"
    assert github_anchor("workload — ECS Fargate, Linux, per task (ARM64 by default, x86 with `platform: linux/amd64`)") == (
        "workload--ecs-fargate-linux-per-task-arm64-by-default-x86-with-platform-linuxamd64"
    )
    assert github_anchor("[ADR 0493](adr/x.md) §5") == "adr-0493-5"


def test_a_repeated_heading_gets_a_number(tmp_path: Path):
    page = tmp_path / "p.md"
    page.write_text("# A\n\n## Usage\n\n```md\n## Not a heading\n```\n\n## Usage\n", encoding="utf-8")
    assert anchors(page) == {"a", "usage", "usage-1"}


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_relative_link_resolves_to_a_file_and_heading(page: Path):
    dead = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # https:, mailto:, …
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            dead.append(f"{target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            dead.append(f"{target}: no heading with that anchor in {dest.relative_to(REPO)}")
    assert not dead, f"{page.relative_to(REPO)}: " + "; ".join(dead)
