"""Member runways: each ``members:`` item resolved inside the product's repository
(:mod:`runway_core.workspace`), read, parsed and validated, with its ``uses`` and
``requires`` as references; and a member runway analysed alone (no root lists it: RW154).
"""

from __future__ import annotations

import os

from ..diagnostics import Diagnostic, Severity
from ..facts import Analysis, Reference, SourceFile
from ..model import MemberRunway
from ..positions import Position, Range
from ..rules import LONE_MEMBER_RULES
from ..workspace import MAX_FILE_CHARS, FileTooLarge, Reader, declares_product, find_root, member_folder, member_runway, read_disk, runway_head
from ..yamlsrc import ParsedYaml, YMap, YScalar, YSeq, to_python
from . import cache
from .report import MAX_DIAGNOSTICS_PER_FILE, _not_utf8, _too_large, finish
from .validate import _validate

#: Most member runways one product reads (docs/diagnostics.md, RW155). A product has a few
#: dozen; a root listing 50,000 froze the editor for minutes. Past this, RW155 (an error: the
#: members not read are not checked, so the product must not pass) at the first item left out.
MAX_MEMBERS = 1000


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
    capped_at = None  # the first item past MAX_MEMBERS, and how many items were left out
    nearer: dict[str, str | None] = {}  # folder -> the root runway it holds, or None (_nearer_root)
    left_out = 0
    for item in members.items:
        if not isinstance(item, YScalar) or not isinstance(item.value, str):
            continue  # the model reports non-string items
        rel = item.value
        if rel not in resolved:  # one resolution per spelling
            # An empty or blank path names no folder (it would resolve to the root's own).
            resolved[rel] = member_folder(base, rel) if rel.strip() else (None, "an empty member path names no folder")
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
                shown = _shown(rel)
                msg = f"member `{shown}`: {why}" if rel.strip() else f"member `{shown}`: {why}; remove the item or write the folder's path"
                an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", msg, {"member": shown}))
            else:
                an.add(Diagnostic(parsed.path, item.range, Severity.WARNING, "RW151", f"member `{rel}` is listed twice", {"member": rel}))
            continue
        if len(seen) >= MAX_MEMBERS:
            if capped_at is None:
                capped_at = item
            left_out += 1
            continue
        seen.add(folder)
        path, problem = member_runway(folder, rel, base, root_real)
        if problem is None:
            problem = _nearer_root(folder, base, rel, read, nearer)
        if problem is not None:
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", problem[0], problem[1]))
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
            an.diagnostics.setdefault(path, []).append(_not_utf8(path, exc))
            continue
        except OSError as exc:
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151", f"member `{rel}`: cannot read runway.yaml ({exc.strerror or exc})", {"member": rel}))
            continue
        mp = cache.parse_file(text, path)
        if declares_product(text):
            # A root runway is a product of its own, the root its folder's walk up finds (the
            # editor's too): read as a member it would be three unknown keys in CI while the
            # editor analyses it as its own product (ninth adversary L4).
            an.add(Diagnostic(parsed.path, item.range, Severity.ERROR, "RW151",
                              f"member `{_shown(rel)}` holds a root runway ({_product_of(mp)}): a member runway has no `product`; "
                              "list it in no root's `members`, or remove its `product:`", {"member": _shown(rel), "root": _shown(os.path.relpath(path, base))}))
            continue
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
        m = cache._validate_member(mp, an)
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
    if capped_at is not None:
        an.add(Diagnostic(parsed.path, capped_at.range, Severity.ERROR, "RW155",
                          f"more than {MAX_MEMBERS:,} members: this one and {left_out - 1:,} more after it are not read, so they are not checked",
                          {"member": capped_at.value, "max_members": MAX_MEMBERS, "not_read": left_out}))
    if past_cap:
        an.uncounted[parsed.path] = (past_cap, past_cap_errors)


