"""``runway-deploy resources``: every resource the Pulumi program declares, without a cloud.

The review view of a deploy (like ``cdk synth``): the real program
(:func:`deploy_engine.program.declare_environment`) runs against Pulumi's mock monitor
(``pulumi.runtime.set_mocks``): no Pulumi CLI, no AWS call, no credentials. Each registration is
recorded as the engine would receive it:

``{"type", "name", "urn", "parent" (the parent's URN, or null at the stack root), "custom",
"inputs" (camelCase wire names, each Pulumi secret replaced by "[secret]"), "options":
{"protect", "delete_before_replace", "retain_on_delete", "ignore_changes", "depends_on"
(explicit ``depends_on`` URNs only; dependencies through inputs are in the inputs)}}``.

URNs are those of the real stack ``<product>-<env>`` in project ``runway-<product>``
(:func:`deploy_engine.automation.stack_name`, ``project_name``): the root stack's type is left out
of its children's URNs, as the engine does, so ``up`` can name the resources of a phase
(``--exclude``) from this view.

Values AWS would compute (ARNs, endpoints, DNS names) are stand-ins built from the inputs, for
the account :data:`MOCK_ACCOUNT`; a preview placeholder stands in for each database password
(never a real credential: this view generates, reads and prints none). Steady-state view: the
databases' password inputs show their ``ignore_changes``, as for a stack whose databases exist.

Pulumi is imported only when :func:`declared_resources` runs.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Collection, Mapping

from runway_core import kinds
from runway_core.text import REDACTED, secret_shape

#: The account id the mocked ``aws.get_caller_identity`` answers (an AWS documentation example id).
MOCK_ACCOUNT = "123456789012"
#: What a secret input is shown as.
MASK = "[secret]"
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"  # pulumi.runtime.rpc._special_secret_sig
_SIG_KEY = "4dabf18193072939515e22adb298388d"  # pulumi.runtime.rpc._special_sig_key
_ROOT_TYPE = "pulumi:pulumi:Stack"


def mask_secrets(value: Any, mask: bool = True) -> Any:
    """``value`` (deserialized inputs) with every Pulumi secret replaced by :data:`MASK` (unless
    ``mask`` is false). Whole numbers travel as doubles on the wire (protobuf ``Struct``); they
    are shown as integers."""
    if isinstance(value, dict):
        if mask and value.get(_SIG_KEY) == _SECRET_SIG:
            return MASK
        return {k: mask_secrets(v, mask) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_secrets(v, mask) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def computed_state(typ: str, name: str, inputs: Mapping[str, Any], region: str, account: str = MOCK_ACCOUNT) -> dict[str, Any]:
    """Inputs plus stand-ins for what AWS computes (ARN, endpoints, DNS names, generated names)."""
    state = dict(inputs)
    module = typ.split(":")[1].split("/")[0] if typ.count(":") >= 2 else ""
    service = {"lb": "elasticloadbalancing", "cloudwatch": "logs", "vpc": "ec2"}.get(module, module)
    physical = inputs.get("name") or inputs.get("identifier") or inputs.get("clusterIdentifier") or inputs.get("replicationGroupId") or f"{name}-0000000"
    state.setdefault("name", physical)
    state.setdefault("arn", f"arn:aws:{service}:{region}:{account}:{typ.split(':')[-1].lower()}/{physical}")
    if typ == "aws:rds/instance:Instance":
        state["address"] = f"{inputs['identifier']}.mock.{region}.rds.amazonaws.com"
        state["endpoint"] = state["address"] + ":5432"
    elif typ == "aws:rds/cluster:Cluster":
        state["endpoint"] = f"{inputs['clusterIdentifier']}.cluster-mock.{region}.rds.amazonaws.com"
        state["readerEndpoint"] = f"{inputs['clusterIdentifier']}.cluster-ro-mock.{region}.rds.amazonaws.com"
        state.setdefault("engineVersion", inputs.get("engineVersion"))
    elif typ == "aws:rds/proxy:Proxy":
        state["endpoint"] = f"{inputs['name']}.proxy-mock.{region}.rds.amazonaws.com"
    elif typ == "aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup":
        state["name"] = "default"
    elif typ == "aws:sqs/queue:Queue":
        state["url"] = f"https://sqs.{region}.amazonaws.com/{account}/{inputs['name']}"
        state["arn"] = f"arn:aws:sqs:{region}:{account}:{inputs['name']}"
    elif typ == "aws:sns/topic:Topic":
        state["arn"] = f"arn:aws:sns:{region}:{account}:{inputs['name']}"
    elif typ == "aws:elasticache/replicationGroup:ReplicationGroup":
        state["primaryEndpointAddress"] = f"master.{inputs['replicationGroupId']}.mock.cache.amazonaws.com"
    elif typ == "aws:s3/bucket:Bucket":
        state["bucket"] = inputs["bucketPrefix"] + "20261129000000000000000001"
        state["arn"] = f"arn:aws:s3:::{state['bucket']}"
    elif typ == "aws:lb/loadBalancer:LoadBalancer":
        state["dnsName"] = f"{physical}-1234567890.{region}.elb.amazonaws.com"
        state["zoneId"] = "Z35SXDOTRQ7X7K"
    elif typ == "aws:cloudwatch/logGroup:LogGroup":
        state["arn"] = f"arn:aws:logs:{region}:{account}:log-group:{inputs['name']}"
    elif typ == "aws:route53/record:Record":
        state["fqdn"] = inputs.get("name")
    elif typ == "aws:ecs/service:Service":
        state["id"] = f"arn:aws:ecs:{region}:{account}:service/{physical}"
    return state


def _mocks(region: str, mask: bool) -> Any:
    import pulumi
    from pulumi.runtime.mocks import MockMonitor

    class ProgramMocks(pulumi.runtime.Mocks):
        """Answers each registration with :func:`computed_state` and ``get_caller_identity`` with the mock account."""

        def new_resource(self, args: Any) -> tuple[str, dict]:
            return f"{args.name}-id", computed_state(args.typ, args.name, args.inputs, region)

        def call(self, args: Any) -> dict:
            if args.token == "aws:index/getCallerIdentity:getCallerIdentity":
                return {"accountId": MOCK_ACCOUNT, "arn": f"arn:aws:sts::{MOCK_ACCOUNT}:assumed-role/runway-resources/mock", "userId": "mock", "id": MOCK_ACCOUNT}
            raise ValueError(f"the program called an unexpected provider function {args.token}")

    class RecordingMonitor(MockMonitor):
        """The mock monitor, recording each registration's parent and options; URNs as the engine makes them."""

        def __init__(self, mocks: Any, mask: bool) -> None:
            super().__init__(mocks)
            self.records: list[dict[str, Any]] = []
            self.mask = mask

        def make_urn(self, parent: str, type_: str, name: str) -> str:
            if parent and parent.split("::")[2] == _ROOT_TYPE:
                parent = ""  # the engine leaves the root stack's type out of its children's URNs
            return super().make_urn(parent, type_, name)

        def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - the gRPC method name
            from pulumi.runtime import rpc

            if request.type != _ROOT_TYPE:
                inputs = rpc.deserialize_properties(request.object, keep_unknowns=True)
                through_inputs = {u for deps in request.propertyDependencies.values() for u in deps.urns}
                root = request.parent and request.parent.split("::")[2] == _ROOT_TYPE
                self.records.append({
                    "type": request.type,
                    "name": request.name,
                    "urn": self.make_urn(request.parent, request.type, request.name),
                    "parent": None if (not request.parent or root) else request.parent,
                    "custom": bool(request.custom),
                    "inputs": mask_secrets(inputs, self.mask),
                    "options": {
                        "protect": bool(request.protect),
                        "delete_before_replace": bool(request.deleteBeforeReplace),
                        "retain_on_delete": bool(request.retainOnDelete),
                        "ignore_changes": list(request.ignoreChanges),
                        "depends_on": sorted(u for u in request.dependencies if u not in through_inputs),
                    },
                })
            return super().RegisterResource(request)

    mocks = ProgramMocks()
    return mocks, RecordingMonitor(mocks, mask)


