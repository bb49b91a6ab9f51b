"""The semantic rules of RUNWAY_FORMAT.md, one small function each, with stable codes.

Each rule takes the :class:`~runway_core.analysis.Analysis` (trees, models, spec, plans) and
yields :class:`Diagnostic` values. Codes and texts are documented in docs/diagnostics.md
(a test keeps that page and :data:`CODES` in sync). Loader codes (RW001-RW010) and schema
codes (RW100-RW102) are produced by :mod:`yamlsrc` and :mod:`analysis`.

Must not import pygls, lsprotocol or pulumi.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from .catalog import SIZES
from .diagnostics import Diagnostic, Severity
from .model import REASON_GROUNDS, RESERVED_KINDS, RESOURCE_KINDS
from .planner import cents, injected_variables
from .positions import Position, Range
from .yamlsrc import YMap, YNode, YScalar, YSeq

if TYPE_CHECKING:
    from .analysis import Analysis

DNS_LABEL = re.compile(r"^[a-z][a-z0-9-]{0,30}[a-z0-9]$")
NAME_LABEL = re.compile(r"^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$")
DIGEST = re.compile(r"^[^\s@]+@sha256:[0-9a-f]{64}$")
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9_]*$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: Every code with its default severity and one-line title (docs/diagnostics.md).
CODES: dict[str, tuple[str, str]] = {
    "RW001": ("error", "YAML syntax error, or a file that is not UTF-8 text"),
    "RW002": ("error", "duplicate key"),
    "RW003": ("error", "more than one YAML document"),
    "RW004": ("error", "empty or comment-only file"),
    "RW005": ("error", "alias expansion over the limit (alias bomb)"),
    "RW006": ("error", "tab used for indentation"),
    "RW007": ("warning", "byte-order mark at the start of the file"),
    "RW008": ("error", "unsupported YAML tag"),
    "RW009": ("error", "a key that is a list or mapping"),
    "RW010": ("error", "nesting too deep"),
    "RW011": ("error", "file over the size limit (1 MiB): not analysed"),
    "RW012": ("error", "more than 500 problems in one file: the rest are not shown"),
    "RW100": ("error", "wrong type or value (schema)"),
    "RW101": ("error", "missing required key"),
    "RW102": ("error", "unknown key (closest known key suggested)"),
    "RW103": ("error", "unsupported format version"),
    "RW110": ("error", "name format (product, resource, workload, environment, member)"),
    "RW111": ("error", "declared name collides with an implicit item (`shared-<kind>`, `alb`, `service-discovery`)"),
    "RW112": ("error", "a resource and a workload share one name"),
    "RW120": ("error", "unknown kind (closest kind suggested)"),
    "RW121": ("error", "reserved kind (kafka, opensearch): why, and what brings it back"),
    "RW130": ("error", "unknown size"),
    "RW131": ("error", "size or scale for an undeclared environment"),
    "RW140": ("error", "image not pinned by digest"),
    "RW141": ("error", "workload without a reason"),
    "RW142": ("warning", "reason names none of the three allowed grounds"),
    "RW143": ("error", "`env` or `secrets` name collides with an injected variable"),
    "RW144": ("error", "secret or variable name format"),
    "RW145": ("warning", "an entry listed twice (`secrets`, `uses`, `requires`)"),
    "RW146": ("warning", "a name in both `env` and `secrets`"),
    "RW147": ("warning", "a value that looks like a secret (`env`, image, health command)"),
    "RW150": ("error", "workload `uses` names no resource or workload"),
    "RW151": ("error", "member folder missing, unreadable, or outside the repository"),
    "RW152": ("error", "member `uses` names no resource of the root"),
    "RW153": ("warning", "a workload uses itself"),
    "RW154": ("warning", "member runway that no root runway above lists"),
    "RW160": ("error", "region unknown to the catalogue"),
    "RW161": ("warning", "unit price missing for the region (estimate incomplete)"),
    "RW170": ("error", "environment over its monthly cap (plan refused)"),
    "RW171": ("warning", "environment without a cap (estimate shown)"),
    "RW180": ("hint", "resource used by nobody"),
}


def usd(x: Decimal) -> str:
    """``Decimal('1234.5')`` -> ``$1,234.50``; a negative zero prints as ``$0.00``."""
    c = cents(x)
    return f"${c.copy_abs() if c.is_zero() else c:,.2f}"


def _d(an: "Analysis", file: str, rng: Range, code: str, msg: str, data: dict | None = None, severity: Severity | None = None, tags: tuple[int, ...] = ()) -> Diagnostic:
    sev = severity if severity is not None else Severity[CODES[code][0].upper()]
    return Diagnostic(file, rng, sev, code, msg, data, tags)


def _root(an: "Analysis") -> YMap | None:
    r = an.root.parsed.root
    return r if isinstance(r, YMap) else None


def _section(an: "Analysis", name: str) -> YMap | None:
    r = _root(an)
    s = r.get(name) if r is not None else None
    return s if isinstance(s, YMap) else None


def _first_key_range(r: YMap) -> Range:
    """``product``'s key, else the first key, else 0:0 (a mapping whose only key was a merge
    key ``<<`` has no entries of its own)."""
    kn = r.key_node("product") or (r.entries[0][0] if r.entries else None)
    return kn.range if kn is not None else Range(Position(0, 0), Position(0, 0))


def _scalar_str(n: YNode | None) -> str | None:
    return n.value if isinstance(n, YScalar) and isinstance(n.value, str) else None


Rule = Callable[["Analysis"], Iterable[Diagnostic]]


# --- format version and names ------------------------------------------------------------


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
    if isinstance(p, YScalar) and isinstance(p.value, str) and not DNS_LABEL.match(p.value):
        yield _d(an, path, p.range, "RW110", f"product `{p.value}` must be a DNS label: lowercase letters, digits and `-`, 2 to 32 characters, starting with a letter")
    for sect, what in (("resources", "resource"), ("workloads", "workload"), ("environments", "environment")):
        s = _section(an, sect)
        if s is None:
            continue
        for k, _v in s.entries:
            if not NAME_LABEL.match(k.text):
                yield _d(an, path, k.range, "RW110", f"{what} name `{k.text}` must be a DNS label: lowercase letters, digits and `-`, starting with a letter", {"name": k.text})
    for f in an.files.values():
        if f.role != "member" or not isinstance(f.parsed.root, YMap):
            continue
        m = f.parsed.root.get("member")
        if isinstance(m, YScalar) and isinstance(m.value, str) and not NAME_LABEL.match(m.value):
            yield _d(an, f.path, m.range, "RW110", f"member name `{m.value}` must be a DNS label")
        elif m is None and f.member_name and not NAME_LABEL.match(f.member_name) and f.parsed.root.entries:
            # The default name is the folder's name (RUNWAY_FORMAT.md, "Member runway"): same rule.
            fix = re.sub(r"[^a-z0-9]+", "-", f.member_name.lower()).strip("-")
            yield _d(an, f.path, f.parsed.root.entries[0][0].range, "RW110",
                     f"member name `{f.member_name}` (the folder's name; `member:` is not set) must be a DNS label; set e.g. `member: {fix}`")


#: Names of the per-environment plan items (planner: the ALB, the Cloud Map namespace): RW111.
ENVIRONMENT_ITEM_NAMES = {"alb": "the environment's load balancer", "service-discovery": "the environment's service discovery namespace"}


def shared_collision(an: "Analysis") -> Iterator[Diagnostic]:
    """RW111: no declared resource or workload may be named `shared-<kind>`, `alb` or
    `service-discovery` (the implicit items every plan may add)."""
    for sect in ("resources", "workloads"):
        s = _section(an, sect)
        if s is None:
            continue
        for k, _v in s.entries:
            if k.text.startswith("shared-") and k.text[7:] in RESOURCE_KINDS:
                yield _d(an, an.root_file, k.range, "RW111",
                         f"`{k.text}` is the name of the implicit shared {k.text[7:]} pool (from members' `requires` and environments' `shared`); choose another name")
            elif k.text in ENVIRONMENT_ITEM_NAMES:
                yield _d(an, an.root_file, k.range, "RW111",
                         f"`{k.text}` is the name of {ENVIRONMENT_ITEM_NAMES[k.text]}, an implicit item of every plan that needs one "
                         "(the plan and the deploy would hold two items of that name); choose another name")


def name_clash(an: "Analysis") -> Iterator[Diagnostic]:
    """RW112: resources and workloads share one namespace."""
    res, wl = _section(an, "resources"), _section(an, "workloads")
    if res is None or wl is None:
        return
    for k, _v in wl.entries:
        if k.text in res:
            yield _d(an, an.root_file, k.range, "RW112", f"`{k.text}` is already a resource; resources and workloads share one namespace")


# --- kinds and sizes ------------------------------------------------------------------------


def _kind_diag(an: "Analysis", file: str, node: YScalar, kind: str) -> Diagnostic | None:
    if kind in RESOURCE_KINDS:
        return None
    if kind in RESERVED_KINDS:
        return _d(an, file, node.range, "RW121", f"kind `{kind}` is reserved: {RESERVED_KINDS[kind]}", {"kind": kind})
    from .analysis import suggest

    sug = suggest(kind, RESOURCE_KINDS)
    hint = f"; did you mean `{sug}`?" if sug else f"; kinds are {', '.join(RESOURCE_KINDS)}"
    return _d(an, file, node.range, "RW120", f"unknown kind `{kind}`{hint}", {"kind": kind, "suggestion": sug, "valid": list(RESOURCE_KINDS)})


def kinds(an: "Analysis") -> Iterator[Diagnostic]:
    """RW120/RW121: resource kinds, member `requires` and environment `shared` kinds."""
    res = _section(an, "resources")
    if res is not None:
        for _k, v in res.entries:
            kn = v.get("kind") if isinstance(v, YMap) else None
            if isinstance(kn, YScalar) and isinstance(kn.value, str):
                d = _kind_diag(an, an.root_file, kn, kn.value)
                if d:
                    yield d
    for f in an.files.values():
        if f.role != "member" or not isinstance(f.parsed.root, YMap):
            continue
        req = f.parsed.root.get("requires")
        if isinstance(req, YSeq):
            for it in req.items:
                if isinstance(it, YScalar) and isinstance(it.value, str):
                    d = _kind_diag(an, f.path, it, it.value)
                    if d:
                        yield d
    envs = _section(an, "environments")
    if envs is not None:
        for _k, v in envs.entries:
            sh = v.get("shared") if isinstance(v, YMap) else None
            if isinstance(sh, YMap):
                for sk, _sv in sh.entries:
                    d = _kind_diag(an, an.root_file, sk, sk.text)
                    if d:
                        yield d


def _size_values(v: YNode | None) -> Iterator[tuple[str | None, YScalar]]:
    """(env or None, size scalar) for a `size:` node."""
    if isinstance(v, YScalar) and isinstance(v.value, str):
        yield None, v
    elif isinstance(v, YMap):
        for k, s in v.entries:
            if isinstance(s, YScalar) and isinstance(s.value, str):
                yield k.text, s


def _size_diag(an: "Analysis", node: YScalar, kind: str, env: str | None) -> Diagnostic | None:
    valid = an.catalog.sizes("postgres" if kind == "postgres" else kind) if kind in ("postgres", "cache", "queue", "topic", "bucket", "workload") else SIZES
    if node.value in valid:
        return None
    from .analysis import suggest

    sug = suggest(node.value, valid)
    hint = f"; did you mean `{sug}`?" if sug else ""
    return _d(an, an.root_file, node.range, "RW130", f"unknown size `{node.value}`{hint} (sizes: {', '.join(valid)})",
              {"size": node.value, "valid": list(valid), "kind": kind, "environment": env, "suggestion": sug})


def sizes(an: "Analysis") -> Iterator[Diagnostic]:
    """RW130: every size (resources, workloads, environments' `shared`) is in the catalogue."""
    for sect in ("resources", "workloads"):
        s = _section(an, sect)
        if s is None:
            continue
        for name, v in s.entries:
            if not isinstance(v, YMap):
                continue
            if sect == "resources":
                kind = _scalar_str(v.get("kind"))
                if kind not in RESOURCE_KINDS:
                    continue
            else:
                kind = "workload"
            for env, node in _size_values(v.get("size")):
                d = _size_diag(an, node, kind, env)
                if d:
                    yield d
    envs = _section(an, "environments")
    if envs is not None:
        for ek, v in envs.entries:
            sh = v.get("shared") if isinstance(v, YMap) else None
            if isinstance(sh, YMap):
                for sk, sv in sh.entries:
                    if sk.text in RESOURCE_KINDS and isinstance(sv, YScalar) and isinstance(sv.value, str):
                        d = _size_diag(an, sv, sk.text, ek.text)
                        if d:
                            yield d


def undeclared_environments(an: "Analysis") -> Iterator[Diagnostic]:
    """RW131: `size`/`scale` maps may only name declared environments."""
    envs = set(an.environment_names)
    from .analysis import suggest

    for sect in ("resources", "workloads"):
        s = _section(an, sect)
        if s is None:
            continue
        for name, v in s.entries:
            if not isinstance(v, YMap):
                continue
            for key in ("size", "scale"):
                m = v.get(key)
                if isinstance(m, YMap):
                    for ek, _ev in m.entries:
                        if ek.text not in envs:
                            sug = suggest(ek.text, envs)
                            hint = f"; did you mean `{sug}`?" if sug else ""
                            yield _d(an, an.root_file, ek.range, "RW131",
                                     f"`{ek.text}` is not a declared environment{hint} (environments: {', '.join(an.environment_names)})",
                                     {"environment": ek.text, "suggestion": sug, "entry": name.text, "key": key})


# --- workloads ------------------------------------------------------------------------------


def _workloads(an: "Analysis") -> Iterator[tuple[YScalar, YMap]]:
    s = _section(an, "workloads")
    if s is None:
        return
    for k, v in s.entries:
        if isinstance(v, YMap):
            yield k, v


def image_digest(an: "Analysis") -> Iterator[Diagnostic]:
    """RW140: `image` is pinned by digest (`name@sha256:<64 hex>`)."""
    for k, v in _workloads(an):
        img = v.get("image")
        if isinstance(img, YScalar) and isinstance(img.value, str) and not DIGEST.match(img.value):
            _name, sep, digest = img.value.partition("@sha256:")
            if sep and re.fullmatch(r"[0-9a-fA-F]*", digest):
                why = f"its sha256 digest has {len(digest)} hex digits, not 64" if len(digest) != 64 else "a digest is lowercase hex"
            else:
                why = "a tag alone can change under you"
            yield _d(an, an.root_file, img.range, "RW140",
                     f"image is not pinned by digest: {why}; write `name@sha256:<64 hex digits>`",
                     {"image": img.value})


def reasons(an: "Analysis") -> Iterator[Diagnostic]:
    """RW141 (missing reason) and RW142 (reason names no allowed ground), ADR 0493 §5."""
    for k, v in _workloads(an):
        r = v.get("reason")
        if r is None or (isinstance(r, YScalar) and (r.value is None or (isinstance(r.value, str) and not r.value.strip()))):
            yield _d(an, an.root_file, (v.key_node("reason") or k).range, "RW141",
                     f"workload `{k.text}` needs a `reason`: one of {', '.join(REASON_GROUNDS)} (ADR 0493 §5: managed first)",
                     {"workload": k.text, "grounds": list(REASON_GROUNDS)})
        elif isinstance(r, YScalar) and isinstance(r.value, str):
            # "on-prem parity" (RUNWAY_FORMAT.md's own example) names the ground as well as "on-prem-parity".
            text = re.sub(r"[\s_]+", "-", r.value.lower())
            if not any(g in text for g in REASON_GROUNDS):
                yield _d(an, an.root_file, r.range, "RW142",
                         f"the reason names none of the allowed grounds ({', '.join(REASON_GROUNDS)}); start it with one, e.g. `residency: ...`",
                         {"workload": k.text, "grounds": list(REASON_GROUNDS)})


def injected_collisions(an: "Analysis") -> Iterator[Diagnostic]:
    """RW143: a workload's `env`/`secrets` name may not equal a variable its `uses` inject."""
    for k, v in _workloads(an):
        uses = v.get("uses")
        injected: dict[str, str] = {}
        if isinstance(uses, YSeq):
            for it in uses.items:
                name = _scalar_str(it)
                sym = an.symbols.get(name) if name else None
                if sym is not None and sym.kind:
                    for var in injected_variables(name, sym.kind if sym.kind in RESOURCE_KINDS else "workload"):
                        injected[var] = name
        env = v.get("env")
        if isinstance(env, YMap):
            for ek, _ev in env.entries:
                if ek.text in injected:
                    yield _d(an, an.root_file, ek.range, "RW143",
                             f"`{ek.text}` is injected by `uses: [{injected[ek.text]}]`; rename or remove this variable",
                             {"variable": ek.text, "resource": injected[ek.text]})
        secrets = v.get("secrets")
        if isinstance(secrets, YSeq):
            for it in secrets.items:
                s = _scalar_str(it)
                if s and s in injected:
                    yield _d(an, an.root_file, it.range, "RW143",
                             f"secret `{s}` is injected by `uses: [{injected[s]}]`; rename or remove it",
                             {"variable": s, "resource": injected[s]})


def variable_names(an: "Analysis") -> Iterator[Diagnostic]:
    """RW144: secret names are UPPER_SNAKE; `env` names are valid variable names."""
    for k, v in _workloads(an):
        secrets = v.get("secrets")
        if isinstance(secrets, YSeq):
            for it in secrets.items:
                s = _scalar_str(it)
                if s is None:
                    continue
                shape = secret_shape("", s)
                if shape is not None:
                    # A value pasted where a name belongs: never quoted (CI logs, SARIF, PR annotations).
                    yield _d(an, an.root_file, it.range, "RW144",
                             f"this `secrets` item looks like a secret value ({shape}), not a name: `secrets` lists the names of "
                             "Infisical secrets (e.g. `DB_PASSWORD`); write the name, keep the value in Infisical, and rotate it "
                             "if this file was ever committed")
                elif not UPPER_SNAKE.match(s):
                    if _NAME_LIKE.match(s):
                        yield _d(an, an.root_file, it.range, "RW144", f"secret name `{s}` must be UPPER_SNAKE (e.g. `{re.sub(r'[^A-Za-z0-9]', '_', re.sub(r'(?<=[a-z0-9])(?=[A-Z])', '_', s)).upper()}`)")
                    else:
                        yield _d(an, an.root_file, it.range, "RW144",
                                 "this `secrets` item is not a name (UPPER_SNAKE, e.g. `DB_PASSWORD`); if it is a secret value, "
                                 "keep it in Infisical and rotate it if this file was ever committed")
        env = v.get("env")
        if isinstance(env, YMap):
            for ek, _ev in env.entries:
                if not ENV_NAME.match(ek.text):
                    yield _d(an, an.root_file, ek.range, "RW144", f"`{ek.text}` is not a valid environment variable name (letters, digits, `_`; not starting with a digit)")


def duplicate_entries(an: "Analysis") -> Iterator[Diagnostic]:
    """RW145: an entry listed twice in a workload's `secrets` or `uses`, or in a member's
    `uses` or `requires` (reported at the second; the first one counts, nothing is lost).
    A member folder listed twice in `members` is RW151's warning."""
    lists: list[tuple[str, str, YNode | None]] = []
    for k, v in _workloads(an):
        for key in ("secrets", "uses"):
            lists.append((an.root_file, f"workloads.{k.text}.{key}", v.get(key)))
    for f in an.files.values():
        if f.role == "member" and isinstance(f.parsed.root, YMap) and not f.parsed.partial:
            for key in ("uses", "requires"):
                lists.append((f.path, key, f.parsed.root.get(key)))
    for file, where, seq in lists:
        if not isinstance(seq, YSeq):
            continue
        first: dict[str, YNode] = {}
        for it in seq.items:
            s = _scalar_str(it)
            if s is None:
                continue
            if s not in first:
                first[s] = it
                continue
            line = first[s].range.start.line + 1
            yield _d(an, file, it.range, "RW145", f"`{s}` is listed twice in `{where}` (first on line {line}); remove this one",
                     {"entry": s, "first_line": line})


def env_and_secrets(an: "Analysis") -> Iterator[Diagnostic]:
    """RW146: one name both in a workload's `env` (a plain value) and in its `secrets`."""
    for k, v in _workloads(an):
        env, secrets = v.get("env"), v.get("secrets")
        if not isinstance(env, YMap) or not isinstance(secrets, YSeq):
            continue
        plain = {ek.text: ek for ek, _ev in env.entries}
        seen: set[str] = set()
        for it in secrets.items:
            s = _scalar_str(it)
            if s is None or s not in plain or s in seen:
                continue
            seen.add(s)
            line = plain[s].range.start.line + 1
            yield _d(an, an.root_file, it.range, "RW146",
                     f"`{s}` is both a plain `env` variable (line {line}) and a secret of workload `{k.text}`: the container would get "
                     "two values for one name; keep it in `secrets` only and remove it from `env`",
                     {"variable": s, "workload": k.text, "env_line": line})


#: Values that are credentials whatever their variable is called (value shapes, never quoted back).
#: Each pattern runs in linear time on any text (redact() sees every diagnostic message, and
#: a hostile file quotes 1 MB values): a lookbehind lets a match start only where a run of
#: the pattern's characters starts, and every open-ended part is bounded or followed by
#: nothing that could make it backtrack.
SECRET_VALUE_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an AWS access key id", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}(?![A-Z0-9])")),
    ("a private key", re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----")),
    ("a GitHub token", re.compile(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("a Slack token", re.compile(r"(?<![A-Za-z0-9-])xox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Stripe secret key", re.compile(r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("a Google API key", re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}")),
    ("a JSON Web Token", re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8,}")),
    ("a URL with a password in it", re.compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://[^/\s:@]{1,256}:[^/\s@]{1,256}@", re.IGNORECASE)),
)
#: What a secret's name may look like before it is UPPER_SNAKE (`stripeKey`, `db-password`):
#: quoted in RW144 with its UPPER_SNAKE form. Anything else is not quoted (it may be a value).
_NAME_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)*$")
#: Variable names that say their value is a credential (`DB_PASSWORD`, `STRIPE_API_KEY`, ...).
SECRET_NAME = re.compile(r"(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|SECRET_?KEY|PRIVATE_?KEY|SIGNING_?KEY|CREDENTIALS?)$", re.IGNORECASE)


#: What a secret-looking value is replaced with in a message (RW144/RW147 say where it is).
REDACTED = "<a value that looks like a secret>"


def redact(text: str) -> str:
    """``text`` with every credential-shaped part (:data:`SECRET_VALUE_SHAPES`) replaced by
    :data:`REDACTED`: a diagnostic quotes what the user wrote (an unknown name, a wrong
    value), and a credential pasted in the wrong place must not be quoted back into CI logs,
    annotations or SARIF uploads."""
    for _why, pattern in SECRET_VALUE_SHAPES:
        if pattern.search(text):
            text = pattern.sub(REDACTED, text)
    return text


def redacted(d: Diagnostic) -> Diagnostic:
    """``d`` with its message and ``data`` strings passed through :func:`redact`."""
    msg = redact(d.message)
    data = d.data
    if data:
        clean = {k: (redact(v) if isinstance(v, str) else v) for k, v in data.items()}
        data = clean if clean != data else data
    if msg is d.message and data is d.data:
        return d
    return Diagnostic(d.file, d.range, d.severity, d.code, msg, data, d.tags)


def secret_shape(name: str, value: object) -> str | None:
    """Why an `env` value looks like a secret (a phrase for messages), or None.

    By shape (an AWS access key id, a private key, a token with a vendor prefix, a URL with a
    password) whatever the name; or by name (`*_PASSWORD`, `*_TOKEN`, `*_API_KEY`, ...) when the
    value is a non-empty string that is not a path, a URL or a `${...}` reference.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    for why, pattern in SECRET_VALUE_SHAPES:
        if pattern.search(value):
            return why
    v = value.strip()
    if SECRET_NAME.search(name) and not (v.startswith(("/", "./", "${", "$(")) or "://" in v):
        return f"its name, `{name}`, says it is a credential"
    return None


def secret_looking_env(an: "Analysis") -> Iterator[Diagnostic]:
    """RW147: a plain `env` value that looks like a credential (it belongs in `secrets`).

    The message and ``data`` never quote the value: the diagnostic must not spread it further
    (CI logs, SARIF uploads, pull-request annotations)."""
    for k, v in _workloads(an):
        # Credentials in a URL or token shape elsewhere in the workload (an image pulled with a
        # password in its URL, a health command with one): same warning, never quoted.
        elsewhere: list[tuple[str, YNode]] = []
        image = v.get("image")
        if isinstance(image, YScalar):
            elsewhere.append(("image", image))
        health = v.get("health")
        command = health.get("command") if isinstance(health, YMap) else None
        if isinstance(command, YSeq):
            elsewhere.extend(("health command", it) for it in command.items if isinstance(it, YScalar))
        elif isinstance(command, YScalar):
            elsewhere.append(("health command", command))
        for where, node in elsewhere:
            why = secret_shape("", node.value)
            if why is not None:
                yield _d(an, an.root_file, node.range, "RW147",
                         f"the {where} holds what looks like a secret ({why}): it is plain text in the runway, in git, in the plan "
                         "and in the task definition; read it from a variable listed in `secrets` instead, and rotate it if this "
                         "file was ever committed", {"workload": k.text, "where": where})
        env = v.get("env")
        if not isinstance(env, YMap):
            continue
        for ek, ev in env.entries:
            name_why = secret_shape("", ek.text)
            if name_why is not None:
                # A credential pasted as a variable's name (`AKIA…: x` is a valid name).
                yield _d(an, an.root_file, ek.range, "RW147",
                         f"an `env` variable's name looks like a secret ({name_why}): names are plain text in the runway, in git, "
                         "in the plan and in the task definition; name the variable and keep the value in Infisical (list the "
                         "name in `secrets`), and rotate it if this file was ever committed", {"workload": k.text, "where": "env name"})
            if not isinstance(ev, YScalar):
                continue
            why = secret_shape(ek.text, ev.value)
            if why is None:
                continue
            yield _d(an, an.root_file, ev.range, "RW147",
                     f"the value of `{ek.text}` looks like a secret ({why}): `env` values are plain text in the runway, in git, in "
                     f"the plan and in the task definition; list `{ek.text}` in `secrets` instead (its value then lives in Infisical) "
                     "and rotate the value if this file was ever committed",
                     {"variable": ek.text, "workload": k.text})


# --- references -----------------------------------------------------------------------------


def uses(an: "Analysis") -> Iterator[Diagnostic]:
    """RW150 (workload uses unknown), RW152 (member uses unknown), RW153 (uses itself)."""
    from .analysis import suggest

    names = [n for n in an.symbols]
    for ref in an.references:
        if ref.via == "requires":
            continue
        if ref.name == ref.consumer and ref.file == an.root_file:
            yield _d(an, ref.file, ref.range, "RW153", f"workload `{ref.name}` uses itself", {"name": ref.name})
            continue
        if ref.name in an.symbols:
            if ref.file != an.root_file and an.symbols[ref.name].type == "workload":
                continue
            continue
        cands = [n for n in names if n != ref.consumer]
        sug = suggest(ref.name, cands)
        hint = f"; did you mean `{sug}`?" if sug else ""
        if ref.file == an.root_file:
            yield _d(an, ref.file, ref.range, "RW150", f"`{ref.name}` is not a resource or workload of this runway{hint}",
                     {"name": ref.name, "suggestion": sug, "candidates": sorted(cands)})
        else:
            yield _d(an, ref.file, ref.range, "RW152", f"`{ref.name}` is not a resource of the root runway{hint}",
                     {"name": ref.name, "suggestion": sug, "candidates": sorted(cands)})


def unused(an: "Analysis") -> Iterator[Diagnostic]:
    """RW180: a declared resource nobody uses (hint, tagged unnecessary)."""
    used = {r.name for r in an.references}
    res = _section(an, "resources")
    if res is None:
        return
    for k, v in res.entries:
        if k.text not in used and an.symbols.get(k.text) is not None and an.symbols[k.text].type == "resource":
            yield _d(an, an.root_file, k.range, "RW180", f"resource `{k.text}` is used by no workload or member", {"name": k.text}, tags=(1,))


# --- region, prices and caps ----------------------------------------------------------------


def region(an: "Analysis") -> Iterator[Diagnostic]:
    """RW160 (region unknown to the catalogue) and RW161 (prices missing for the region)."""
    r = _root(an)
    if r is None or an.spec is None:
        return
    node = r.get("region")
    rng = node.range if node is not None else _first_key_range(r)
    reg = an.spec.region
    if reg not in an.catalog.regions:
        from .analysis import suggest

        sug = suggest(reg, sorted(an.catalog.regions))
        hint = f"; did you mean `{sug}`?" if sug else ""
        yield _d(an, an.root_file, rng, "RW160", f"region `{reg}` has no prices in the catalogue{hint} (priced regions: {', '.join(sorted(an.catalog.regions))})",
                 {"region": reg, "suggestion": sug})
        return
    missing: dict[str, list[str]] = {}
    for env, plan in an.plans.items():
        for key in plan.missing_prices:
            missing.setdefault(key, []).append(env)
    if missing:
        keys = sorted(missing)
        yield _d(an, an.root_file, rng, "RW161",
                 f"the catalogue has no {reg} price for {', '.join(keys)}; those items are not estimated, so totals are lower bounds (never another region's price)",
                 {"region": reg, "missing": keys})


def _env_anchor(an: "Analysis", env: str, prefer_limit: bool) -> Range:
    envs = _section(an, "environments")
    if envs is not None:
        ev = envs.get(env)
        if prefer_limit and isinstance(ev, YMap):
            lim = ev.get("limits")
            if isinstance(lim, YMap) and lim.get("monthly") is not None:
                return lim.get("monthly").range  # type: ignore[union-attr]
        kn = envs.key_node(env)
        if kn is not None:
            return kn.range
    r = _root(an)
    if r is not None:
        kn = r.key_node("environments")
        return kn.range if kn is not None else _first_key_range(r)
    return Range(Position(0, 0), Position(0, 0))


def caps(an: "Analysis") -> Iterator[Diagnostic]:
    """RW170 (over cap: error naming the top contributors) and RW171 (no cap: warning with the
    estimate, once per environment). ADR 0493 §3: over cap is refused before anything is created."""
    if an.spec is not None and an.spec.region not in an.catalog.regions:
        return  # RW160: nothing is priced in an unknown region, so no estimate to compare
    env_models = getattr(an, "_env_models", {})
    for env, plan in an.plans.items():
        if env in an.env_keys and env not in env_models:
            continue  # its entry is invalid (RW100/RW102): the cap is unknown until it is fixed
        top = plan.top_contributors(3)
        top_txt = ", ".join(f"{i.name} {usd(i.monthly_usd)}" for i in top) or "nothing priced"
        data = {
            "environment": env,
            "total": str(cents(plan.total)),
            "cap": None if plan.cap is None else str(plan.cap),
            "top": [{"name": i.name, "monthly_usd": str(cents(i.monthly_usd))} for i in top],
        }
        # A missing unit price (RW161) leaves items unestimated: the total is a lower bound.
        est = ("at least " if plan.missing_prices else "") + usd(plan.total)
        if plan.verdict == "over-cap":
            assert plan.cap is not None
            src = "default cap" if plan.cap_source == "default" else "cap"
            yield _d(an, an.root_file, _env_anchor(an, env, True), "RW170",
                     f"{env}: estimate {est}/month is over its {src} of {usd(plan.cap)} by {usd(plan.total - plan.cap)}; "
                     f"the plan is refused. Top contributors: {top_txt}", data)
        elif plan.verdict == "no-cap":
            yield _d(an, an.root_file, _env_anchor(an, env, False), "RW171",
                     f"{env} has no cap: estimate {est}/month (top: {top_txt}); set `environments.{env}.limits.monthly` to cap it", data)


RULES: tuple[Rule, ...] = (
    format_version,
    names,
    shared_collision,
    name_clash,
    kinds,
    sizes,
    undeclared_environments,
    image_digest,
    reasons,
    injected_collisions,
    variable_names,
    duplicate_entries,
    env_and_secrets,
    secret_looking_env,
    uses,
    unused,
    region,
    caps,
)

__all__ = ["CODES", "RULES", "usd"]
