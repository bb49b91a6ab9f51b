"""Workspace analysis: root + member runways read, validated, checked and planned together.

One :func:`analyze` call is what every face uses: the CLI's ``check`` and ``plan``, the
language server's diagnostics and hovers, and (through the plan) the Pulumi program. It reads
files through a caller-supplied ``read`` function so that an editor's open buffers take
precedence over the disk (STYLE.md §6: pass things in).

Never raises for bad input: every problem is a :class:`Diagnostic` of the file it concerns.
Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import difflib
import gc
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from pydantic import BaseModel, ValidationError

from .catalog import Catalog
from .diagnostics import Diagnostic, Severity
from .model import (
    DEFAULT_CAPS,
    ENGINE_MODELS,
    ENTRIES_ERROR,
    RESOURCE_KINDS,
    Environment,
    MemberRunway,
    Resource,
    RootRunway,
    Workload,
    model_for,
)
from .planner import (
    ConsumerSpec,
    EntrySpec,
    EnvironmentPlan,
    EnvSpec,
    RunwaySpec,
    default_environments,
    engine_defaults,
    plan_environment,
)
from .positions import Position, Range
from .yamlsrc import ParsedYaml, YMap, YNode, YScalar, YSeq, find_path, parse_yaml, resolve_plain, to_python

ROOT_NAMES = ("runway.yaml", "runway.yml")
#: Largest runway file read from disk (a 10 MB file is hostile input, not a runway).
#: Largest runway analysed, in characters (UTF-8 bytes on disk). A real runway is a few
#: kilobytes; the ×8 benchmark workspace's root is ~0.8 MB. Past this, RW011 instead of a parse
#: (analysis memory grows ~350 bytes per character: a bound, not a hang).
MAX_FILE_CHARS = 1024 * 1024
MAX_FILE_BYTES = MAX_FILE_CHARS


class FileTooLarge(OSError):
    """A runway file over the limit; ``size`` in ``unit`` ("bytes" on disk, "characters" in
    an editor buffer)."""

    def __init__(self, size: int, unit: str = "bytes") -> None:
        super().__init__(f"the file is {size:,} {unit}, over the 1 MiB limit for a runway")
        self.size = size
        self.unit = unit

Reader = Callable[[str], str]


def read_disk(path: str) -> str:
    """Read a runway file from disk as UTF-8 (a BOM is kept and reported by the loader).

    Raises :class:`FileTooLarge` past :data:`MAX_FILE_BYTES` (read no further), OSError when
    unreadable, UnicodeDecodeError when not UTF-8.
    """
    with open(path, "rb") as fh:
        data = fh.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            fh.seek(0, os.SEEK_END)
            raise FileTooLarge(fh.tell())
    return data.decode("utf-8")


def _too_large(path: str, exc: FileTooLarge) -> Diagnostic:
    return Diagnostic(path, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "RW011",
                      f"the file is {exc.size:,} {exc.unit}, over the 1 MiB ({MAX_FILE_CHARS:,}) limit for a runway; it is not analysed")


def suggest(word: str, options: Iterable[str]) -> str | None:
    """The closest option to ``word`` (difflib ratio >= 0.6), or None."""
    m = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return m[0] if m else None


# --------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------


@dataclass
class SourceFile:
    """One runway file as analysed. ``role`` is ``root`` or ``member``."""

    path: str
    role: str
    parsed: ParsedYaml
    member_name: str | None = None
    folder: str | None = None  # the member's folder as written in the root's `members`


@dataclass(frozen=True)
class Symbol:
    """A declared (or implicit) resource/workload. ``type`` is resource | workload | implicit."""

    name: str
    type: str
    kind: str | None
    file: str | None
    range: Range | None  # the declaring key (None for implicit)
    origins: tuple[tuple[str, Range], ...] = ()  # where an implicit one comes from


@dataclass(frozen=True)
class Reference:
    """A use of ``name`` at ``range`` of ``file`` by ``consumer`` (``via`` uses|requires|shared)."""

    name: str
    file: str
    range: Range
    consumer: str
    via: str


@dataclass
class Analysis:
    """Everything known about one root runway and its members.

    ``diagnostics`` has an entry (maybe empty) for every file read or named; ``spec`` is the
    planner's input (None only when the root is unreadable or not a mapping); ``plans`` maps
    environment name to its :class:`EnvironmentPlan`.
    """

    root_file: str
    catalog: Catalog
    files: dict[str, SourceFile] = field(default_factory=dict)
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    spec: RunwaySpec | None = None
    plans: dict[str, EnvironmentPlan] = field(default_factory=dict)
    symbols: dict[str, Symbol] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)
    env_keys: dict[str, Range] = field(default_factory=dict)  # env name -> key range in root
    root_model: RootRunway | None = None
    member_models: dict[str, MemberRunway] = field(default_factory=dict)  # file -> model
    workload_models: dict[str, Workload] = field(default_factory=dict)
    resource_models: dict[str, Resource] = field(default_factory=dict)
    environment_names: tuple[str, ...] = ()
    environments_declared: bool = False
    #: file -> (count, errors among them) of diagnostics known to fall past the per-file cap,
    #: counted in RW012 but never built (issue 7: an 85,000-item `members` line).
    uncounted: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def root(self) -> SourceFile:
        return self.files[self.root_file]

    def add(self, diag: Diagnostic) -> None:
        self.diagnostics.setdefault(diag.file, []).append(diag)

    def all_diagnostics(self) -> list[Diagnostic]:
        out = [d for ds in self.diagnostics.values() for d in ds]
        out.sort(key=Diagnostic.sort_key)
        return out

    def has_errors(self) -> bool:
        return any(d.severity == Severity.ERROR for ds in self.diagnostics.values() for d in ds)

    def member_files(self) -> list[str]:
        return [p for p, f in self.files.items() if f.role == "member"]


# --------------------------------------------------------------------------------------
# Validation (pydantic errors -> positioned diagnostics)
# --------------------------------------------------------------------------------------


def _clean_msg(msg: str) -> str:
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    # pydantic's "a valid dictionary or instance of Health" -> the YAML word, no class names.
    return re.sub(r"a valid dictionary( or instance of \w+)?", "a mapping", msg)


def _yaml_hint(etype: str, node: YNode | None, exact: bool) -> str:
    """Why a scalar has the wrong type under YAML 1.2 (`no` is a string, `1e3` a float)."""
    if not exact or not isinstance(node, YScalar):
        return ""
    if node.value is None and etype.endswith("_type"):
        return "; the value is empty"
    if etype not in ("bool_type", "int_type", "int_from_float", "decimal_type"):
        return ""
    want = "`true` or `false`" if etype == "bool_type" else "the number"
    if isinstance(node.value, str) and node.style in ("'", '"'):
        unquoted = resolve_plain(node.value.strip()) if "\n" not in node.value else None
        fits = isinstance(unquoted, bool) if etype == "bool_type" else isinstance(unquoted, (int, float)) and not isinstance(unquoted, bool)
        return f"; `{node.style}{node.text}{node.style}` is a quoted string" + (f"; write {want} without quotes" if fits else "")
    if isinstance(node.value, str):
        return f"; `{node.text}` is a string in YAML 1.2" + (f"; write {want}" if etype == "bool_type" else "")
    if isinstance(node.value, float):
        digits = node.text.lstrip("+-")
        if abs(node.value) == float("inf") and digits.isdigit():
            # Too many digits for Python's int (yamlsrc.resolve_plain): never echo them all.
            return f"; the number has {len(digits):,} digits, far past any value a runway holds"
        return f"; `{node.text}` is a number with a fraction or exponent (a float in YAML 1.2)"
    return ""


def _dotted(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) if loc else "(top level)"


def _top_range(parsed: ParsedYaml) -> Range:
    root = parsed.root
    if isinstance(root, YMap) and root.entries:
        return root.entries[0][0].range
    return Range(Position(0, 0), Position(0, 0))


def validation_diagnostics(
    exc: ValidationError,
    prefix: tuple[Any, ...],
    parsed: ParsedYaml,
    member: bool,
    kind: str | None = None,
) -> list[Diagnostic]:
    """Map each pydantic error of a model validated at ``prefix`` to a YAML range.

    Codes: RW101 missing key (range: the parent key), RW102 unknown key (the key itself, with
    the closest known key suggested in the message and ``data.suggestion``), RW100 otherwise.
    """
    out: list[Diagnostic] = []
    root = parsed.root
    for err in exc.errors(include_url=False):
        loc = prefix + tuple(err["loc"])
        etype = err["type"]
        if etype == "missing":
            parent = loc[:-1]
            node, key_node, depth = find_path(root, parent)
            rng = key_node.range if (key_node is not None and depth == len(parent)) else _top_range(parsed)
            where = f" in {_dotted(parent)}" if parent else ""
            out.append(
                Diagnostic(parsed.path, rng, Severity.ERROR, "RW101", f"missing required key `{loc[-1]}`{where}", {"key": str(loc[-1]), "path": list(map(str, parent))})
            )
        elif etype == "extra_forbidden":
            node, key_node, depth = find_path(root, loc)
            rng = key_node.range if (key_node is not None and depth == len(loc)) else _top_range(parsed)
            model = model_for(tuple(loc[:-1]), member, kind)
            known = list(model.model_fields) if model is not None else []
            sug = suggest(str(loc[-1]), known)
            hint = f"; did you mean `{sug}`?" if sug else (f"; known keys: {', '.join(known)}" if known else "")
            out.append(
                Diagnostic(parsed.path, rng, Severity.ERROR, "RW102", f"unknown key `{loc[-1]}`{hint}", {"key": str(loc[-1]), "suggestion": sug, "known": known})
            )
        elif etype == ENTRIES_ERROR and (err.get("ctx") or {}).get("entries"):
            # A map with bad entries (`env`, `size`, `scale`): one diagnostic per entry, each
            # at its own value, never one for the first entry or for the whole map.
            for key, msg in err["ctx"]["entries"]:
                sub = loc + (key,)
                node, key_node, depth = find_path(root, sub)
                out.append(Diagnostic(parsed.path, _value_range(parsed, sub, node, key_node, depth), Severity.ERROR, "RW100", f"{_dotted(sub)}: {msg}"))
        else:
            node, key_node, depth = find_path(root, loc)
            rng = _value_range(parsed, loc, node, key_node, depth)
            out.append(Diagnostic(parsed.path, rng, Severity.ERROR, "RW100", f"{_dotted(loc)}: {_clean_msg(err['msg'])}{_yaml_hint(etype, node, depth == len(loc))}"))
    return out


def _value_range(parsed: ParsedYaml, loc: tuple[Any, ...], node: YNode | None, key_node: YScalar | None, depth: int) -> Range:
    """Where a wrong value at ``loc`` is reported: the value itself, narrowed so that it never
    spans more than one line (a 3,000-line list of the wrong type is reported at its key, or
    at the first line of a list item, not over 3,000 lines)."""
    if node is None:
        return _top_range(parsed)
    rng = node.range
    if depth < len(loc) and key_node is not None and isinstance(node, YMap):
        return key_node.range
    if isinstance(node, YScalar) and node.value is None and node.range.start == node.range.end and key_node is not None:
        return key_node.range  # `port:` with nothing after it: point at the key, not at an empty range
    if isinstance(node, (YMap, YSeq)) and rng.start.line != rng.end.line:
        if key_node is not None and depth == len(loc) and loc and loc[-1] == key_node.text:
            return key_node.range  # the value of this key is wrong as a whole
        lines = parsed.lines
        return Range(rng.start, Position(rng.start.line, lines.line_end(rng.start.line) - lines.line_start(rng.start.line)))
    return rng


def _validate(model: type[BaseModel], data: Any, prefix: tuple[Any, ...], parsed: ParsedYaml, analysis: Analysis, member: bool = False, kind: str | None = None) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        for d in validation_diagnostics(exc, prefix, parsed, member, kind):
            analysis.add(d)
        return None


# --------------------------------------------------------------------------------------
# Analysis
# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
# Per-file reuse (issue 6): an edit re-parses the file it changed, not the files it did not
# --------------------------------------------------------------------------------------

#: path -> (text, parse) of the last text parsed for that path; a parse is reused while the
#: text is the same (compared in full). Trees are never mutated after parsing, so sharing one
#: between analyses is safe. Bounded: cleared past :data:`_FILE_CACHE_MAX` paths.
_PARSES: dict[str, tuple[str, ParsedYaml]] = {}
#: path -> (parse, member model or None, its validation diagnostics), valid for that parse.
_MEMBER_MODELS: dict[str, tuple[ParsedYaml, Any, list[Diagnostic]]] = {}
_FILE_CACHE_MAX = 2048


def parse_file(text: str, path: str) -> ParsedYaml:
    """:func:`parse_yaml` of ``text``, reused while ``path``'s text has not changed."""
    hit = _PARSES.get(path)
    if hit is not None and hit[0] == text:
        return hit[1]
    parsed = parse_yaml(text, path)
    if len(_PARSES) >= _FILE_CACHE_MAX:
        clear_file_cache()
    _PARSES[path] = (text, parsed)
    return parsed


