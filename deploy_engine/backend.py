"""Where Pulumi keeps a stack's state, and the passphrase of its secrets provider
(docs/deploy.md; used by :mod:`deploy_engine.automation`).

- **Backend**: ``--backend URL``, else ``PULUMI_BACKEND_URL``, else the embedded
  ``file://<product repo>/.runway/state`` (the folder is created). ``s3://bucket[/prefix]`` is
  the choice for teams and CI, where the working tree is thrown away after each job.
- **Secrets provider**: ``passphrase``, from ``PULUMI_CONFIG_PASSPHRASE``. It is required for
  an ``s3://`` backend. For a ``file://`` backend without it, a passphrase is generated once
  and kept in ``.runway/pulumi-passphrase`` (mode 0600, listed in ``.runway/.gitignore``).

Must not import pulumi.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from .folders import make_folders
from .receipts import public_backend_url
from .secrets import SecretValue, generate_password
from .workdir import PASSPHRASE_FILE, runway_folder, runway_subfolder

ENV_BACKEND = "PULUMI_BACKEND_URL"
ENV_PASSPHRASE = "PULUMI_CONFIG_PASSPHRASE"
#: Backend URL schemes accepted: the embedded/local folder, and S3 for teams.
BACKEND_SCHEMES = ("file", "s3")


class DeployConfigError(Exception):
    """Deploy configuration missing or invalid; ``missing`` names environment variables to set."""

    def __init__(self, message: str, missing: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.missing = tuple(missing)


@dataclass(frozen=True)
class Backend:
    """Where Pulumi keeps the state. ``embedded`` is the default folder in the product repo."""

    url: str
    embedded: bool = False

    @property
    def scheme(self) -> str:
        return self.url.split("://", 1)[0].lower()


def check_backend_scheme(url: str) -> str:
    """The scheme of backend ``url`` (``file`` or ``s3``, :data:`BACKEND_SCHEMES`); the one check
    of every command that follows the backend (``preview``/``up``/``drift``/``destroy`` and the
    records commands, ``receipts``). Raises :class:`DeployConfigError` (exit 3) for another
    scheme (``gs://``, ``azblob://``, ``https://``) or none (docs/deploy.md, "Backend")."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in BACKEND_SCHEMES:
        # Never the URL's user info (a password): public_backend_url shows it as ***.
        raise DeployConfigError(
            f"backend {public_backend_url(url)!r}: use file://<folder> or s3://<bucket>[/<prefix>] (--backend or {ENV_BACKEND})",
            (ENV_BACKEND,),
        )
    return scheme


def resolve_backend(arg: str | None, environ: Mapping[str, str], repo_root: Path) -> Backend:
    """``--backend``, else ``PULUMI_BACKEND_URL``, else ``file://<repo>/.runway/state`` (created).

    Raises :class:`DeployConfigError` for another scheme than ``file://`` or ``s3://``.
    """
    url = (arg or environ.get(ENV_BACKEND) or "").strip()
    if not url:
        state = runway_subfolder(repo_root, "state").resolve()
        return Backend(f"file://{state.as_posix()}", embedded=True)
    scheme = check_backend_scheme(url)
    if scheme == "file":
        folder = Path(url[len("file://"):]).expanduser()
        make_folders(folder)
    return Backend(url)


def resolve_passphrase(backend: Backend, environ: Mapping[str, str], repo_root: Path) -> SecretValue:
    """The secrets-provider passphrase of the stack.

    ``PULUMI_CONFIG_PASSPHRASE`` when set. Otherwise, for a ``file://`` backend, the one kept
    in ``.runway/pulumi-passphrase`` (generated with :func:`secrets.token_urlsafe` on first
    use, created 0600 with O_EXCL; a file readable by others is refused). For ``s3://``,
    raises :class:`DeployConfigError` naming ``PULUMI_CONFIG_PASSPHRASE``: a team backend needs
    the team's passphrase, not one local to a runner.
    """
    given = environ.get(ENV_PASSPHRASE)
    if given:
        return SecretValue(given)
    if backend.scheme != "file":
        raise DeployConfigError(
            f"{ENV_PASSPHRASE} is required with the {backend.scheme}:// backend (the stack's secrets are encrypted with it)",
            (ENV_PASSPHRASE,),
        )
    path = runway_folder(repo_root) / PASSPHRASE_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & 0o077:
            raise DeployConfigError(f"{path} is readable by others (mode {mode:o}); run `chmod 600 {path}`") from None
        value = path.read_text(encoding="utf-8").strip()
        if not value:
            raise DeployConfigError(f"{path} is empty; delete it only if the stack holds no secrets yet, or set {ENV_PASSPHRASE}") from None
        return SecretValue(value)
    value = generate_password()
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(value.reveal() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        # An empty or cut passphrase file (ENOSPC) would be read as the stack's passphrase on
        # the next run: removed, so that run makes a whole one (nothing was encrypted yet).
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    return value


__all__ = [
    "BACKEND_SCHEMES", "ENV_BACKEND", "ENV_PASSPHRASE", "Backend", "DeployConfigError", "resolve_backend", "resolve_passphrase",
]
