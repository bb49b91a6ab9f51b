"""Text helpers every layer uses: the closest known word, and credentials kept out of output.

- :func:`suggest`: the closest option to a misspelt word (difflib), for "did you mean".
- :func:`secret_shape`: why a value looks like a credential (by its shape, or by its
  variable's name), for RW144/RW147 and the outline.
- :func:`redact` / :func:`redacted`: every credential-shaped part of a message replaced, so
  that a secret pasted in the wrong place is never quoted back into CI logs, annotations or
  SARIF uploads (docs/reliability.md).

A leaf: imports only the standard library and :mod:`runway_core.diagnostics`.
"""

from __future__ import annotations

import difflib
import re
from typing import Iterable

from .diagnostics import Diagnostic


def suggest(word: str, options: Iterable[str]) -> str | None:
    """The closest option to ``word`` (difflib ratio >= 0.6), or None."""
    m = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return m[0] if m else None


#: Values that are credentials whatever their variable is called (value shapes, never quoted back).
#: Each pattern runs in linear time on any text (redact() sees every diagnostic message, and
#: a hostile file quotes 1 MB values): a lookbehind lets a match start only where a run of
#: the pattern's characters starts, and every open-ended part is bounded or followed by
#: nothing that could make it backtrack.
SECRET_VALUE_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an AWS access key id", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}(?![A-Z0-9])")),
    ("a private key", re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----")),
    ("a GitHub token", re.compile(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("a Slack token", re.compile(r"(?<![A-Za-z0-9-])xox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Stripe secret key", re.compile(r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("a Google API key", re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}")),
    ("a JSON Web Token", re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8,}")),
    ("a URL with a password in it", re.compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://[^/\s:@]{1,256}:[^/\s@]{1,256}@", re.IGNORECASE)),
)


#: Variable names that say their value is a credential (`DB_PASSWORD`, `STRIPE_API_KEY`, ...).
SECRET_NAME = re.compile(r"(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|SECRET_?KEY|PRIVATE_?KEY|SIGNING_?KEY|CREDENTIALS?)$", re.IGNORECASE)


#: What a secret-looking value is replaced with in a message (RW144/RW147 say where it is).
REDACTED = "<a value that looks like a secret>"


def redact(text: str) -> str:
    """``text`` with every credential-shaped part (:data:`SECRET_VALUE_SHAPES`) replaced by
    :data:`REDACTED`: a diagnostic quotes what the user wrote (an unknown name, a wrong
    value), and a credential pasted in the wrong place must not be quoted back into CI logs,
    annotations or SARIF uploads."""
    for _why, pattern in SECRET_VALUE_SHAPES:
        if pattern.search(text):
            text = pattern.sub(REDACTED, text)
    return text


def redacted(d: Diagnostic) -> Diagnostic:
    """``d`` with its message and ``data`` strings passed through :func:`redact`."""
    msg = redact(d.message)
    data = d.data
    if data:
        clean = {k: (redact(v) if isinstance(v, str) else v) for k, v in data.items()}
        data = clean if clean != data else data
    if msg is d.message and data is d.data:
        return d
    return Diagnostic(d.file, d.range, d.severity, d.code, msg, data, d.tags)


def secret_shape(name: str, value: object) -> str | None:
    """Why an `env` value looks like a secret (a phrase for messages), or None.

    By shape (an AWS access key id, a private key, a token with a vendor prefix, a URL with a
    password) whatever the name; or by name (`*_PASSWORD`, `*_TOKEN`, `*_API_KEY`, ...) when the
    value is a non-empty string that is not a path, a URL or a `${...}` reference.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    for why, pattern in SECRET_VALUE_SHAPES:
        if pattern.search(value):
            return why
    v = value.strip()
    if SECRET_NAME.search(name) and not (v.startswith(("/", "./", "${", "$(")) or "://" in v):
        return f"its name, `{name}`, says it is a credential"
    return None


__all__ = ["suggest", "SECRET_VALUE_SHAPES", "SECRET_NAME", "REDACTED", "redact", "redacted", "secret_shape"]
