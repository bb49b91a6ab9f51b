"""Format version and names: RW103 (``runway: 1``), RW110 (DNS-label names), RW111 (a
declared name taken by an implicit item) and RW112 (a resource and a workload of one name).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..diagnostics import Diagnostic
from ..names import DNS_LABEL, ENVIRONMENT_ITEM_NAMES, NAME_LABEL, reserved_name, shown
from ..yamlsrc import YMap, YScalar
from ._common import _d, _root, _section

if TYPE_CHECKING:
    from ..facts import Analysis


def format_version(an: "Analysis") -> Iterator[Diagnostic]:
    """RW103: `runway` must be 1 (root and members)."""
    for f in an.files.values():
        r = f.parsed.root
        if not isinstance(r, YMap) or f.parsed.partial:
            continue
        v = r.get("runway")
        if isinstance(v, YScalar) and isinstance(v.value, int) and not isinstance(v.value, bool) and v.value != 1:
            yield _d(an, f.path, v.range, "RW103", f"runway format version {v.value} is not supported; only `runway: 1` exists today")


def names(an: "Analysis") -> Iterator[Diagnostic]:
    """RW110: product, resource, workload, environment and member names are DNS labels."""
    path = an.root_file
    r = _root(an)
    if r is None:
        return
    p = r.get("product")
    if isinstance(p, YScalar) and isinstance(p.value, str) and not DNS_LABEL.fullmatch(p.value):
        yield _d(an, path, p.range, "RW110", f"product `{shown(p.value)}` must be a DNS label: lowercase letters, digits and `-`, 2 to 32 characters, starting with a letter")
    for sect, what in (("resources", "resource"), ("workloads", "workload"), ("environments", "environment")):
        s = _section(an, sect)
        if s is None:
            continue
        for k, _v in an.read_entries(sect, s):
            if not NAME_LABEL.fullmatch(k.text):
                yield _d(an, path, k.range, "RW110", f"{what} name `{shown(k.text)}` must be a DNS label: lowercase letters, digits and `-`, starting with a letter", {"name": k.text})
    for f in an.files.values():
        if f.role != "member" or not isinstance(f.parsed.root, YMap):
            continue
        m = f.parsed.root.get("member")
        if isinstance(m, YScalar) and isinstance(m.value, str) and not NAME_LABEL.fullmatch(m.value):
            yield _d(an, f.path, m.range, "RW110", f"member name `{shown(m.value)}` must be a DNS label")
        elif m is None and f.member_name and not NAME_LABEL.fullmatch(f.member_name) and f.parsed.root.entries:
            # The default name is the folder's name (docs/format.md, "Member runway"): same rule.
            fix = re.sub(r"[^a-z0-9]+", "-", f.member_name.lower()).strip("-")
            yield _d(an, f.path, f.parsed.root.entries[0][0].range, "RW110",
                     f"member name `{shown(f.member_name)}` (the folder's name; `member:` is not set) must be a DNS label; set e.g. `member: {fix}`")


def shared_collision(an: "Analysis") -> Iterator[Diagnostic]:
    """RW111: no declared resource or workload may be named `shared-<kind>`, `alb` or
    `service-discovery` (the implicit items every plan may add)."""
    for sect in ("resources", "workloads"):
        s = _section(an, sect)
        if s is None:
            continue
        for k, _v in an.read_entries(sect, s):
            what = reserved_name(k.text)  # the one list of reserved names (rename and fixes ask it too)
            if what is None:
                continue
            if k.text not in ENVIRONMENT_ITEM_NAMES:
                yield _d(an, an.root_file, k.range, "RW111",
                         f"`{k.text}` is the name of {what} (from members' `requires` and environments' `shared`); choose another name")
            else:
                yield _d(an, an.root_file, k.range, "RW111",
                         f"`{k.text}` is the name of {what}, an implicit item of every plan that needs one "
                         "(the plan and the deploy would hold two items of that name); choose another name")


def name_clash(an: "Analysis") -> Iterator[Diagnostic]:
    """RW112: resources and workloads share one namespace."""
    res, wl = _section(an, "resources"), _section(an, "workloads")
    if res is None or wl is None:
        return
    for k, _v in an.read_entries("workloads", wl):
        if k.text in res:
            yield _d(an, an.root_file, k.range, "RW112", f"`{k.text}` is already a resource; resources and workloads share one namespace")
