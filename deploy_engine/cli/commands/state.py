"""``state check [--backend URL] [--format text|json]``: verify the state bucket keeps the deploy
records as docs/deploy.md requires (versioning, Object Lock, default encryption, public access
block, lifecycle rules; :mod:`deploy_engine.state_check`). Exit 0 when every setting is there,
3 when one is missing (each named with the AWS CLI command and the Pulumi lines that fix it), or
when the backend is no ``s3://`` bucket, its AWS configuration is unusable or the bucket does
not answer within the store's deadline (``RUNWAY_STORE_TIMEOUT_S``)."""

from __future__ import annotations

import argparse
from typing import Any

from deploy_engine.cli.formats.json import dump
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_CONFIG, EXIT_OK, PROG
from deploy_engine.terminal import printable

NAME = "state"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="check the state bucket (versioning, Object Lock, encryption, public access, lifecycle)",
                       description="Commands on the state backend. See docs/deploy.md, \"The state bucket\".")
    actions = p.add_subparsers(dest="state_command", metavar="ACTION", required=True)
    check = actions.add_parser("check", help="verify the s3:// state bucket keeps the deploy records; exit 3 naming what is missing",
                               description="Verify the s3:// state bucket: versioning, Object Lock, default encryption, "
                               "public access block and the lifecycle rules of the deploy records.")
    check.add_argument("--backend", metavar="URL", default=None, help="s3://<bucket>[/<prefix>] (default: $PULUMI_BACKEND_URL)")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    return p


def run(args: argparse.Namespace, ctx: Context) -> int:
    from deploy_engine.receipts import endpoint_secrets, public_backend_url, url_secrets
    from deploy_engine.records import backend_url, open_store
    from deploy_engine.records.s3_store import S3Store
    from deploy_engine.records.store import StoreError
    from deploy_engine.secrets import Redactor
    from deploy_engine.state_check import check_bucket, report_text

    url = backend_url(args.backend, ctx.environ)
    redactor = Redactor(url_secrets(url) + endpoint_secrets(ctx.environ))
    ctx.redactor = redactor

    def refuse(message: str) -> int:
        message = redactor.scrub(message)
        print(printable(f"{PROG} state check: {message}"), file=ctx.stderr)
        if args.format == "json":
            dump({"error": {"exit_code": EXIT_CONFIG, "message": message}}, ctx.stdout)
        return EXIT_CONFIG

    if not url.lower().startswith("s3://"):
        shown = public_backend_url(url) if url else "the embedded file:// backend"
        return refuse(f"{shown} is no s3:// bucket: set --backend or PULUMI_BACKEND_URL to s3://<bucket>[/<prefix>] "
                      "(the file:// store keeps its records under .runway/; nothing to check)")
    try:
        store = open_store(url, ".", ctx.environ, redactor)
        assert isinstance(store, S3Store)
        report = check_bucket(store)
    except (ValueError, StoreError) as exc:
        # A URL without a bucket, an AWS configuration botocore refuses (StoreConfigError), a
        # bucket that does not answer within the store's deadline (StoreTimeout): exit 3.
        return refuse(str(exc))
    if args.format == "json":
        dump(redactor.scrub_doc({"format_version": 1, "command": "state check", "backend": public_backend_url(url),
                                 "bucket": report.bucket, "records": report.records, "ok": report.ok,
                                 "checks": [c.to_json() for c in report.checks]}), ctx.stdout)
    else:
        ctx.stdout.write(redactor.scrub(report_text(report)))
    return EXIT_OK if report.ok else EXIT_CONFIG


__all__ = ["NAME", "add_parser", "run"]
