"""``receipts [PATH] [--env ENV] [--format text|json]`` lists the receipts of the runway's
product from the records store of its backend (``--backend`` / ``PULUMI_BACKEND_URL``; the
embedded default: ``.runway/receipts/``); ``receipts export --to DIR [PATH] [--env ENV]`` copies
them, with the environments' end records, into DIR (the backup and audit mirror; never
overwriting a file there) and writes ``DIR/SHA256SUMS`` (docs/deploy.md, "Records").

Exit 0; 1 when the runway at PATH has no product (errors); 3 no runway, the store cannot be
read (an AWS configuration botocore refuses, an operation past its ``RUNWAY_STORE_TIMEOUT_S``
deadline), or an export would overwrite a different file; 64 usage errors. A receipt that
cannot be read (unreadable file, a symlink to itself, a name that is no UTC time, a missing
field, a duplicate key) is listed as ``unreadable`` with the reason; the listing goes on.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import re
from pathlib import Path
from typing import Any

from deploy_engine.cli.commands._args import add_path_arguments, intermixed, named
from deploy_engine.cli.formats.json import dump
from deploy_engine.cli.inputs import load
from deploy_engine.context import Context
from deploy_engine.exits import EXIT_CONFIG, EXIT_INVALID, EXIT_OK, PROG, UsageError
from deploy_engine.terminal import printable

NAME = "receipts"
#: Receipts listed (and read) by default, the newest: each is one or two requests to the store,
#: and a shared bucket may hold thousands (``git log -n`` bounds a listing the same way).
DEFAULT_LIMIT = 50


def _limit(text: str) -> int:
    """``--limit N``: a whole number, 0 for every receipt."""
    if not (text.strip().isascii() and text.strip().isdigit()) or len(text.strip()) > 9:
        raise argparse.ArgumentTypeError("--limit N is a whole number of receipts (0: all)")
    return int(text.strip())


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="list the deploy receipts in the records store; `receipts export --to DIR` copies them",
                       description="List the receipts of every up and destroy of the runway's product, from the records "
                       "store of its backend; `receipts export --to DIR [PATH]` copies them to DIR. See docs/deploy.md.")
    intermixed(p)
    add_path_arguments(p)
    p.add_argument("more", nargs="?", default=None, metavar="PATH", help=argparse.SUPPRESS)
    p.add_argument("--env", metavar="ENV", default=None, help="only this environment (default: every environment of the runway)")
    p.add_argument("--backend", metavar="URL", default=None,
                   help="the state backend whose records store to read (default: $PULUMI_BACKEND_URL, else .runway/)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument("--limit", metavar="N", type=_limit, default=DEFAULT_LIMIT,
                   help=f"list only the newest N receipts, reading only those (default: {DEFAULT_LIMIT}; 0: all)")
    p.add_argument("--to", metavar="DIR", default=None, type=named("--to DIR"), help="`receipts export`: the folder to copy the receipts into")
    p.usage = f"{PROG} receipts [PATH] [--env ENV] [--backend URL] [--format text|json] [--limit N]\n       {PROG} receipts export --to DIR [PATH] [--env ENV] [--backend URL]"
    return p


def _words(args: argparse.Namespace) -> tuple[bool, str]:
    """(export?, PATH) from ``receipts [PATH]`` / ``receipts export [PATH]``."""
    # `export` is the action unless it is the only word and a folder of that name exists.
    if args.path == "export" and (args.more is not None or args.to is not None or not Path("export").exists()):
        return True, args.more or "."
    if args.more is not None:
        raise UsageError(f"{PROG} receipts: error: one PATH only (or `receipts export --to DIR [PATH]`)")
    return False, args.path


def _check_env(env: str | None, declared: list[str], root_file: str, keys: list[str], store: Any, product: str,
               export: bool, ctx: Context) -> None:
    """``--env ENV`` that the runway does not declare (ninth adversary M11): with no receipts of
    it a usage error (64: a typo, ``prodd`` or ``DEV``, never "0 receipt(s)" and a passed audit
    step), naming the declared environments and the closest one; with receipts (an environment
    since removed from the runway, whose receipts stay 7 years) listed, after a warning on
    stderr saying it is not declared."""
    if not env or env in declared:
        return
    lowered = {d.lower(): d for d in declared}
    close = [lowered[m] for m in difflib.get_close_matches(env.lower(), list(lowered), n=1, cutoff=0.5)]  # `prodd` is 0.53 of `production`
    hint = f"; did you mean {close[0]}?" if close else ""
    known = ", ".join(declared) or "none"
    command = "receipts export" if export else "receipts"
    scrub = ctx.redactor.scrub if ctx.redactor is not None else str  # the store's location may hold a URL's secret
    if not keys:
        raise UsageError(scrub(printable(f"{PROG} {command}: error: --env {env}: no such environment in {Path(root_file).name} "
                                         f"(declared: {known}) and no receipts of it in "
                                         f"{store.location(store.key('receipts', product, env))}{hint}")))
    print(scrub(printable(f"{PROG} {command}: warning: --env {env} is not declared in {Path(root_file).name} (declared: {known}){hint}; "
                    f"listing the {len(keys)} receipt(s) kept of it")), file=ctx.stderr)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from deploy_engine.backend import DeployConfigError, check_backend_scheme
    from deploy_engine.receipts import endpoint_secrets, list_receipts, url_secrets
    from deploy_engine.records import backend_url, open_store
    from deploy_engine.records.store import StoreError
    from deploy_engine.secrets import Redactor

    export, path = _words(args)
    if args.env is not None and not args.env.strip():
        # `--env "$UNSET"`: never "no filter" (every environment listed), as `plan --env ""` is 64 too.
        raise UsageError(f"{PROG} receipts: error: --env is empty: name an environment")
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
    redactor = Redactor(url_secrets(url) + endpoint_secrets(ctx.environ))
    ctx.redactor = redactor
    product = an.spec.product
    try:
        if url:
            # A backend this tool does not deploy to has no records here: refused (exit 3), never
            # the local .runway/ listed in its place (docs/deploy.md, "Backend").
            check_backend_scheme(url)
        store = open_store(url, root, ctx.environ, redactor)
        keys = list_receipts(store, product, args.env, list(an.plans))
        _check_env(args.env, list(an.plans), an.root_file, keys, store, product, export, ctx)
        if export:
            return _export(ctx, store, product, args.env or None, list(an.plans), keys, Path(args.to), redactor)
        envs = [args.env] if args.env else list(an.plans)
        # A key whose name is no UTC time (`zzz-junk.json`), or that leaves its folder, is
        # listed first as unreadable, never read, and takes no --limit slot: only the newest
        # --limit receipts are read (the others sort by their UTC start time).
        odd = {k for k in keys if _untimed(store, product, envs, k)}
        untimed, timed = [k for k in keys if k in odd], [k for k in keys if k not in odd]
        omitted = max(0, len(timed) - args.limit) if args.limit else 0
        rows = [_row(store, key, _prefix(store, "receipts", product, envs, key)) for key in untimed + timed[omitted:]]
    except (StoreError, ValueError, DeployConfigError) as exc:
        print(redactor.scrub(printable(f"{PROG} receipts: {exc}")), file=ctx.stderr)
        if args.format == "json":
            dump({"error": {"exit_code": EXIT_CONFIG, "message": redactor.scrub(str(exc))}}, ctx.stdout)
        return EXIT_CONFIG
    where = store.location(store.key("receipts", product, args.env) if args.env else "receipts/")
    if omitted:
        print(redactor.scrub(f"{PROG} receipts: {omitted} older receipt(s) not shown (the newest {args.limit} of {len(timed)}; "
                             f"--limit 0 lists all)"), file=ctx.stderr)
    if args.format == "json":
        dump(redactor.scrub_doc({"format_version": 1, "command": "receipts", "product": product, "environment": args.env,
                                 "store": store.scheme, "location": where, "omitted": omitted, "receipts": rows}), ctx.stdout)
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


def _prefix(store: Any, kind: str, product: str, envs: list[str], key: str) -> str:
    """The folder prefix ``key`` was listed under (the longest that matches; '' for none)."""
    return max((p for p in (store.key(kind, product, e) for e in envs) if key.startswith(p)), key=len, default="")


def _untimed(store: Any, product: str, envs: list[str], key: str) -> bool:
    """Whether ``key`` is no receipt by its name (no UTC time) or leaves its folder: listed, not read."""
    from deploy_engine.records.export import key_problem
    from deploy_engine.records.kinds import timed_name_problem

    return key_problem(key, _prefix(store, "receipts", product, envs, key)) is not None or timed_name_problem(key) is not None


def _row(store: Any, key: str, prefix: str) -> dict[str, Any]:
    from deploy_engine.receipts import read_checked

    row: dict[str, Any] = {"key": key, "location": store.location(key)}
    got = read_checked(store, key, prefix)
    if got.problem is not None:
        return {**row, "error": f"unreadable: {got.problem}"}
    until = store.locked_until(key)
    row["locked_until"] = until.isoformat().replace("+00:00", "Z") if until else None
    row["receipt"] = got.doc
    return row


def _export(ctx: Context, store: Any, product: str, env: str | None, envs: list[str], keys: list[str], dest: Path,
            redactor: Any) -> int:
    """Copy ``keys`` (and the environments' ``ends/`` records) to ``dest/<key>``, byte for byte as
    the store holds them, strictly inside ``dest`` (:class:`deploy_engine.records.export.FolderWriter`:
    no symlink below it followed, each file written atomically and checked against the sha256 of
    the record read); never overwrite (a file there with other content is a conflict, exit 3). A
    key that leaves its prefix, or a record that is unreadable, is named and not exported (exit 3)."""
    from deploy_engine.records.export import FolderWriter, Refused, inside_folder

    folder = getattr(store, "folder", None)  # a file:// store's folder (.runway/); S3 has none here
    if folder is not None and inside_folder(dest, Path(folder)):
        # The copy would land in the live store: later listings see it twice, every later
        # export refuses its keys (fourth adversary, F14). Checked before anything is made.
        print(redactor.scrub(printable(f"{PROG} receipts export: {dest} is inside the records store it reads ({folder}); "
                                       "name a folder outside it")), file=ctx.stderr)
        return EXIT_CONFIG
    owned = [env] if env else envs
    wanted = [(key, "receipts") for key in keys]
    for e in owned:
        wanted += [(key, "ends") for key in store.list(store.key("ends", product, e))]
    try:
        return _export_into(ctx, FolderWriter(dest), store, product, owned, wanted, redactor)
    except (Refused, OSError) as exc:
        # DIR cannot be made or written (a file of that name, no permission, a full disk).
        reason = str(exc) if isinstance(exc, Refused) else f"{dest}: {exc.strerror or exc}"
        print(redactor.scrub(printable(f"{PROG} receipts export: {reason}")), file=ctx.stderr)
        return EXIT_CONFIG


def _export_into(ctx: Context, writer: Any, store: Any, product: str, owned: list[str], wanted: list[tuple[str, str]],
                 redactor: Any) -> int:
    from deploy_engine.receipts import MAX_RECEIPT_BYTES, read_checked
    from deploy_engine.records.export import Refused, file_name_problem, key_problem

    dest = writer.dest
    new = same = 0
    problems: list[str] = []
    # What SHA256SUMS vouches for: the store's sha256 of every record read now (a file of
    # DIR with other content then fails `sha256sum -c`), and the lines of the SHA256SUMS
    # there before for files this run did not read (another environment's, an earlier
    # export's). Never the hash of whatever DIR holds (sixth adversary F4: a file altered in
    # the mirror was reported, then vouched for).
    vouched: dict[str, str] = {}
    with writer as out:
        for key, kind in wanted:
            prefix = _prefix(store, kind, product, owned, key)
            # A valid S3 key no file can be named after: said so, not read (a key S3 itself
            # would refuse is read_checked's to name).
            too_long = None if key_problem(key, prefix) is not None else file_name_problem(key)
            if too_long is not None:
                problems.append(f"{store.location(key)}: key {too_long}; not exported")
                continue
            got = read_checked(store, key, prefix, receipt=kind == "receipts")
            if got.problem is not None or got.record is None:
                # The record named once: a store's reason may begin with its location already.
                where = store.location(key)
                why = str(got.problem)
                problems.append(f"{why if why.startswith(where) else f'{where}: {why}'}; not exported")
                continue
            data = got.record.data
            vouched[key] = hashlib.sha256(data).hexdigest()
            try:
                there = out.existing(key, MAX_RECEIPT_BYTES)
                if there is not None:
                    if there == data:
                        same += 1
                    else:
                        problems.append(f"{dest / key} exists with other content; not overwritten")
                    continue
                try:
                    out.create(key, data)
                    new += 1
                except FileExistsError:
                    problems.append(f"{dest / key} exists with other content; not overwritten")
            except Refused as exc:
                problems.append(str(exc))
        carried = _previous_sums(out, problems)
        listed = {**{rel: digest for rel, digest in carried.items() if rel not in vouched}, **vouched}
        for _digest, rel in out.sums(("receipts", "ends"), MAX_RECEIPT_BYTES):
            if rel not in listed:
                problems.append(f"{dest / rel} is neither a record of the store nor listed in the SHA256SUMS there before; "
                                "not vouched for (remove it, or restore it from the store)")
        sums = sorted(listed.items())
        text = "".join(f"{digest}  {rel}\n" for rel, digest in sums)
        try:
            out.create("SHA256SUMS", text.encode("utf-8"), replace=True)
        except Refused as exc:
            problems.append(str(exc))
    print(redactor.scrub(f"{PROG} receipts export: {new} new, {same} already there, {len(problems)} conflicting or refused, "
                         f"in {dest} (SHA256SUMS lists {len(sums)})"), file=ctx.stderr)
    for problem in problems:
        print(redactor.scrub(printable(f"{PROG} receipts export: {problem}")), file=ctx.stderr)
    return EXIT_CONFIG if problems else EXIT_OK


#: The largest SHA256SUMS read back (a line is ~110 bytes: some 600,000 records).
MAX_SUMS_BYTES = 64 * 1024 * 1024
_SUMS_LINE = re.compile(r"([0-9a-f]{64})  ((?:receipts|ends)/[A-Za-z0-9_./-]{1,4096})")


def _previous_sums(out: Any, problems: list[str]) -> dict[str, str]:
    """``{path: sha256}`` of the lines of ``DIR/SHA256SUMS`` as an export wrote them (``<64 hex>
    <two spaces><receipts/ or ends/ path>``); a line of another shape, or a path with ``..``, is
    named in ``problems`` and not carried over. An unreadable or oversized file carries nothing."""
    from deploy_engine.records.export import Refused

    try:
        data = out.existing("SHA256SUMS", MAX_SUMS_BYTES)
    except Refused:
        return {}  # a symlink there: the write of SHA256SUMS names it
    if data is None:
        return {}
    if len(data) > MAX_SUMS_BYTES:
        problems.append(f"{out.dest / 'SHA256SUMS'} is over {MAX_SUMS_BYTES // (1024 * 1024)} MiB; its lines were not carried over")
        return {}
    carried: dict[str, str] = {}
    for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        m = _SUMS_LINE.fullmatch(line)
        if m is None or ".." in m.group(2).split("/") or "" in m.group(2).split("/"):
            problems.append(f"{out.dest / 'SHA256SUMS'} line {n} is not a line an export writes; not carried over")
            continue
        carried[m.group(2)] = m.group(1)
    return carried


__all__ = ["NAME", "add_parser", "run"]
