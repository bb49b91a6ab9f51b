"""What a stack's **non-secret** outputs say (docs/deploy.md, "Credentials"): nothing reads a
stored password. :func:`masked_outputs` runs ``pulumi stack output --json`` (never
``--show-secrets``); :func:`state_from_outputs` reads which databases the last ``up`` declared,
their flavor, proxy and endpoint (:class:`~deploy_engine.secrets.KnownDatabase`) and the
listener priorities it gave (:class:`StoredState`); :func:`postgres_endpoint` the host and port
consumers use. The program exports no secret. Used by :mod:`deploy_engine.automation` and the
deploy pipeline.

Must not import pulumi: a stack object is read by attribute only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .secrets import KnownDatabase

#: The secret stack output earlier versions kept the passwords in. Never read; the program
#: exports no secret (a stack deployed by an earlier version drops it at its next ``up``).
CREDENTIALS_OUTPUT = "runway_credentials"


@dataclass(frozen=True)
class StoredState:
    """From the non-secret stack outputs of the last ``up``: each postgres resource it declared
    (:class:`~deploy_engine.secrets.KnownDatabase`: flavor, proxy, endpoint). Empty for a new
    stack. Never a password."""

    databases: Mapping[str, KnownDatabase] = field(default_factory=dict)
    #: Public workload -> ALB listener-rule priority the last ``up`` gave it (kept: never moved).
    listener_priorities: Mapping[str, int] = field(default_factory=dict)
    #: The VPC the last ``up`` deployed into (``environment_resources.vpc_id``), or None.
    vpc_id: str | None = None

    @property
    def endpoints(self) -> dict[str, tuple[str, int]]:
        return {r: d.endpoint for r, d in self.databases.items() if d.endpoint is not None}


#: How ``pulumi stack output --json`` (without ``--show-secrets``) prints a secret output.
SECRET_SENTINEL = "[secret]"


def _flavor(nested: Mapping[str, Any]) -> str | None:
    flavor = nested.get("flavor")
    if isinstance(flavor, str) and flavor:
        return flavor
    arn = nested.get("arn")  # stacks deployed before `flavor` was exported
    if isinstance(arn, str):
        if ":cluster:" in arn:
            return "aurora"
        if ":db:" in arn:
            return "rds"
    return None


def state_from_outputs(outputs: Mapping[str, Any], resources: Sequence[str]) -> StoredState:
    """:class:`StoredState` from stack outputs: plain values, or ``OutputValue(value, secret)``.

    Secret outputs (``OutputValue.secret``, or the ``[secret]`` a masked ``stack output`` prints)
    are skipped unread. A postgres resource is known when ``resources[<name>]`` has an
    endpoint or an ARN.
    """
    plain: dict[str, Any] = {}
    for key, value in outputs.items():
        if hasattr(value, "secret") and hasattr(value, "value"):
            if value.secret:
                continue
            value = value.value
        if value == SECRET_SENTINEL:
            continue
        plain[str(key)] = value
    found = plain.get("resources")
    databases: dict[str, KnownDatabase] = {}
    for r in resources:
        nested = found.get(r) if isinstance(found, Mapping) else None
        if not isinstance(nested, Mapping) or not (nested.get("endpoint") or nested.get("arn")):
            continue
        version = nested.get("credential_version")
        databases[r] = KnownDatabase(flavor=_flavor(nested), proxy=bool(nested.get("proxy_endpoint")), endpoint=postgres_endpoint(plain, r),
                                     credential_version=version if isinstance(version, str) and version else None)
    env_outputs = plain.get("environment_resources")
    raw = env_outputs.get("listener_priorities") if isinstance(env_outputs, Mapping) else None
    priorities = {str(k): int(v) for k, v in raw.items() if isinstance(v, (int, float)) and not isinstance(v, bool)} if isinstance(raw, Mapping) else {}
    vpc = env_outputs.get("vpc_id") if isinstance(env_outputs, Mapping) else None
    return StoredState(databases, priorities, vpc if isinstance(vpc, str) and vpc else None)


def masked_outputs(stack: Any) -> dict[str, Any]:
    """The stack's outputs as ``pulumi stack output --json`` prints them **without**
    ``--show-secrets``: a secret output is the string ``[secret]``.

    ``Stack.outputs()`` and ``Stack.export_stack()`` of the Automation API both pass
    ``--show-secrets`` (they decrypt every secret of the stack); this runs the CLI through the
    workspace's own ``PulumiCommand`` instead, with the workspace's environment.
    """
    ws = stack.workspace
    envs: dict[str, str] = {}
    if getattr(ws, "pulumi_home", None):
        envs["PULUMI_HOME"] = ws.pulumi_home
    envs.update(getattr(ws, "env_vars", None) or {})
    result = ws.pulumi_command.run(["stack", "output", "--json", "--stack", stack.name], ws.work_dir, envs)
    doc = json.loads(result.stdout or "{}")
    if not isinstance(doc, dict):
        raise ValueError("`pulumi stack output --json` did not print a JSON object")
    return doc


# --------------------------------------------------------------------------------------
# Endpoints of postgres resources, from the stack outputs
# --------------------------------------------------------------------------------------


#: PostgreSQL's port: the RDS instance and the RDS Proxy both listen on it (deploy_engine.program).
POSTGRES_PORT = 5432


def postgres_endpoint(outputs: Mapping[str, Any], resource: str) -> tuple[str, int] | None:
    """(host, port) consumers should use for ``resource``: the RDS Proxy endpoint, else the instance's.

    Reads the stack output ``resources`` that :func:`deploy_engine.program.declare_environment`
    returns (``resources[<resource>]["proxy_endpoint"]``, else ``["endpoint"]``; ``["port"]``
    when given, else 5432). A ``host:port`` endpoint is split. None when none is found.
    """
    resources = outputs.get("resources")
    nested = resources.get(resource) if isinstance(resources, Mapping) else None
    if not isinstance(nested, Mapping):
        return None

    def get(key: str) -> Any:
        return nested.get(key)

    host = next((get(k) for k in ("proxy_endpoint", "endpoint") if get(k)), None)
    if not isinstance(host, str) or not host:
        return None
    port = get("port")
    if ":" in host:
        host, _, tail = host.rpartition(":")
        if port in (None, "") and tail.isascii() and tail.isdigit():  # `²` is a digit int() refuses
            port = int(tail)
    try:
        return host, int(port) if port not in (None, "") else POSTGRES_PORT
    except (TypeError, ValueError):
        return host, POSTGRES_PORT


__all__ = ["CREDENTIALS_OUTPUT", "POSTGRES_PORT", "SECRET_SENTINEL", "StoredState", "masked_outputs", "postgres_endpoint", "state_from_outputs"]