def declared_resources(
    plan: Any,
    *,
    product: str,
    region: str,
    network: Any,
    credentials: Mapping[str, str] | None = None,
    set_passwords: Collection[str] = (),
    credential_versions: Mapping[str, str] | None = None,
    known_priorities: Mapping[str, int] | None = None,
    mask: bool = True,
    engine_versions: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Run the program for ``plan`` under mocks; ``{"environment", "resources": [...], "outputs"}``.

    ``resources`` in registration order (shape in the module docstring); ``outputs`` is what
    ``declare_environment`` returned, resolved (stand-in values; no secret). ``credentials``
    defaults to the preview placeholder for every postgres resource. ``mask=False`` keeps each
    secret input as Pulumi's wrapped form ``{<sig key>: <secret sig>, "value": ...}`` (tests that
    check which value a secret carries; never for output). Raises what
    ``declare_environment`` raises (``SettingsError``, ``ValueError``) before recording anything.
    Not re-entrant: Pulumi's runtime settings are process-global; they are reset afterwards.
    """
    from .program import declare_environment
    from .secrets import PREVIEW_PLACEHOLDER

    if credentials is None:
        credentials = {i.name: PREVIEW_PLACEHOLDER for i in plan.items if (k := kinds.get(i.kind)) is not None and k.credentials}

    def program() -> Any:
        return declare_environment(
            plan, product=product, region=region, network=network, credentials=credentials, set_passwords=set_passwords,
            credential_versions=credential_versions, known_priorities=known_priorities, engine_versions=engine_versions,
        )

    records, outputs = run_under_mocks(program, product=product, environment=plan.name, region=region, mask=mask)
    return {"environment": plan.name, "resources": records, "outputs": outputs}


def run_under_mocks(program: Any, *, product: str, environment: str, region: str, mask: bool = True) -> tuple[list[dict[str, Any]], Any]:
    """Run ``program()`` (a Pulumi program function) under the recording mock monitor, in stack
    ``<product>-<environment>`` of project ``runway-<product>``; (records, its resolved return value)."""
    import pulumi
    from pulumi.runtime import settings as pulumi_settings

    from .automation import project_name, stack_name

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    pulumi_settings.reset_options()
    mocks, monitor = _mocks(region, mask)
    result: dict[str, Any] = {}
    try:
        pulumi.runtime.set_mocks(mocks, project=project_name(product), stack=stack_name(product, environment), preview=False, monitor=monitor)

        @pulumi.runtime.test
        def run() -> Any:
            return pulumi.Output.from_input(program()).apply(lambda resolved: result.setdefault("value", resolved))

        run()
    finally:
        pulumi_settings.reset_options()
        asyncio.set_event_loop(None)
        loop.close()
    return monitor.records, result.get("value")


def hide_secret_container_env(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` (of :func:`declared_resources`) with each ECS container definition's plain
    ``environment`` value that looks like a credential replaced by
    :data:`runway_core.text.REDACTED`, as the printed plan hides it
    (:func:`runway_core.planner.hide_secret_env`, RW147's test
    :func:`runway_core.text.secret_shape`: by shape or by a name such as ``GITHUB_TOKEN``).
    ``containerDefinitions`` is a JSON string inside the inputs (Pulumi's ``TaskDefinition``
    takes it so), so the output's recogniser cannot tell a value's name from it: it is parsed,
    masked and written back as the program writes it (``sort_keys``). For output only; the
    records are not changed (a copy where something is masked)."""
    out = []
    for r in records:
        inputs = r.get("inputs")
        defs = inputs.get("containerDefinitions") if isinstance(inputs, dict) else None
        if isinstance(defs, str):
            try:
                containers = json.loads(defs)
            except ValueError:
                containers = None
            changed = False
            for c in containers if isinstance(containers, list) else ():
                env = c.get("environment") if isinstance(c, dict) else None
                for var in env if isinstance(env, list) else ():
                    if isinstance(var, dict) and secret_shape(str(var.get("name", "")), var.get("value")) is not None:
                        var["value"] = REDACTED
                        changed = True
            if changed:
                r = {**r, "inputs": {**inputs, "containerDefinitions": json.dumps(containers, sort_keys=True)}}
        out.append(r)
    return out


