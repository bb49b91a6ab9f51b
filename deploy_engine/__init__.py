"""The deploy side of runway: the ``runway-deploy`` command line and the Pulumi program.

- :mod:`deploy_engine.cli`: the command line (a package: parser, one module per command, one
  per output format); ``check`` and ``plan`` are pure adapters over
  :func:`runway_core.analysis.analyze` and the one planner.
- :mod:`deploy_engine.pipeline`: ``preview`` / ``up`` / ``drift`` / ``destroy`` (guards,
  configuration, lease, receipt) through the Pulumi Automation API
  (:mod:`deploy_engine.automation`).
- Leaves both use: :mod:`deploy_engine.exits` (exit codes), :mod:`deploy_engine.context`
  (streams, environment, clock), :mod:`deploy_engine.terminal` (printable text).
- :mod:`deploy_engine.program`: the Pulumi program, a function of one environment's plan.
- :mod:`deploy_engine.secrets`, :mod:`~deploy_engine.infisical`, :mod:`~deploy_engine.leases`,
  :mod:`~deploy_engine.receipts`: generated credentials, blind writes to Infisical, one lease
  per environment, and a receipt per ``up``.

Importing this package (or :mod:`deploy_engine.cli`) must not import pulumi: editor and CI
users of ``check`` and ``plan`` never pay for it, and pulumi lives in the ``[deploy]`` extra.
Only the ``preview`` / ``up`` / ``drift`` code paths import pulumi, lazily, after the cap and
job guards.
"""

#: The version of the ``runway-tooling`` distribution: set in one place, runway_core (which
#: pyproject.toml reads); re-exported for ``runway-deploy --version`` and SARIF.
from runway_core import __version__  # noqa: E402
