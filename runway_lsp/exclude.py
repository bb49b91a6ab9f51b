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
from typing import Any, Callable, Iterable, Sequence


#: Longest ``runway.exclude`` glob accepted, in characters, and most globs in the list (VS
#: Code's ``files.exclude`` defaults are 7 short globs): past either, the setting is refused
#: with one warning naming the bound (runway_lsp/settings.py), and :class:`Exclusions` drops
#: what lies beyond. With the matcher below, a path costs O(glob length x path length) per
#: glob; the bounds keep a whole list of hostile globs to milliseconds per scanned file.
MAX_GLOB_CHARS = 256
MAX_EXCLUDE_GLOBS = 100


def glob_regex(glob: str) -> str:
    """The regular expression (anchored) of one glob: for reading only (tests, logs). Python's
    backtracking ``re`` must never run it on a path: ``**/`` thirty times, or ``*a`` thirty
    times, takes exponential / O(n^30) time on a path it does not match (issue 23); paths are
    matched by :func:`compile_glob`'s automaton instead."""
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


# The automaton: a Pike VM program (Thompson's construction; Russ Cox, "Regular Expression
# Matching Can Be Simple And Fast"). Instructions: ("chr", test) consumes one character that
# passes ``test``; ("split", a, b) and ("jmp", a) move without consuming; ("match",). Running
# it keeps the set of live instructions per character, so a path costs at most
# len(program) steps per character, whatever the glob: no backtracking.
_Program = list


def _class_test(body: str) -> Callable[[str], bool]:
    """The test of a ``[...]`` class body: ``!`` or ``^`` first negates; ``a-z`` a range (a
    reversed range matches nothing); never ``/`` (a class stays inside one path segment)."""
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    singles: set[str] = set()
    ranges: list[tuple[str, str]] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            ranges.append((body[i], body[i + 2]))
            i += 3
        else:
            singles.add(body[i])
            i += 1

    def test(c: str) -> bool:
        if c == "/":
            return False
        hit = c in singles or any(lo <= c <= hi for lo, hi in ranges)
        return hit != negated

    return test


def _any(c: str) -> bool:
    return True


def _not_slash(c: str) -> bool:
    return c != "/"


def compile_glob(glob: str) -> _Program:
    """The automaton of one glob, with the meaning :func:`glob_regex` writes: ``**/`` any
    number of leading folders (consecutive ones collapsed: ``**/**/`` is ``**/``), ``**``
    anything, ``*`` anything but ``/``, ``?`` one character but ``/``, ``{a,b}`` alternatives
    (an unclosed ``{`` closed at the end), ``[...]`` a class (an unclosed ``[`` a literal).
    Never raises."""
    prog: _Program = []
    n = len(glob)

    def emit(*ins: Any) -> int:
        prog.append(list(ins))
        return len(prog) - 1

    def star(test: Callable[[str], bool]) -> None:
        loop = emit("split", None, None)
        prog[loop][1] = emit("chr", test)
        emit("jmp", loop)
        prog[loop][2] = len(prog)

    def seq(i: int, depth: int) -> int:
        while i < n:
            c = glob[i]
            if depth and c in ",}":
                return i
            if glob.startswith("**/", i):
                while glob.startswith("**/", i):  # (?:.*/)?(?:.*/)? is (?:.*/)?
                    i += 3
                skip = emit("split", None, None)
                prog[skip][1] = len(prog)
                star(_any)
                emit("chr", "/".__eq__)
                prog[skip][2] = len(prog)
                continue
            if glob.startswith("**", i):
                while glob.startswith("*", i):
                    i += 1
                star(_any)
                continue
            if c == "*":
                while glob.startswith("*", i) and not glob.startswith("**", i):
                    i += 1
                star(_not_slash)
                continue
            if c == "?":
                emit("chr", _not_slash)
            elif c == "{":
                i = alternatives(i + 1, depth + 1)
                continue
            elif c == "[" and glob.find("]", i + 1) != -1:
                end = glob.find("]", i + 1)
                emit("chr", _class_test(glob[i + 1 : end]))
                i = end
            else:
                emit("chr", c.__eq__)
            i += 1
        return i

    def alternatives(i: int, depth: int) -> int:
        exits = []
        while True:
            fork = emit("split", None, None)
            prog[fork][1] = len(prog)
            i = seq(i, depth)
            if i < n and glob[i] == ",":
                exits.append(emit("jmp", None))
                prog[fork][2] = len(prog)
                i += 1
                continue
            prog[fork][2] = prog[fork][1]  # the last alternative: no other branch
            for j in exits:
                prog[j][1] = len(prog)
            return i + 1 if i < n else i  # past the `}` (an unclosed group ends here)

    seq(0, 0)
    emit("match")
    return prog


def _closure(prog: _Program, pcs: Iterable[int]) -> set[int]:
    live: set[int] = set()
    stack = list(pcs)
    while stack:
        pc = stack.pop()
        if pc in live:
            continue
        live.add(pc)
        ins = prog[pc]
        if ins[0] == "split":
            stack.append(ins[1])
            stack.append(ins[2])
        elif ins[0] == "jmp":
            stack.append(ins[1])
    return live


def _matches_or_parent(prog: _Program, rel: str) -> bool:
    """Whether ``rel`` or a folder above it (each prefix ending before a ``/``) matches:
    one pass over ``rel``, O(len(prog) x len(rel))."""
    done = len(prog) - 1
    live = _closure(prog, [0])
    for c in rel:
        if c == "/" and done in live:
            return True
        live = _closure(prog, [pc + 1 for pc in live if prog[pc][0] == "chr" and prog[pc][1](c)])
        if not live:
            return False
    return done in live


@dataclass(frozen=True)
class Exclusions:
    """Compiled ``runway.exclude`` globs."""

    globs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Beyond the bounds (settings refuse such a list; this holds for any other caller).
        globs = [g for g in self.globs[:MAX_EXCLUDE_GLOBS] if g.strip() and len(g) <= MAX_GLOB_CHARS]
        object.__setattr__(self, "_relative", [compile_glob(g.strip().rstrip("/")) for g in globs if not _absolute(g)])
        object.__setattr__(self, "_absolute", [compile_glob(g.strip().rstrip("/").replace("\\", "/")) for g in globs if _absolute(g)])

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


def exclusions(globs: Iterable[str] | None) -> Exclusions:
    return Exclusions(tuple(dict.fromkeys(g for g in (globs or ()) if isinstance(g, str) and g.strip())))