def _validate_member(mp: ParsedYaml, an: Analysis) -> Any:
    """``MemberRunway`` of a member's tree (diagnostics added to ``an``), reused per parse."""
    hit = _MEMBER_MODELS.get(mp.path)
    if hit is None or hit[0] is not mp:
        scratch = Analysis(root_file=mp.path, catalog=an.catalog)
        model = _validate(MemberRunway, to_python(mp.root), (), mp, scratch, member=True)
        hit = (mp, model, [d for ds in scratch.diagnostics.values() for d in ds])
        if _PARSES.get(mp.path, (None, None))[1] is mp:  # only parses the cache holds
            _MEMBER_MODELS[mp.path] = hit
    for d in hit[2]:
        an.add(d)
    return hit[1]


def clear_file_cache() -> None:
    """Forget every reused parse and model (tests; a process that wants the memory back)."""
    _PARSES.clear()
    _MEMBER_MODELS.clear()
    _ENTRY_MODELS.clear()


def find_root(start: str, read: Reader | None = None) -> str | None:
    """Walk up from ``start`` (a file or folder) to the nearest root runway: a runway file with
    a top-level ``product`` key. Returns its path; when none is found above, the first runway
    file met (so that a broken root, or a lone member, is still analysed and diagnosed).

    ``read`` (default :func:`read_disk`) supplies file text, so that an editor's open buffers
    decide root-or-member (and count even when not yet saved to disk)."""
    p = Path(start).resolve()
    folder = p if p.is_dir() else p.parent
    first: str | None = None
    for d in [folder, *folder.parents]:
        for name in ROOT_NAMES:
            f = d / name
            if f.is_file() or read is not None:
                try:
                    head = (read or read_disk)(str(f))[:4096]
                except (OSError, UnicodeDecodeError):
                    if not f.is_file():
                        continue
                    # Too large or not UTF-8: its first bytes still tell a root (then RW011 or
                    # RW001 on it) from a member; never walk past a broken root to another one.
                    try:
                        with open(f, "rb") as fh:
                            head = fh.read(4096).decode("utf-8", "replace")
                    except OSError:
                        head = ""
                if first is None:
                    first = str(f)
                if "\nproduct:" in "\n" + head:
                    return str(f)
                break  # a member (or a broken file): keep walking up
    return first


