"""``pulumi_aws`` with only the resource modules this program uses loaded.

Importing ``pulumi_aws.ec2`` runs its ``__init__``, which imports every one of ec2's ~180 resource
modules (about 2 s on the deploy machines; the whole program's ``pulumi_aws`` imports took ~7 s
of a 9 s ``runway-deploy resources`` run). Each submodule package ``__init__`` only re-exports
its modules (``from .security_group import *``; resource-reference registration lives in
``pulumi_aws/__init__``), so this module installs, for each submodule the program uses and
nobody imported yet, a package module holding just the classes listed in :data:`USED`, loaded
from their own files. Any other name asked of such a package loads the full ``__init__`` into
it first (PEP 562 ``__getattr__``), so other code in the process sees the complete package.

:func:`load` returns ``pulumi_aws`` itself, used as ``aws.ec2.SecurityGroup`` as usual.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import types
from typing import Any

#: Submodule -> the names the program uses (resources and their ``*Args`` input types).
USED: dict[str, tuple[str, ...]] = {
    "ec2": ("SecurityGroup", "SecurityGroupIngressArgs", "SecurityGroupEgressArgs"),
    "vpc": ("SecurityGroupIngressRule", "SecurityGroupEgressRule"),
    "ecs": ("Cluster", "TaskDefinition", "Service", "TaskDefinitionRuntimePlatformArgs", "ServiceLoadBalancerArgs",
            "ServiceNetworkConfigurationArgs", "ServiceDeploymentCircuitBreakerArgs", "ServiceServiceRegistriesArgs"),
    "lb": ("LoadBalancer", "Listener", "ListenerRule", "TargetGroup", "ListenerDefaultActionArgs", "ListenerDefaultActionFixedResponseArgs",
           "ListenerDefaultActionRedirectArgs", "ListenerRuleActionArgs", "ListenerRuleConditionArgs", "ListenerRuleConditionHostHeaderArgs",
           "ListenerRuleConditionPathPatternArgs", "TargetGroupHealthCheckArgs"),
    "servicediscovery": ("PrivateDnsNamespace", "Service", "ServiceDnsConfigArgs", "ServiceDnsConfigDnsRecordArgs", "ServiceHealthCheckCustomConfigArgs"),
    "rds": ("SubnetGroup", "Instance", "Cluster", "ClusterInstance", "Proxy", "ProxyDefaultTargetGroup", "ProxyTarget", "ProxyAuthArgs",
            "ProxyDefaultTargetGroupConnectionPoolConfigArgs"),
    "secretsmanager": ("Secret", "SecretVersion"),
    "iam": ("Role", "RolePolicy"),
    "sqs": ("Queue",),
    "sns": ("Topic",),
    "elasticache": ("SubnetGroup", "ReplicationGroup"),
    "s3": ("Bucket", "BucketVersioning", "BucketPublicAccessBlock", "BucketServerSideEncryptionConfiguration", "BucketPolicy",
           "BucketVersioningVersioningConfigurationArgs", "BucketServerSideEncryptionConfigurationRuleArgs",
           "BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs"),
    "cloudwatch": ("LogGroup",),
    "route53": ("Record", "RecordAliasArgs"),
}


def _file_of(name: str) -> str:
    """``SecurityGroupIngressRule`` -> ``security_group_ingress_rule``; ``*Args`` live in ``_inputs``."""
    if name.endswith("Args"):
        return "_inputs"
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class _SlimPackage(types.ModuleType):
    """A ``pulumi_aws.<sub>`` package holding some names; any other name loads the full package."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or self.__dict__.get("_runway_full"):
            raise AttributeError(name)
        folder = os.path.dirname(self.__dict__["_runway_spec"].origin)
        if os.path.exists(os.path.join(folder, name + ".py")) or os.path.isdir(os.path.join(folder, name)):
            # A submodule (``from . import outputs``): the import system loads it by itself.
            raise AttributeError(name)
        self.__dict__["_runway_full"] = True
        spec = self.__dict__["_runway_spec"]
        spec.loader.exec_module(self)  # the real __init__, in this module's namespace
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}") from None


def _slim(sub: str, names: tuple[str, ...]) -> None:
    full = f"pulumi_aws.{sub}"
    existing = sys.modules.get(full)
    if existing is not None:
        # ``pulumi_aws/__init__`` registers each submodule as a not-yet-loaded pulumi
        # ``_LazyModule``, whose first attribute access runs the full ``__init__``: take it over
        # (same object, so references to it stay valid). Anything else is loaded already.
        if type(existing).__name__ != "_LazyModule":
            return
        spec = types.ModuleType.__getattribute__(existing, "__spec__")
        existing.__class__ = _SlimPackage
        module = existing
    else:
        spec = importlib.util.find_spec(full)
        if spec is None or not spec.submodule_search_locations:
            importlib.import_module(full)
            return
        module = _SlimPackage(full)
        module.__file__ = spec.origin
        module.__path__ = list(spec.submodule_search_locations)
        module.__package__ = full
        module.__spec__ = spec
    module.__dict__["_runway_spec"] = spec
    sys.modules[full] = module
    try:
        for name in names:
            source = importlib.import_module(f"{full}.{_file_of(name)}")
            setattr(module, name, getattr(source, name))
    except BaseException:
        del sys.modules[full]
        raise
    setattr(sys.modules["pulumi_aws"], sub, module)


def load() -> Any:
    """``pulumi_aws`` with the :data:`USED` submodules loaded slim (idempotent)."""
    import pulumi_aws

    for sub, names in USED.items():
        _slim(sub, names)
    return pulumi_aws


__all__ = ["USED", "load"]