#: The data resources whose protections the review lists, by type: (plan item's component prefix).
_PROTECTED_TYPES = (
    "aws:rds/instance:Instance", "aws:rds/cluster:Cluster", "aws:rds/clusterInstance:ClusterInstance",
    "aws:elasticache/replicationGroup:ReplicationGroup", "aws:s3/bucket:Bucket", "aws:cloudwatch/logGroup:LogGroup",
)


def review(plan: Any, records: list[dict[str, Any]]) -> dict[str, Any]:
    """What a reviewer asks of one environment, read back from the declared ``records``
    (never from the plan alone, so it shows what the program really declares):

    ``{"environment", "disposable", "workloads": {name: {"platform", "cpu_architecture",
    "health": {"load_balancer": {path, interval, timeout, matcher} | null, "container":
    {command, interval, timeout, retries} | null, "probe": {container, image, essential, command,
    interval, timeout, retries} | null, "cloud_map_custom_health": bool,
    "replaces_hung_task": bool}}},
    "protections": {logical name: {"type", "protect", "retain_on_delete", "deletion_protection",
    "final_snapshot", "apply_immediately", "snapshot_retention_days"}}}`` (keys a type does not
    have are left out)."""
    by_name = {r["name"]: r for r in records}
    env = plan.name
    workloads: dict[str, Any] = {}
    for item in plan.items:
        if item.kind != "workload":
            continue
        task = by_name.get(f"{env}-{item.name}-task-definition")
        group = by_name.get(f"{env}-{item.name}-target-group")
        discovery = by_name.get(f"{env}-{item.name}-discovery")
        container = None
        probe = None
        arch = None
        if task is not None:
            arch = (task["inputs"].get("runtimePlatform") or {}).get("cpuArchitecture")
            try:
                definitions = json.loads(task["inputs"].get("containerDefinitions") or "[]")
            except ValueError:
                definitions = []
            definitions = [d for d in definitions if isinstance(d, dict)] if isinstance(definitions, list) else []
            check = definitions[0].get("healthCheck") if definitions else None
            if isinstance(check, dict):
                container = {k: check.get(k) for k in ("command", "interval", "timeout", "retries")}
            # The health probe sidecar of an internal health.path workload (program/workload.py).
            for d in definitions[1:]:
                if isinstance(d.get("healthCheck"), dict):
                    probe = {"container": d.get("name"), "image": d.get("image"), "essential": d.get("essential") is True,
                             **{k: d["healthCheck"].get(k) for k in ("command", "interval", "timeout", "retries")}}
        lb = None
        if group is not None and isinstance(group["inputs"].get("healthCheck"), dict):
            hc = group["inputs"]["healthCheck"]
            lb = {k: hc.get(k) for k in ("path", "interval", "timeout", "matcher")}
        workloads[item.name] = {
            "platform": (item.capacity or {}).get("platform"),
            "cpu_architecture": arch,
            "health": {"load_balancer": lb, "container": container, "probe": probe,
                       "cloud_map_custom_health": discovery is not None and "healthCheckCustomConfig" in discovery["inputs"],
                       # ECS replaces a task that fails its target group's or an essential container's check.
                       "replaces_hung_task": lb is not None or container is not None or bool(probe and probe["essential"])},
        }
    protections: dict[str, Any] = {}
    for r in records:
        if r["type"] not in _PROTECTED_TYPES:
            continue
        i = r["inputs"]
        entry: dict[str, Any] = {"type": r["type"], "protect": r["options"]["protect"], "retain_on_delete": r["options"].get("retain_on_delete", False)}
        for out, key in (("deletion_protection", "deletionProtection"), ("final_snapshot", "finalSnapshotIdentifier"),
                         ("apply_immediately", "applyImmediately"), ("snapshot_retention_days", "snapshotRetentionLimit")):
            if key in i:
                entry[out] = i[key]
        if r["type"].startswith("aws:rds/") and "finalSnapshotIdentifier" not in i and "skipFinalSnapshot" in i:
            entry["final_snapshot"] = None
        protections[r["name"]] = entry
    return {"environment": env, "disposable": bool(getattr(plan, "disposable", False)), "workloads": workloads, "protections": protections}


def text_lines(doc: Mapping[str, Any]) -> list[str]:
    """The text form: one line per resource, indented under its component, with its options."""
    lines = [f"resources of {doc['environment']}: {len(doc['resources'])} declared (mock account {MOCK_ACCOUNT}; no cloud call)"]
    for r in doc["resources"]:
        opts = r["options"]
        flags = []
        if opts["protect"]:
            flags.append("protect")
        if opts["ignore_changes"]:
            flags.append("ignore_changes=" + ",".join(opts["ignore_changes"]))
        if opts["depends_on"]:
            flags.append("depends_on=" + ",".join(u.rsplit("::", 1)[-1] for u in opts["depends_on"]))
        indent = "    " if r["parent"] else "  "
        lines.append(f"{indent}{r['type']}  {r['name']}" + (f"  [{'; '.join(flags)}]" if flags else ""))
    return lines


__all__ = ["MASK", "MOCK_ACCOUNT", "computed_state", "declared_resources", "hide_secret_container_env", "mask_secrets", "review", "run_under_mocks",
           "text_lines"]