_ROOT_ONLY_KEYS = frozenset({"product", "region", "members", "environments", "resources", "workloads"})
_MEMBER_ONLY_KEYS = frozenset({"member", "requires", "uses"})


def is_lone_member(parsed: ParsedYaml) -> bool:
    """True when a file analysed as a root is really a member runway (member keys, no root
    keys): it is then checked as a member and told that no root lists it."""
    root = parsed.root
    if not isinstance(root, YMap):
        return False
    keys = set(root.keys())
    return bool(keys & _MEMBER_ONLY_KEYS) and not (keys & _ROOT_ONLY_KEYS)


def _inside(base: str, real: str) -> bool:
    """True when the resolved path ``real`` lies inside the resolved folder ``base``."""
    return os.path.commonpath([base, real]) == base


def _member_folder(base: str, rel: str) -> tuple[str | None, str | None]:
    """Resolve a member path against ``base``, the root runway's resolved folder; (folder,
    None) or (None, reason) when it escapes or is absolute."""
    if os.path.isabs(rel) or rel.startswith("~"):
        return None, "member paths are relative to the root runway's folder; absolute paths are refused"
    target = os.path.realpath(os.path.join(base, rel))
    if os.path.commonpath([base, target]) != base:
        return None, "the member path leaves the product's repository (via `..` or a symlink); refused, never read"
    if target == base:
        return None, "a member folder cannot be the root runway's own folder"
    return target, None


