"""``python -m deploy_engine.pricelist [refresh] --region R --output DIR [--source URL]``."""

import sys

from .command import main

if __name__ == "__main__":
    argv = sys.argv[1:]
    if argv[:1] == ["refresh"]:
        argv = argv[1:]
    raise SystemExit(main(argv))
