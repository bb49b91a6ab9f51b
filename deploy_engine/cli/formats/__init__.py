"""The output formats of ``runway-deploy``, one module each (docs/cli.md, "Output formats").

- :mod:`~deploy_engine.cli.formats.text`: for humans, 1-based line and column (code points),
  colour only on a TTY without ``NO_COLOR``;
- :mod:`~deploy_engine.cli.formats.markdown`: GitHub Markdown tables (PR comments, the job summary);
- :mod:`~deploy_engine.cli.formats.json`: the stable, versioned interface (``format_version`` 1),
  0-based ranges in UTF-16 code units;
- :mod:`~deploy_engine.cli.formats.github`: workflow-command annotations;
- :mod:`~deploy_engine.cli.formats.sarif`: SARIF 2.1.0 for code scanning.

Formats render what a command computed; they import no command and no sibling format (shared
helpers live in :mod:`~deploy_engine.cli.formats._shared`).
"""