def analyze(root_file: str, catalog: Catalog, read: Reader | None = None, previous: Analysis | None = None) -> Analysis:
    """Analyse the root runway at ``root_file`` and every member it lists.

    ``read(path) -> str`` supplies file text (default :func:`read_disk`); it may raise
    OSError or UnicodeDecodeError, which become diagnostics. Returns an :class:`Analysis`.
    ``previous``, an earlier analysis (an editor's, before the last keystroke), only saves
    work: plan items whose inputs did not change are reused from it; the result is the same.

    The cyclic garbage collector is paused while it runs: an analysis allocates tens of
    thousands of objects and makes no reference cycle, and the collections it would trigger
    walk every live object again and again (issue 6: they made analysis time grow faster
    than the file, ×14 for ×8 the lines). Its garbage is freed by reference counting.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _analyze(root_file, catalog, read, previous)
    finally:
        if enabled:
            gc.enable()


def _analyze(root_file: str, catalog: Catalog, read: Reader | None, previous: Analysis | None) -> Analysis:
    from . import rules  # local: rules import this module's types

    read = read or read_disk
    root_file = os.path.abspath(root_file)
    an = Analysis(root_file=root_file, catalog=catalog)
    an.diagnostics[root_file] = []
    try:
        text = read(root_file)
        if len(text) > MAX_FILE_CHARS:
            raise FileTooLarge(len(text), "characters")
    except FileTooLarge as exc:
        an.add(_too_large(root_file, exc))
        text = None
    except UnicodeDecodeError as exc:
        an.add(Diagnostic(root_file, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "RW001", f"the file is not UTF-8 text (byte {exc.start})"))
        text = None
    except OSError as exc:
        an.add(Diagnostic(root_file, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "RW151", f"cannot read the runway: {exc.strerror or exc}"))
        text = None
    parsed = parse_file(text, root_file) if text is not None else parse_yaml("", root_file)
    if text is None:
        parsed.diagnostics = []
    an.files[root_file] = SourceFile(root_file, "root", parsed)
    for d in parsed.diagnostics:
        an.add(d)
    if text is None or parsed.root is None:
        return an
    root = parsed.root
    if not isinstance(root, YMap):
        an.add(Diagnostic(root_file, root.range, Severity.ERROR, "RW100", "a runway is a mapping of keys (`runway: 1`, `product: ...`)"))
        return an
    if parsed.partial:
        # A syntax error cut the tree short: schema and rules would report the cut as
        # missing keys. Features (hover, completion) still use the partial tree.
        return an
    if is_lone_member(parsed):
        _analyze_lone_member(an, parsed)
        return an

    _analyze_root(an, parsed)
    _analyze_members(an, parsed, read)
    _build_spec(an, previous)
    if an.spec is not None:
        prev = previous if previous is not None and previous.spec is not None and previous.catalog is catalog else None
        for env in an.spec.environments:
            old = prev.plans.get(env.name) if prev is not None else None
            an.plans[env.name] = plan_environment(an.spec, catalog, env.name, (prev.spec, old) if prev is not None and old is not None else None)  # type: ignore[union-attr]
    for rule in rules.RULES:
        for d in rule(an):
            an.add(d)
    for f, ds in an.diagnostics.items():
        # An aliased or merged node is one node: report its problem once, not once per use.
        an.diagnostics[f] = [rules.redacted(d) for d in _capped(sorted(dict.fromkeys(ds), key=Diagnostic.sort_key), an.uncounted.get(f, (0, 0)))]
    return an


#: Most diagnostics reported per file (RW012 says how many more there are). A runway has a
#: few; a hostile or generated file can have ~100,000 (a 1 MB line of repeated items), and
#: every editor and CI face would then spend seconds and hundreds of MB on them.
MAX_DIAGNOSTICS_PER_FILE = 500


def _capped(ds: list[Diagnostic], uncounted: tuple[int, int] = (0, 0)) -> list[Diagnostic]:
    """The first :data:`MAX_DIAGNOSTICS_PER_FILE` diagnostics of a sorted list, then one RW012
    (an error, so a check still fails) at the first one left out, counting those left out and
    ``uncounted`` = (diagnostics known to lie past the cap and never built, errors among them)."""
    if len(ds) <= MAX_DIAGNOSTICS_PER_FILE:
        return ds
    first = ds[MAX_DIAGNOSTICS_PER_FILE]
    more = len(ds) - MAX_DIAGNOSTICS_PER_FILE + uncounted[0]
    errors = sum(1 for d in ds[MAX_DIAGNOSTICS_PER_FILE:] if d.severity == Severity.ERROR) + uncounted[1]
    return ds[:MAX_DIAGNOSTICS_PER_FILE] + [
        Diagnostic(first.file, first.range, Severity.ERROR, "RW012",
                   f"{more:,} more {'problem' if more == 1 else 'problems'} from here on {'is' if more == 1 else 'are'} not shown "
                   f"({errors:,} of them {'an error' if errors == 1 and more == 1 else 'errors'}): a file reports at most "
                   f"{MAX_DIAGNOSTICS_PER_FILE} problems; fix the ones above first", {"more": more, "errors": errors})
    ]


#: root path -> {(section, key column, entry text): model} of the resources and workloads that
#: validated without any diagnostic in the last analysis of that root. An entry whose text is
#: the same again (every entry but the one being typed in) reuses its model instead of being
#: converted and validated again (issue 6). Rebuilt at each analysis: it holds only entries
#: the root still has.
_ENTRY_MODELS: dict[str, dict[tuple[str, int, str], Any]] = {}
#: Text that makes an entry's value depend on more than its own text (aliases, anchors, merge
#: keys, tags): such an entry is always converted and validated.
_NOT_LOCAL = ("*", "&", "<<", "!")


def _entry_text_keys(parsed: ParsedYaml, root: YMap, sect: str, sect_node: YMap) -> list[tuple[str, int, str]] | None:
    """The reuse key of each entry of a block section: its text from its key to the next
    entry's key (the last: to the next top-level key, or the end), and its key's column.
    None when the section is a flow mapping, when its entries are not in written order, or
    when its text holds an alias, anchor, merge key or tag (a value may then come from
    elsewhere)."""
    sect_key = root.key_node(sect)
    if sect_node.flow or sect_key is None:
        return None
    lines, text = parsed.lines, parsed.text
    start = lines.offset(sect_key.range.start)
    end = len(text)
    for k, _v in root.entries:
        o = lines.offset(k.range.start)
        if start < o < end:
            end = o
    if any(c in text[start:end] for c in _NOT_LOCAL):
        return None
    starts = [lines.offset(k.range.start) for k, _v in sect_node.entries]
    out = []
    for i, (k, _v) in enumerate(sect_node.entries):
        s, e = starts[i], starts[i + 1] if i + 1 < len(starts) else end
        if not start < s < e <= end:
            return None
        out.append((sect, k.range.start.character, text[s:e]))
    return out


def _analyze_root(an: Analysis, parsed: ParsedYaml) -> None:
    root = parsed.root
    assert isinstance(root, YMap)
    # Resources and workloads are converted entry by entry below (and only when their model
    # cannot be reused); validating the root itself only needs to know they are mappings.
    data = {k.text: ({} if k.text in ("resources", "workloads") and isinstance(v, YMap) else to_python(v)) for k, v in root.entries}
    top = {k: v for k, v in data.items() if k not in ("environments", "resources", "workloads")}
    for sect in ("environments", "resources", "workloads"):
        if sect in data:
            v = data[sect]
            top[sect] = {} if isinstance(v, dict) or v is None else v
    an.root_model = _validate(RootRunway, top, (), parsed, an)
    # Environments
    envs = data.get("environments")
    # `environments:` left empty (null or `{}`) means the defaults, never "no environment".
    an.environments_declared = "environments" in data and isinstance(envs, dict) and bool(envs)
    env_node = root.get("environments")
    if an.environments_declared and isinstance(env_node, YMap):
        names = []
        for k, v in env_node.entries:
            names.append(k.text)
            an.env_keys[k.text] = k.range
        an.environment_names = tuple(names)
    else:
        an.environment_names = tuple(e.name for e in default_environments())
    # Resources / workloads, validated one by one so one bad entry spoils nothing else.
    reused = _ENTRY_MODELS.get(parsed.path, {})
    kept: dict[tuple[str, int, str], Any] = {}
    for sect, model, store in (("resources", Resource, an.resource_models), ("workloads", Workload, an.workload_models)):
        sect_node = root.get(sect)
        if not isinstance(sect_node, YMap):
            continue
        keys = _entry_text_keys(parsed, root, sect, sect_node)
        for i, (k, v) in enumerate(sect_node.entries):
            if v is None or (isinstance(v, YScalar) and v.value is None):
                an.add(Diagnostic(parsed.path, k.range, Severity.ERROR, "RW101",
                                  f"{'resource' if sect == 'resources' else 'workload'} `{k.text}` is empty; it needs "
                                  + ("`kind`" if sect == "resources" else "`image`, `port`, `health` and `reason`"),
                                  {"key": "kind" if sect == "resources" else "image", "path": [sect, k.text]}))
                continue
            key = keys[i] if keys is not None else None
            m = reused.get(key) if key is not None else None
            if m is not None:
                store[k.text] = kept[key] = m  # same text: same value, same model, no diagnostic
                continue
            before = len(an.diagnostics.get(parsed.path, ()))
            raw = to_python(v)
            m = _validate(model, raw, (sect, k.text), parsed, an)
            if m is not None:
                store[k.text] = m
            # Engine options are checked even when a sibling key is wrong (all errors at once).
            eng, kind = (raw.get("engine"), raw.get("kind")) if isinstance(raw, dict) else (None, None)
            if sect == "resources" and isinstance(eng, dict) and isinstance(kind, str) and kind in ENGINE_MODELS:
                _validate(ENGINE_MODELS[kind], eng, (sect, k.text, "engine"), parsed, an, kind=kind)
            if key is not None and m is not None and len(an.diagnostics.get(parsed.path, ())) == before:
                kept[key] = m
    _ENTRY_MODELS[parsed.path] = kept
    env_models: dict[str, Environment] = {}
    if isinstance(env_node, YMap):
        for k, v in env_node.entries:
            m = _validate(Environment, to_python(v) or {}, ("environments", k.text), parsed, an)
            if m is not None:
                env_models[k.text] = m
    an._env_models = env_models  # type: ignore[attr-defined]

    # Declared symbols: resources and workloads share one namespace (RW112 reports clashes;
    # the resource keeps the name).
    for sect, typ in (("resources", "resource"), ("workloads", "workload")):
        sect_node = root.get(sect)
        if not isinstance(sect_node, YMap):
            continue
        for k, v in sect_node.entries:
            if typ == "workload":
                if k.text not in an.symbols:
                    an.symbols[k.text] = Symbol(k.text, "workload", "workload", parsed.path, k.range)
                continue
            rm = an.resource_models.get(k.text)
            kind_node = v.get("kind") if isinstance(v, YMap) else None
            raw_kind = kind_node.value if isinstance(kind_node, YScalar) and isinstance(kind_node.value, str) else None
            an.symbols[k.text] = Symbol(k.text, "resource", rm.kind if rm is not None else raw_kind, parsed.path, k.range)
    # Workload uses -> references
    wl_node = root.get("workloads")
    if isinstance(wl_node, YMap):
        for k, v in wl_node.entries:
            uses = v.get("uses") if isinstance(v, YMap) else None
            if isinstance(uses, YSeq):
                for item in uses.items:
                    if isinstance(item, YScalar) and isinstance(item.value, str):
                        an.references.append(Reference(item.value, parsed.path, item.range, k.text, "uses"))


def _analyze_members(an: Analysis, parsed: ParsedYaml, read: Reader) -> None:
    root = parsed.root
    assert isinstance(root, YMap)
    members = root.get("members")
    if not isinstance(members, YSeq):
        return
    root_dir = os.path.dirname(an.root_file)
    base = os.path.realpath(root_dir)  # resolved once: each realpath costs a stat per path part
    root_real = os.path.realpath(an.root_file)
    seen: set[str] = set()
    resolved: dict[str, tuple[str | None, str | None]] = {}
    # Items come in written order, so once MAX_DIAGNOSTICS_PER_FILE + 1 of them have a
    # diagnostic, every later one sorts past the cap: such diagnostics of refused or repeated
    # paths are counted for RW012, not built (a hostile list repeats one path 85,000 times).
    built = 0
    past_cap, past_cap_errors = 0, 0
    reported: set[int] = set()  # id() of the items given a diagnostic, built or counted
    for item in members.items:
        if not isinstance(item, YScalar) or not isinstance(item.value, str) or not item.value.strip():
            continue  # the model reports non-string items
        rel = item.value
        if rel not in resolved:  # one resolution per spelling
            resolved[rel] = _member_folder(base, rel)
        folder, why = resolved[rel]
        if folder is None or folder in seen:
            if id(item) in reported:
                continue  # one node reached twice through an alias: one diagnostic (deduplicated)
            reported.add(id(item))
            if built > MAX_DIAGNOSTICS_PER_FILE:
                past_cap += 1
                past_cap_errors += folder is None
                continue
            built += 1
            if folder is None:
                an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", f"member `{rel}`: {why}", {"member": rel}))
            else:
                an.add(Diagnostic(parsed.path, item.range, Severity.WARNING, "RW151", f"member `{rel}` is listed twice", {"member": rel}))
            continue
        seen.add(folder)
        if not os.path.isdir(folder):
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", f"member folder `{rel}` does not exist", {"member": rel, "missing": "folder"}))
            continue
        path = None
        odd = None  # a runway.yaml that is there but is no regular file (a FIFO, a device, a folder)
        for name in ROOT_NAMES:
            cand = os.path.join(folder, name)
            if os.path.isfile(cand):
                path = cand
                break
            if odd is None and os.path.lexists(cand):
                odd = name
        if path is None and odd is not None:
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151",
                              f"member `{rel}`: its {odd} is not a regular file (a folder, FIFO, socket or device, or a broken symlink); refused, never read",
                              {"member": rel}))
            continue
        if path is None:
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", f"member folder `{rel}` holds no runway.yaml", {"member": rel, "missing": "file"}))
            continue
        # The folder is resolved already: only the file itself may still be a symlink.
        real = os.path.realpath(path) if os.path.islink(path) else path
        if real == root_real:
            # A symlink back to the root runway: it is not a member runway; refused, not re-read.
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", f"member `{rel}`: its runway.yaml is the root runway itself (a symlink); refused", {"member": rel}))
            continue
        if not _inside(base, real):
            # The folder is inside, but its runway.yaml is a symlink that leaves the product.
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151",
                              f"member `{rel}`: its {os.path.basename(path)} is a symlink that leaves the product's repository; refused, never read", {"member": rel}))
            continue
        try:
            text = read(path)
            if len(text) > MAX_FILE_CHARS:
                raise FileTooLarge(len(text), "characters")
        except FileTooLarge as exc:
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", f"member `{rel}`: runway.yaml is too large to read ({exc.size:,} {exc.unit})", {"member": rel}))
            an.diagnostics.setdefault(path, []).append(_too_large(path, exc))
            continue
        except UnicodeDecodeError as exc:
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", f"member `{rel}`: runway.yaml is not UTF-8 text (byte {exc.start}); not read", {"member": rel}))
            an.diagnostics.setdefault(path, []).append(
                Diagnostic(path, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "RW001", f"the file is not UTF-8 text (byte {exc.start})")
            )
            continue
        except OSError as exc:
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", f"member `{rel}`: cannot read runway.yaml ({exc.strerror or exc})", {"member": rel}))
            continue
        mp = parse_file(text, path)
        name = os.path.basename(folder)
        src = SourceFile(path, "member", mp, name, rel)
        an.files[path] = src
        an.diagnostics.setdefault(path, [])
        for d in mp.diagnostics:
            an.add(d)
        if mp.root is None or mp.partial:
            continue
        if not isinstance(mp.root, YMap):
            an.add(Diagnostic(path, mp.root.range, Severity.ERROR, "RW100", "a member runway is a mapping (`runway: 1`, `requires`, `uses`)"))
            continue
        m = _validate_member(mp, an)
        if m is None:
            continue
        an.member_models[path] = m
        if m.member:
            src.member_name = m.member
        for key, via in (("uses", "uses"), ("requires", "requires")):
            seq = mp.root.get(key)
            if isinstance(seq, YSeq):
                for it in seq.items:
                    if isinstance(it, YScalar) and isinstance(it.value, str):
                        target = it.value if via == "uses" else f"shared-{it.value}"
                        an.references.append(Reference(target, path, it.range, src.member_name or name, via))
    if past_cap:
        an.uncounted[parsed.path] = (past_cap, past_cap_errors)


def _secret_name_ok(name: str) -> bool:
    from .rules import UPPER_SNAKE, secret_shape

    return bool(UPPER_SNAKE.match(name)) and secret_shape("", name) is None


def _analyze_lone_member(an: Analysis, parsed: ParsedYaml) -> None:
    """A member runway with no root above that lists it: shape checks only, and RW154."""
    src = an.files[parsed.path]
    src.role = "member"
    src.member_name = os.path.basename(os.path.dirname(parsed.path))
    m = _validate(MemberRunway, to_python(parsed.root), (), parsed, an, member=True)
    if m is not None:
        an.member_models[parsed.path] = m
    root = parsed.root
    assert isinstance(root, YMap)
    first = root.entries[0][0].range if root.entries else Range(Position(0, 0), Position(0, 0))
    an.add(
        Diagnostic(
            parsed.path,
            first,
            Severity.WARNING,
            "RW154",
            "this member runway is not listed by a root runway above it (a `runway.yaml` with `product:` "
            "whose `members:` names this folder): it is checked alone, so its `uses` are not resolved and it has no plan",
        )
    )
    from . import rules

    for rule in (rules.format_version, rules.names, rules.kinds):
        for d in rule(an):
            an.add(d)
    for f, ds in an.diagnostics.items():
        an.diagnostics[f] = [rules.redacted(d) for d in _capped(sorted(ds, key=Diagnostic.sort_key))]


def _size_map(spec: Any) -> tuple[dict[str, str], str]:
    if isinstance(spec, str):
        return {}, spec
    if isinstance(spec, dict):
        return {k: v for k, v in spec.items() if isinstance(v, str)}, "small"
    return {}, "small"


def _scale_map(spec: Any) -> tuple[dict[str, int], int]:
    if isinstance(spec, int) and not isinstance(spec, bool):
        return {}, spec
    if isinstance(spec, dict):
        return {k: v for k, v in spec.items() if isinstance(v, int)}, 1
    return {}, 1


def _build_spec(an: Analysis, previous: Analysis | None = None) -> None:
    parsed = an.root.parsed
    root = parsed.root
    assert isinstance(root, YMap)
    data_product = root.get("product")
    product = an.root_model.product if an.root_model else (data_product.text if isinstance(data_product, YScalar) else "product")
    # Without a valid root model, still price in the region written (never another region's price).
    data_region = root.get("region")
    region = an.root_model.region if an.root_model else (data_region.value if isinstance(data_region, YScalar) and isinstance(data_region.value, str) else "us-east-1")
    env_models: dict[str, Environment] = getattr(an, "_env_models", {})
    if an.environments_declared:
        envs = []
        for name in an.environment_names:
            m = env_models.get(name) or Environment()
            if m.limits is not None and "monthly" in m.limits.model_fields_set:
                cap, src = m.limits.monthly, ("set" if m.limits.monthly is not None else "none")
            else:
                cap = DEFAULT_CAPS.get(name)
                src = "default" if cap is not None else "none"
            shared = {k: v for k, v in m.shared.items() if k in RESOURCE_KINDS}
            envs.append(EnvSpec(name, cap, src, shared))
        environments = tuple(envs)
    else:
        environments = default_environments()
    env_names = {e.name for e in environments}
    # An entry whose model is the previous analysis' very object (its text did not change:
    # _ENTRY_MODELS) has the same EntrySpec when the environments are the same: reuse it, and
    # the planner then recognises it by identity (issue 6).
    old_entries: dict[str, EntrySpec] = {}
    if previous is not None and previous.spec is not None and {e.name for e in previous.spec.environments} == env_names:
        old_entries = dict(previous.spec.entries)

    entries: dict[str, EntrySpec] = {}
    for name, r in an.resource_models.items():
        if r.kind not in RESOURCE_KINDS:
            continue
        old = old_entries.get(name)
        if old is not None and not old.implicit and previous.resource_models.get(name) is r:  # type: ignore[union-attr]
            entries[name] = old
            continue
        sizes, default = _size_map(r.size)
        entries[name] = EntrySpec(name, r.kind, {k: v for k, v in sizes.items() if k in env_names}, default, engine=engine_defaults(r.kind, r.engine))
    # Implicit shared-<kind> resources (RUNWAY_FORMAT.md, "Implicit resources").
    shared_kinds: dict[str, list[tuple[str, Range]]] = {}
    for m_path, m in an.member_models.items():
        seq = an.files[m_path].parsed.root.get("requires")  # type: ignore[union-attr]
        for i, kind in enumerate(m.requires):
            if kind in RESOURCE_KINDS:
                rng = seq.items[i].range if isinstance(seq, YSeq) and i < len(seq.items) else Range(Position(0, 0), Position(0, 0))
                shared_kinds.setdefault(kind, []).append((m_path, rng))
    env_node = root.get("environments")
    for e in environments:
        for kind in e.shared:
            rng = None
            if isinstance(env_node, YMap):
                en = env_node.get(e.name)
                sh = en.get("shared") if isinstance(en, YMap) else None
                kn = sh.key_node(kind) if isinstance(sh, YMap) else None
                rng = kn.range if kn else None
            shared_kinds.setdefault(kind, []).append((parsed.path, rng or Range(Position(0, 0), Position(0, 0))))
    for kind in RESOURCE_KINDS:
        if kind not in shared_kinds:
            continue
        name = f"shared-{kind}"
        if name in entries:
            continue  # a declared resource took the name: RW111 reports it
        sizes = {e.name: e.shared[kind] for e in environments if kind in e.shared}
        entries[name] = EntrySpec(name, kind, sizes, "small", engine=engine_defaults(kind, {}), implicit=True, origin="shared")
        an.symbols[name] = Symbol(name, "implicit", kind, None, None, tuple(shared_kinds[kind]))
    consumers: list[ConsumerSpec] = []
    for name, w in an.workload_models.items():
        if name in entries:
            continue
        old = old_entries.get(name)
        if old is not None and old.kind == "workload" and previous.workload_models.get(name) is w:  # type: ignore[union-attr]
            entries[name] = old
            consumers.append(ConsumerSpec(name, "workload", tuple(w.uses)))
            continue
        sizes, default = _size_map(w.size)
        scales, default_scale = _scale_map(w.scale)
        entries[name] = EntrySpec(
            name,
            "workload",
            {k: v for k, v in sizes.items() if k in env_names},
            default,
            {k: v for k, v in scales.items() if k in env_names},
            default_scale,
            image=w.image,
            port=w.port,
            health=w.health.model_dump(exclude_none=True),
            env={k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in w.env.items()},
            # Only names: an item that is no name, or looks like a value (RW144, an error), is
            # kept out of the plan, which CI prints and stores.
            secrets=tuple(x for x in w.secrets if _secret_name_ok(x)),
            uses=tuple(w.uses),
            expose=w.expose,
        )
        consumers.append(ConsumerSpec(name, "workload", tuple(w.uses)))
    for m_path, m in an.member_models.items():
        src = an.files[m_path]
        uses = tuple(m.uses) + tuple(f"shared-{k}" for k in m.requires if k in RESOURCE_KINDS)
        consumers.append(ConsumerSpec(src.member_name or os.path.basename(os.path.dirname(m_path)), "member", uses))
    an.spec = RunwaySpec(product, region, environments, entries, tuple(consumers))


def node_at_path(parsed: ParsedYaml, path: tuple[str | int, ...]) -> YNode | None:
    node, _k, depth = find_path(parsed.root, path)
    return node if depth == len(path) else None


# --------------------------------------------------------------------------------------
# Tolerance: what the editor shows while a line being typed breaks the YAML
# --------------------------------------------------------------------------------------

#: libyaml problems reported past the line that caused them (a key without its `:` is found
#: out on the next line; an unclosed flow collection where the next key starts).
_REPORTED_LATE = ("could not find expected ':'", "did not find expected ',' or", "did not find expected key")


def blank_lines(parsed: ParsedYaml, lines: Iterable[int]) -> str:
    """``parsed.text`` with ``lines`` (0-based) blanked to spaces: the same length in code
    points and the same line breaks, so every position of every other line holds (a
    byte-order mark stays). Lines past the end are ignored."""
    text, index = parsed.text, parsed.lines
    out: list[str] = []
    last = 0
    for line in sorted({n for n in lines if 0 <= n < index.line_count}):
        start, end = index.line_start(line), index.line_end(line)
        if line == 0 and text.startswith("\ufeff"):
            start += 1
        out.append(text[last:start])
        out.append(" " * (end - start))
        last = end
    out.append(text[last:])
    return "".join(out)


def tolerant_text(parsed: ParsedYaml) -> str | None:
    """For a parse a syntax error cut short (``parsed.partial``), the same text with the
    offending line blanked (:func:`blank_lines`) when the result parses whole; None when
    the parse is whole already or no blanking helps.

    Tried in turn: the line the error is reported on, the last non-blank line above it (a
    key typed without its ``:`` is found out on the next line: that one is tried first for
    such errors), then both."""
    if not parsed.partial:
        return None
    errors = [d for d in parsed.diagnostics if d.code in ("RW001", "RW006")]
    if not errors:
        return None
    first = errors[0]
    line = first.range.start.line
    above = line - 1
    while above >= 0 and not parsed.lines.line_text(above).strip(" \t\ufeff").split("#", 1)[0].strip():
        above -= 1
    tries: list[tuple[int, ...]] = [(line,), (above,), (above, line)]
    if any(p in first.message for p in _REPORTED_LATE):
        tries[0], tries[1] = tries[1], tries[0]
    for blank in tries:
        if min(blank) < 0:
            continue
        text = blank_lines(parsed, blank)
        again = parse_yaml(text, parsed.path)
        if not again.partial and again.root is not None:
            return text
    return None


def tolerant_analysis(an: Analysis, read: Reader | None = None) -> Analysis | None:
    """While a file of ``an`` has a syntax error (its parse is partial, so nothing is
    planned): the analysis of the same files with each such file's offending line blanked
    (:func:`tolerant_text`), for what stays in view while typing (costs, lenses, hovers).
    None when no file is partial, or a blanked text still does not parse. Its diagnostics
    are not the files' (those come from the real text, ``an``); positions hold (same text
    length, same lines). ``read`` supplies the other files, as for :func:`analyze`."""
    texts: dict[str, str] = {}
    for path, src in an.files.items():
        if src.parsed.partial:
            text = tolerant_text(src.parsed)
            if text is None:
                return None
            texts[path] = text
    if not texts:
        return None
    base = read or read_disk

    def reread(path: str) -> str:
        return texts.get(path) or texts.get(os.path.abspath(path)) or base(path)

    tolerant = analyze(an.root_file, an.catalog, reread)
    if any(f.parsed.partial for f in tolerant.files.values()):
        return None
    return tolerant
