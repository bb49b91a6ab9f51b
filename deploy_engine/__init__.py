"""The deploy side of runway: the ``runway-deploy`` command line and, later, the Pulumi program.

Today this package holds the pure commands (``check``, ``plan``: :mod:`deploy_engine.cli`),
which are adapters over :func:`runway_core.analysis.analyze` and the one planner. The Pulumi
program and the ``preview`` / ``up`` commands arrive with a later issue.

Importing this package (or :mod:`deploy_engine.cli`) must not import pulumi: editor and CI
users of ``check`` and ``plan`` never pay for it, and pulumi lives in the ``[deploy]`` extra.
Only the ``preview`` / ``up`` command code paths may import pulumi, lazily, inside the
function that runs them.
"""
