"""``receipts [PATH] [--env ENV] [--format text|json]`` lists the receipts of the runway's
product from the records store of its backend (``--backend`` / ``PULUMI_BACKEND_URL``; the
embedded default: ``.runway/receipts/``); ``receipts export --to DIR [PATH] [--env ENV]`` copies
them, with the environments' end records, into DIR (the backup and audit mirror; never
overwriting a file there) and writes ``DIR/SHA256SUMS`` (docs/deploy.md, "Records").

Exit 0; 1 when the runway at PATH has no product (errors); 3 no runway, the store cannot be
read, or an export would overwrite a different file; 64 usage errors.
"""

from __future__ import annotations

import argparse
import hashlib
import os
from pathlib import Path
from typing import Any

from deploy_engine.cli.commands._args import add_path_arguments
from deploy_engine.cli.formats.json import dump
from deploy_engine.cli.inputs import load
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_CONFIG, EXIT_INVALID, EXIT_OK, PROG, UsageError
from deploy_engine.terminal import printable

NAME = "receipts"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="list the deploy receipts in the records store; `receipts export --to DIR` copies them",
                       description="List the receipts of every up and destroy of the runway's product, from the records "
                       "store of its backend; `receipts export --to DIR [PATH]` copies them to DIR. See docs/deploy.md.")
    add_path_arguments(p)
    p.add_argument("more", nargs="?", default=None, metavar="PATH", help=argparse.SUPPRESS)
    p.add_argument("--env", metavar="ENV", default=None, help="only this environment (default: every environment of the runway)")
    p.add_argument("--backend", metavar="URL", default=None,
                   help="the state backend whose records store to read (default: $PULUMI_BACKEND_URL, else .runway/)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument("--to", metavar="DIR", default=None, help="`receipts export`: the folder to copy the receipts into")
    p.usage = f"{PROG} receipts [PATH] [--env ENV] [--backend URL] [--format text|json]\n       {PROG} receipts export --to DIR [PATH] [--env ENV] [--backend URL]"
    return p


def _words(args: argparse.Namespace) -> tuple[bool, str]:
    """(export?, PATH) from ``receipts [PATH]`` / ``receipts export [PATH]``."""
    # `export` is the action unless it is the only word and a folder of that name exists.
    if args.path == "export" and (args.more is not None or args.to is not None or not Path("export").exists()):
        return True, args.more or "."
    if args.more is not None:
        raise UsageError(f"{PROG} receipts: error: one PATH only (or `receipts export --to DIR [PATH]`)")
    return False, args.path


def run(args: argparse.Namespace, ctx: Context) -> int:
    from deploy_engine.backend import DeployConfigError, check_backend_scheme
    from deploy_engine.receipts import list_receipts, url_secrets
    from deploy_engine.records import backend_url, open_store
    from deploy_engine.records.store import StoreError
    from deploy_engine.secrets import Redactor

    export, path = _words(args)
    if export and not args.to:
        raise UsageError(f"{PROG} receipts export: error: --to DIR is required")
    if not export and args.to:
        raise UsageError(f"{PROG} receipts: error: --to goes with `receipts export`")
    args.path = path
    an, _ = load(args)
    if an.spec is None:
        print(f"{PROG} receipts: the runway has errors and no product; run `{PROG} check`", file=ctx.stderr)
        return EXIT_INVALID
    root = Path(an.root_file).resolve().parent
    url = backend_url(args.backend, ctx.environ)
    redactor = Redactor(url_secrets(url))
    ctx.redactor = redactor
    product = an.spec.product
    try:
        if url:
            # A backend this tool does not deploy to has no records here: refused (exit 3), never
            # the local .runway/ listed in its place (docs/deploy.md, "Backend").
            check_backend_scheme(url)
        store = open_store(url, root, ctx.environ, redactor)
        keys = list_receipts(store, product, args.env, list(an.plans))
        if export:
            return _export(ctx, store, product, args.env or None, list(an.plans), keys, Path(args.to), redactor)
        rows = [_row(store, key) for key in keys]
    except (StoreError, ValueError, DeployConfigError) as exc:
        print(redactor.scrub(f"{PROG} receipts: {exc}"), file=ctx.stderr)
        if args.format == "json":
            dump({"error": {"exit_code": EXIT_CONFIG, "message": redactor.scrub(str(exc))}}, ctx.stdout)
        return EXIT_CONFIG
    where = store.location(store.key("receipts", product, args.env) if args.env else "receipts/")
    if args.format == "json":
        dump(redactor.scrub_doc({"format_version": 1, "command": "receipts", "product": product, "environment": args.env,
                                 "store": store.scheme, "location": where, "receipts": rows}), ctx.stdout)
        return EXIT_OK
    lines = []
    for r in rows:
        doc = r.get("receipt") or {}
        locked = f"  locked until {r['locked_until']}" if r.get("locked_until") else ""
        if "error" in r:
            lines.append(f"{'?':<27} {r['error']}  {r['location']}")
            continue
        lines.append(f"{doc.get('started_at', '?'):<27} {doc.get('environment', '?'):<12} {doc.get('command', '?'):<8} "
                     f"{doc.get('outcome', '?'):<10} exit {doc.get('exit_code')!s:<4} plan {str(doc.get('plan_digest') or '')[:12]}  "
                     f"{r['location']}{locked}")
    lines.append(f"{len(rows)} receipt(s) of {product} in {where}")
    ctx.stdout.write(redactor.scrub("\n".join(printable(ln) for ln in lines)) + "\n")
    return EXIT_OK


def _row(store: Any, key: str) -> dict[str, Any]:
    record = store.read(key)
    row: dict[str, Any] = {"key": key, "location": store.location(key)}
    if record is None:
        return {**row, "error": "gone since listed"}
    until = store.locked_until(key)
    row["locked_until"] = until.isoformat().replace("+00:00", "Z") if until else None
    try:
        row["receipt"] = record.json()
    except ValueError:
        row["error"] = "not a receipt (invalid JSON)"
    return row


def _export(ctx: Context, store: Any, product: str, env: str | None, envs: list[str], keys: list[str], dest: Path,
            redactor: Any) -> int:
    """Copy ``keys`` (and the environments' ``ends/`` records) to ``dest/<key>``, byte for byte as
    the store holds them; never overwrite (a file there with other content is a conflict, exit 3)."""
    for e in [env] if env else envs:
        keys = keys + store.list(store.key("ends", product, e))
    new = same = 0
    conflicts: list[str] = []
    for key in keys:
        record = store.read(key)
        if record is None:
            continue
        target = dest / key
        if target.exists():
            if target.read_bytes() == record.data:
                same += 1
            else:
                conflicts.append(str(target))
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".tmp-{os.getpid()}-{target.name}")
        tmp.write_bytes(record.data)
        try:
            os.link(tmp, target)  # never replaces a file already there
            new += 1
        except FileExistsError:
            conflicts.append(str(target))
        finally:
            tmp.unlink()
    sums = sorted(p for folder in ("receipts", "ends") if (dest / folder).is_dir() for p in (dest / folder).rglob("*.json"))
    text = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(dest).as_posix()}\n" for p in sums)
    tmp = dest / ".SHA256SUMS.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, dest / "SHA256SUMS")
    print(redactor.scrub(f"{PROG} receipts export: {new} new, {same} already there, {len(conflicts)} conflicting, in {dest} "
                         f"(SHA256SUMS lists {len(sums)})"), file=ctx.stderr)
    for c in conflicts:
        print(f"{PROG} receipts export: {c} exists with other content; not overwritten", file=ctx.stderr)
    return EXIT_CONFIG if conflicts else EXIT_OK


__all__ = ["NAME", "add_parser", "run"]
