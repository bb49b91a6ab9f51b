"""A postgres' engine version resolved to a full version AWS accepts for the operation (issue 24).

The runway names a major version (``"16"``, docs/format.md). What RDS is asked for depends on
what exists (botocore's rds model, ``DescribeDBEngineVersions``: ``DBEngineVersions[]`` with
``EngineVersion``, ``ValidUpgradeTarget[]`` of ``{EngineVersion, IsMajorVersionUpgrade}``):

- **a new database**: the engine's default version of that major
  (``DescribeDBEngineVersions(Engine, EngineVersion=<major>, DefaultOnly=True)``);
- **the same major as the running one**: the running version, as RDS reports it
  (``DescribeDBInstances`` / ``DescribeDBClusters`` ``EngineVersion``): minor upgrades are
  RDS's own (``auto_minor_version_upgrade``), and declaring the version that runs is no change;
- **a higher major**: the highest ``ValidUpgradeTarget`` of the running version that is a
  major upgrade within the planned major: a version ModifyDBInstance / ModifyDBCluster accepts
  from there (not every 17.x is a valid target of every 16.x);
- **a lower major** is refused before (RW192), and a higher major without a valid target
  raises :class:`NoUpgradePath`.

Raises :class:`deploy_engine.preflight.PreflightError` when a call fails.
"""

from __future__ import annotations

from typing import Any, Mapping

from deploy_engine.preflight import PreflightError, _call


class NoUpgradePath(Exception):
    """The running version has no valid major upgrade target in the planned major."""


ENGINES = {"rds": "postgres", "aurora": "aurora-postgresql"}


def _key(version: str) -> tuple[int, ...]:
    # ASCII digits only: str.isdigit is true for `²`, which int() refuses (ninth adversary M9).
    return tuple(int(p) if p.isascii() and p.isdigit() else -1 for p in version.split("."))


def current_version(rds: Any, flavor: str, identifier: str) -> str | None:
    """The running engine version of the database ``identifier``, or None when there is none."""
    try:
        if flavor == "aurora":
            page = _call("rds:DescribeDBClusters", rds.describe_db_clusters, DBClusterIdentifier=identifier)
            found = page.get("DBClusters") or []
        else:
            page = _call("rds:DescribeDBInstances", rds.describe_db_instances, DBInstanceIdentifier=identifier)
            found = page.get("DBInstances") or []
    except PreflightError as exc:
        if "DBInstanceNotFound" in str(exc) or "DBClusterNotFoundFault" in str(exc):
            return None
        raise
    version = found[0].get("EngineVersion") if found else None
    return version if isinstance(version, str) else None


def resolve_version(rds: Any, flavor: str, major: str, current: str | None) -> str:
    """The full version to declare for ``major`` given the ``current`` running version (None: a
    new database); see the module docstring."""
    engine = ENGINES[flavor]
    if current is None:
        page = _call("rds:DescribeDBEngineVersions", rds.describe_db_engine_versions, Engine=engine, EngineVersion=major, DefaultOnly=True)
        versions = [v.get("EngineVersion") for v in page.get("DBEngineVersions") or [] if isinstance(v.get("EngineVersion"), str)]
        if not versions:
            raise NoUpgradePath(f"{engine} {major}: RDS offers no version of it in this region")
        return versions[0]
    running_major = current.split(".")[0]
    if running_major == major:
        return current
    if _key(running_major) > _key(major):
        raise NoUpgradePath(f"{engine} {current} -> {major}: RDS never downgrades (RW192)")
    page = _call("rds:DescribeDBEngineVersions", rds.describe_db_engine_versions, Engine=engine, EngineVersion=current)
    targets = [t.get("EngineVersion") for v in page.get("DBEngineVersions") or [] for t in v.get("ValidUpgradeTarget") or []
               if t.get("IsMajorVersionUpgrade") and isinstance(t.get("EngineVersion"), str) and t["EngineVersion"].split(".")[0] == major]
    if not targets:
        raise NoUpgradePath(f"{engine} {current} has no valid upgrade target in {major} (DescribeDBEngineVersions ValidUpgradeTarget): "
                            f"upgrade to a newer {running_major}.x first, or to an intermediate major")
    return max(targets, key=_key)


def resolve_all(rds: Any, databases: Mapping[str, tuple[str, str, str]]) -> dict[str, str]:
    """``databases``: postgres name -> (flavor, identifier, planned major); returns name -> full version."""
    return {name: resolve_version(rds, flavor, major, current_version(rds, flavor, identifier))
            for name, (flavor, identifier, major) in databases.items()}


__all__ = ["ENGINES", "NoUpgradePath", "current_version", "resolve_all", "resolve_version"]
