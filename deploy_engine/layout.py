"""What one environment's deploy looks like, as pure data: no pulumi, no boto3.

Shared by the Pulumi program (:mod:`deploy_engine.program`), the pre-flight checks
(:mod:`deploy_engine.preflight`) and the CLI, so that the SSM parameters a task definition
references, the parameters ``up`` waits for and the names in its error messages are one list.

- :func:`workload_parameters`: per workload, the SSM parameters its task definition reads
  (``{"name", "valueFrom"}`` secrets of the container): its own ``secrets`` at
  ``/runway/<product>/<env>/<workload>/<NAME>``, then every injected variable of every item it
  ``uses`` at the path the planner gives (``ItemPlan.ssm_parameters``). Every one of them is
  filled by the Infisical -> SSM sync from ``<env>:/runtime/<resource>/`` (ADR 0493 §4); the
  program never creates an SSM parameter (docs/deploy.md, "Secrets flow").
- :func:`listener_priorities`: the ALB listener-rule priority of each public workload, stable
  when workloads are added or removed (docs/deploy.md, "Replacement-safe by construction").
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Iterable, Mapping

_ECR_IMAGE = re.compile(r"^\d{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/")

#: ALB listener-rule priorities are 1..50000 (ELBv2 CreateRule, Priority).
PRIORITY_MIN, PRIORITY_MAX = 1, 50000


def is_private_ecr(image: str) -> bool:
    """A private ECR image (``<account>.dkr.ecr.<region>.amazonaws.com/...``): the execution role
    pulls it, and VPC endpoints can reach it; any other registry needs a route to the internet."""
    return bool(_ECR_IMAGE.match(image))


def parameter_root(product: str, environment: str) -> str:
    """``/runway/<product>/<env>``: the SSM path under which the Infisical sync writes this environment."""
    return f"/runway/{product}/{environment}"


def own_secret_path(product: str, environment: str, workload: str, name: str) -> str:
    """Where a workload's own secret ``name`` lives in SSM (and in Infisical, ``<env>:/runtime/<workload>/``)."""
    return f"{parameter_root(product, environment)}/{workload}/{name}"


def used_items(plan: Any, workload: Any) -> list[Any]:
    """The plan items ``workload`` uses (plan order), itself excluded."""
    wanted = (workload.capacity or {}).get("uses") or ()
    return [i for i in plan.items if i.name in wanted and i.name != workload.name]


def workload_parameters(plan: Any, product: str) -> dict[str, list[tuple[str, str]]]:
    """Workload name -> ``[(variable, SSM parameter name)]`` its container reads, in container order.

    Own secrets first (``secrets`` of the workload, de-duplicated), then per used item its
    injected variables in the planner's order. Pure function of the plan.
    """
    out: dict[str, list[tuple[str, str]]] = {}
    for w in plan.items:
        if w.kind != "workload":
            continue
        refs: list[tuple[str, str]] = []
        for name in dict.fromkeys((w.capacity or {}).get("secrets") or ()):
            refs.append((name, own_secret_path(product, plan.name, w.name, name)))
        for used in used_items(plan, w):
            for var in used.variables:
                refs.append((var, used.ssm_parameters[var]))
        out[w.name] = refs
    return out


def required_parameters(plan: Any, product: str) -> dict[str, list[str]]:
    """SSM parameter name -> the workloads whose task definition reads it (sorted names)."""
    found: dict[str, list[str]] = {}
    for w, refs in workload_parameters(plan, product).items():
        for _, path in refs:
            found.setdefault(path, [])
            if w not in found[path]:
                found[path].append(w)
    return dict(sorted(found.items()))


def _home(name: str) -> int:
    digest = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    return PRIORITY_MIN + digest % (PRIORITY_MAX - PRIORITY_MIN + 1)


def listener_priorities(public: Iterable[str], known: Mapping[str, int] | None = None) -> dict[str, int]:
    """Priority of each public workload's listener rule.

    A workload keeps the priority the last ``up`` gave it (``known``, from the stack's
    non-secret outputs) when that is still a valid, unclaimed priority. A new one starts at a
    priority derived from its name (sha256, 1..50000) and moves up past taken ones (wrapping);
    new names are placed in sorted order, so the result does not depend on list order. Adding
    or removing a workload therefore never moves another one's rule (ELBv2 refuses a priority
    that is held: ``PriorityInUse``).
    """
    names = list(dict.fromkeys(public))
    taken: dict[int, str] = {}
    out: dict[str, int] = {}
    for name in names:
        p = (known or {}).get(name)
        if isinstance(p, int) and not isinstance(p, bool) and PRIORITY_MIN <= p <= PRIORITY_MAX and p not in taken:
            taken[p] = name
            out[name] = p
    span = PRIORITY_MAX - PRIORITY_MIN + 1
    for name in sorted(n for n in names if n not in out):
        p = _home(name)
        while p in taken:
            p = PRIORITY_MIN + (p - PRIORITY_MIN + 1) % span
        taken[p] = name
        out[name] = p
    return {n: out[n] for n in names}


#: The health probe's image: BusyBox 1.37.0, the OCI index (linux/amd64 and linux/arm64/v8,
#: among others) of Docker's official image, as docker-library/repo-info records it
#: (``repos/busybox/remote/1.37.0.md``, ``docker pull busybox@sha256:9db7b599...``), served
#: under the same digest by ECR Public's mirror of Docker official images (no Docker Hub pull
#: limit). BusyBox's ``wget`` does the GET. ``RUNWAY_HEALTH_PROBE_IMAGE`` (docs/deploy.md)
#: overrides it, e.g. with a private ECR copy for private subnets without a NAT gateway.
HEALTH_PROBE_IMAGE = "public.ecr.aws/docker/library/busybox@sha256:9db7b59979c38555a39def84a31fb98b5296952f9e3afd4f6f11f05b07adfab0"


def needs_probe(capacity: Mapping[str, Any]) -> bool:
    """True for an internal workload whose ``health`` is a ``path`` (docs/format.md, "Health checks"):
    no load balancer calls it, so its task gets the health probe sidecar (program/workload.py)."""
    health = capacity.get("health") or {}
    return capacity.get("expose") != "public" and bool(health.get("path")) and not health.get("command")


def health_probe_image(network: Any, capacity: Mapping[str, Any]) -> str | None:
    """The probe image a workload's task runs (``RUNWAY_HEALTH_PROBE_IMAGE`` or
    :data:`HEALTH_PROBE_IMAGE`), None when it needs no probe. ``network`` is a NetworkSettings."""
    if not needs_probe(capacity):
        return None
    return getattr(network, "health_probe_image", None) or HEALTH_PROBE_IMAGE


__all__ = [
    "HEALTH_PROBE_IMAGE",
    "health_probe_image",
    "is_private_ecr",
    "needs_probe",
    "PRIORITY_MAX",
    "PRIORITY_MIN",
    "listener_priorities",
    "own_secret_path",
    "parameter_root",
    "required_parameters",
    "used_items",
    "workload_parameters",
]