def _shown(rel: str) -> str:
    return rel if rel.isprintable() else rel.encode("unicode_escape").decode("ascii")


def _product_of(parsed: ParsedYaml) -> str:
    """``product: <name>`` of a root runway's parse, as a message shows it: the name when it is
    a short printable string (a product name is a DNS label of at most 63 characters), else
    ``a top-level product:``."""
    root = parsed.root
    node = root.get("product") if isinstance(root, YMap) else None
    value = node.value if isinstance(node, YScalar) else None
    if isinstance(value, str) and 0 < len(value) <= 63 and value.isprintable() and "`" not in value:
        return f"`product: {value}`"
    return "a top-level `product:`"


def _nearer_root(folder: str, base: str, rel: str, read: Reader, memo: dict[str, str | None]) -> tuple[str, dict[str, str]] | None:
    """RW151's message and data when a folder between the member ``folder`` and ``base`` (both
    resolved; the root's own folder excluded) holds a root runway, else None. The member then
    belongs to that nearer root, the one a walk up from its folder finds (docs/format.md,
    "Root or member"), as ``runway-deploy check`` of its folder and the editor find it: read by
    this root too, CI would check it in a product the editor does not put it in (ninth
    adversary L4). Only a runway file on disk is read (through ``read``: an open buffer's text
    wins): the folders between hold none most of the time, and the HEAD baseline's ``read``
    runs ``git show`` per file; a new root not saved yet counts once it is (the CLI reads
    the disk). ``memo`` (folder -> its root runway, or None) keeps one look per folder for
    every member under it."""
    prefix = base if base.endswith(os.sep) else base + os.sep
    d = os.path.dirname(folder)
    while d.startswith(prefix) and len(d) > len(prefix):
        if d not in memo:
            found = runway_head(d, read, on_disk=True)
            memo[d] = found[0] if found is not None and declares_product(found[1]) else None
        hit = memo[d]
        if hit is not None:
            where = _shown(os.path.relpath(hit, base))
            return (f"member `{_shown(rel)}` is inside the folder of another root runway, `{where}`: a member belongs to the nearest "
                    f"root above it (as `runway-deploy check` of its folder and the editor find it); list it in that root's `members` "
                    f"only, or move it out of that folder", {"member": _shown(rel), "root": where})
        d = os.path.dirname(d)
    return None


def _root_above_is_unreadable(path: str, read: Reader | None) -> bool:
    """Whether the nearest root runway above ``path``'s folder cannot be read as YAML (a
    syntax error being typed): its ``members:`` may list this member once it can (issue 15),
    so RW154 would be a false alarm meanwhile."""
    root = find_root(os.path.dirname(os.path.dirname(path)), read)
    if root is None or os.path.realpath(root) == os.path.realpath(path):
        return False
    try:
        text = (read or read_disk)(root)
    except (OSError, UnicodeDecodeError, FileTooLarge):
        return False
    if not declares_product(text):
        return False
    parsed = cache.parse_file(text, root)
    return parsed.root is None or parsed.partial or any(d.code == "RW001" for d in parsed.diagnostics)


def _analyze_lone_member(an: Analysis, parsed: ParsedYaml, read: Reader | None = None) -> None:
    """A member runway with no root above that lists it: shape checks only, and RW154 (not
    while the root above cannot be parsed: it may well list this member)."""
    src = an.files[parsed.path]
    src.role = "member"
    src.member_name = os.path.basename(os.path.dirname(parsed.path))
    m = _validate(MemberRunway, to_python(parsed.root), (), parsed, an, member=True)
    if m is not None:
        an.member_models[parsed.path] = m
    root = parsed.root
    assert isinstance(root, YMap)
    first = root.entries[0][0].range if root.entries else Range(Position(0, 0), Position(0, 0))
    if not _root_above_is_unreadable(parsed.path, read):
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
    for rule in LONE_MEMBER_RULES:
        for d in rule(an):
            an.add(d)
    finish(an, dedupe=False)
