"""``python -m deploy_engine``: the same as the ``runway-deploy`` console script.

Must not import pulumi (see :mod:`deploy_engine`).
"""

from deploy_engine.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
