"""Workloads: RW140 (image pinned by digest), RW141/RW142 (the reason and its ground, ADR
0493 §5), RW143 (a name an injected variable takes), RW145 (an entry listed twice) and RW146
(one name both in ``env`` and ``secrets``), RW148/RW149 (health values the schema accepts and
AWS refuses: ELBv2 CreateTargetGroup, ECS HealthCheck).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..diagnostics import Diagnostic
from ..kinds import RESOURCE_KINDS
from ..model import REASON_GROUNDS
from ..names import DIGEST
from ..planner import injected_variables
from ..yamlsrc import YMap, YNode, YScalar, YSeq
from ._common import _d, _scalar_str, _workloads

if TYPE_CHECKING:
    from ..facts import Analysis


def image_digest(an: "Analysis") -> Iterator[Diagnostic]:
    """RW140: `image` is pinned by digest (`name@sha256:<64 hex>`)."""
    for k, v in _workloads(an):
        img = v.get("image")
        if isinstance(img, YScalar) and isinstance(img.value, str) and not DIGEST.fullmatch(img.value):
            _name, sep, digest = img.value.partition("@sha256:")
            if img.value != img.value.strip():
                # `image: |` keeps the block's final line break: `…@sha256:<64 hex>\n`.
                why = "it starts or ends with a space or a line break"
            elif sep and re.fullmatch(r"[0-9a-fA-F]*", digest):
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
            # "on-prem parity" (docs/format.md's own example) names the ground as well as "on-prem-parity".
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


#: The deploy's defaults when a health check leaves them out (deploy_engine.program.workload:
#: the target group's and the container check's interval and timeout), seconds.
DEFAULT_HEALTH_INTERVAL_S, DEFAULT_HEALTH_TIMEOUT_S = 30, 5
#: ECS HealthCheck ``timeout``: 2 to 60 seconds (Amazon ECS API Reference, HealthCheck); the
#: schema's 2-120 is the load balancer's range.
ECS_TIMEOUT_MAX_S = 60


def _int(node: YNode | None) -> int | None:
    if isinstance(node, YScalar) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def health_limits(an: "Analysis") -> Iterator[Diagnostic]:
    """RW148: an HTTP (`path`) check whose `timeout_s` is not below its `interval_s` (the ALB
    refuses it: ELBv2 CreateTargetGroup, "the timeout must be smaller than the interval").
    RW149: a `command` check, or the `path` check of an internal workload (run by the deploy's
    health probe container), whose `timeout_s` exceeds ECS's 60 s. Defaults count as the
    deploy declares them (interval 30 s, timeout 5 s); values outside the schema's own ranges
    are RW100 and not repeated here."""
    for k, v in _workloads(an):
        health = v.get("health")
        if not isinstance(health, YMap):
            continue
        interval_node, timeout_node = health.get("interval_s"), health.get("timeout_s")
        interval, timeout = _int(interval_node), _int(timeout_node)
        if (interval_node is not None and interval is None) or (timeout_node is not None and timeout is None):
            continue  # a wrong type is RW100
        i = interval if interval is not None else DEFAULT_HEALTH_INTERVAL_S
        t = timeout if timeout is not None else DEFAULT_HEALTH_TIMEOUT_S
        if not (5 <= i <= 300 and 2 <= t <= 120):
            continue  # RW100 reports the range
        if health.get("path") is not None and t >= i:
            node = timeout_node if timeout_node is not None else interval_node
            given = f"timeout_s {t}" + ("" if timeout is not None else " (the default)")
            every = f"interval_s {i}" + ("" if interval is not None else " (the default)")
            yield _d(an, an.root_file, (node or health).range, "RW148",
                     f"workload `{k.text}`: the load balancer refuses a health check whose {given} is not below its {every}; "
                     f"make timeout_s smaller than interval_s (e.g. timeout_s: {max(2, min(i - 1, 5))})",
                     {"workload": k.text, "interval_s": i, "timeout_s": t})
        expose = v.get("expose")
        # An internal `path` check is an ECS container health check too (the deploy's health probe).
        ecs_checked = health.get("command") is not None or (
            health.get("path") is not None and not (isinstance(expose, YScalar) and expose.value == "public"))
        if ecs_checked and timeout is not None and timeout > ECS_TIMEOUT_MAX_S:
            yield _d(an, an.root_file, timeout_node.range, "RW149",
                     f"workload `{k.text}`: ECS refuses a container health check whose timeout_s is {timeout}: it allows 2 to "
                     f"{ECS_TIMEOUT_MAX_S} seconds; use timeout_s: {ECS_TIMEOUT_MAX_S} or less",
                     {"workload": k.text, "timeout_s": timeout, "max": ECS_TIMEOUT_MAX_S})
