"""The deploy pipeline of ``preview``, ``up``, ``drift`` and ``destroy``: guards, configuration,
credentials, lease, Pulumi through the Automation API (:mod:`deploy_engine.automation`), receipt
(docs/deploy.md).

:func:`~deploy_engine.pipeline.guards.run_deploy` takes the analysis of a valid runway (the
command line has loaded it and refused an invalid one with exit 1) and runs the guards in this
order: over the cap (2: nothing is declared and pulumi is not even imported), the plan is not
the reviewed one (8, ``--plan-digest``), ``up`` outside the protected deploy job (4), no Pulumi
CLI (5), configuration missing (3), lease held (6; also a lease taken over while ``up`` runs,
found by :func:`~deploy_engine.pipeline.run.lease_lost` before each phase). A Pulumi or Infisical failure is 7
(:mod:`deploy_engine.exits`). A database password is generated and set only by the ``up`` that
creates the database, or that rotates it (``--rotate-credentials``, the proxy added or removed);
only those values are written to Infisical, after logging in before ``pulumi up``; no run reads
a stored one (docs/deploy.md, "Credentials"). SIGTERM ends a run like Ctrl-C (exit 143,
:class:`~deploy_engine.pipeline.run.SigtermRaises`). With ``--format json`` a failed
``preview``/``drift`` prints ``{"error": {"exit_code", "message"}}``. Every ``up`` and
``destroy`` writes a receipt (:mod:`deploy_engine.receipts`); every line it prints goes through
the run's :class:`~deploy_engine.secrets.Redactor`. Every record (receipt, lease, the plan
``preview`` showed, the drift report) goes to the records store of the backend
(:mod:`deploy_engine.records`: ``.runway/`` or the ``s3://`` state bucket), opened before the
first guard.

The parts, in the order a run meets them:

- :mod:`~deploy_engine.pipeline.run`: one run (:class:`~deploy_engine.pipeline.run.DeployRun`:
  its options, redactor, output, records store, receipt, lease), SIGTERM, the JSON error object;
- :mod:`~deploy_engine.pipeline.guards`: :func:`~deploy_engine.pipeline.guards.run_deploy`, the
  guards in their order, the ``[deploy]`` extra, the deploy configuration and the network
  pre-flight, then the command's own part;
- :mod:`~deploy_engine.pipeline.credentials`: the run's database credentials, chosen against
  what the stack holds (and the flavor-switch refusal);
- :mod:`~deploy_engine.pipeline.preview`: ``preview`` and ``drift`` (read only; the reviewed
  plan and the drift report are recorded);
- :mod:`~deploy_engine.pipeline.up`: ``up`` under the lease, in its phases (data resources,
  Infisical writes, the Infisical -> SSM sync, the services) and its safety nets;
- :mod:`~deploy_engine.pipeline.destroy`: ``destroy`` under the lease (protected resources,
  the receipts' retention).

Must not import pulumi at module level: only the paths past the guards import
:mod:`deploy_engine.automation` (and through it pulumi), lazily.
"""
