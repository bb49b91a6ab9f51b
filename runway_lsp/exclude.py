"""Which runway files the workspace scan leaves out: ``runway.exclude`` globs (VS Code sends its
``files.exclude`` in the same list), relative to the workspace folder.

Glob syntax as VS Code's (``files.exclude``, ``search.exclude``): ``*`` any characters but
``/``, ``**`` any number of path segments, ``?`` one character but ``/``, ``{a,b}``
alternatives, ``[abc]`` a character class; a pattern matches a path or any folder above it
(``tests/**`` and ``tests`` both exclude ``tests/x/runway.yaml``). A pattern that starts with
``/`` or has a drive is compared with the absolute path instead. Pure; must not import pulumi
or deploy_engine.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable, Sequence


def glob_regex(glob: str) -> str:
    """The regular expression (anchored) of one glob."""
    out = []
    i = 0
    depth = 0  # inside {…}
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "[":
            end = glob.find("]", i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    out.append(")" * depth)
    return "^" + "".join(out) + "$"


@dataclass(frozen=True)
class Exclusions:
    """Compiled ``runway.exclude`` globs."""

    globs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_relative", [re.compile(glob_regex(g.strip().rstrip("/"))) for g in self.globs if g.strip() and not _absolute(g)])
        object.__setattr__(self, "_absolute", [re.compile(glob_regex(g.strip().rstrip("/").replace("\\", "/"))) for g in self.globs if g.strip() and _absolute(g)])

    def __bool__(self) -> bool:
        return bool(self.globs)

    def excluded(self, path: str, folders: Sequence[str]) -> bool:
        """Whether ``path`` (absolute) or a folder above it matches a glob, relative to the
        workspace folder that holds it (absolute globs: the absolute path)."""
        if not self.globs:
            return False
        full = path.replace(os.sep, "/")
        if any(_matches_or_parent(rx, full) for rx in self._absolute):  # type: ignore[attr-defined]
            return True
        for folder in folders:
            base = os.path.join(folder, "")
            if path.startswith(base):
                rel = os.path.relpath(path, folder).replace(os.sep, "/")
                if any(_matches_or_parent(rx, rel) for rx in self._relative):  # type: ignore[attr-defined]
                    return True
        return False


def _absolute(glob: str) -> bool:
    g = glob.strip()
    return g.startswith("/") or bool(re.match(r"^[A-Za-z]:[\\/]", g))


def _matches_or_parent(rx: "re.Pattern[str]", rel: str) -> bool:
    parts = rel.split("/")
    return any(rx.match("/".join(parts[:n])) for n in range(len(parts), 0, -1))


def exclusions(globs: Iterable[str] | None) -> Exclusions:
    return Exclusions(tuple(dict.fromkeys(g for g in (globs or ()) if isinstance(g, str) and g.strip())))
