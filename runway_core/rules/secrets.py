"""Secrets and variable names: RW144 (secret and variable name format, a value pasted where a
name belongs) and RW147 (a value, name, image or health command that looks like a credential).

Never quotes what looks like a secret: the diagnostic must not spread it further (CI logs,
SARIF uploads, pull-request annotations; docs/reliability.md).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..diagnostics import Diagnostic
from ..names import ENV_NAME, UPPER_SNAKE, shown
from ..text import secret_shape
from ..yamlsrc import YMap, YNode, YScalar, YSeq
from ._common import _d, _scalar_str, _section, _workloads

if TYPE_CHECKING:
    from ..facts import Analysis


#: What a secret's name may look like before it is UPPER_SNAKE (`stripeKey`, `db-password`):
#: quoted in RW144 with its UPPER_SNAKE form. Anything else is not quoted (it may be a value).
_NAME_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)*$")


def variable_names(an: "Analysis") -> Iterator[Diagnostic]:
    """RW144: secret names are UPPER_SNAKE; `env` names are valid variable names."""
    for k, v in _workloads(an):
        secrets = v.get("secrets")
        if isinstance(secrets, YSeq):
            for it in secrets.items:
                s = _scalar_str(it)
                if s is None:
                    continue
                shape = secret_shape("", s)
                if shape is not None:
                    # A value pasted where a name belongs: never quoted (CI logs, SARIF, PR annotations).
                    yield _d(an, an.root_file, it.range, "RW144",
                             f"this `secrets` item looks like a secret value ({shape}), not a name: `secrets` lists the names of "
                             "Infisical secrets (e.g. `DB_PASSWORD`); write the name, keep the value in Infisical, and rotate it "
                             "if this file was ever committed")
                elif not UPPER_SNAKE.fullmatch(s):
                    if _NAME_LIKE.fullmatch(s):
                        yield _d(an, an.root_file, it.range, "RW144", f"secret name `{s}` must be UPPER_SNAKE (e.g. `{re.sub(r'[^A-Za-z0-9]', '_', re.sub(r'(?<=[a-z0-9])(?=[A-Z])', '_', s)).upper()}`)")
                    else:
                        yield _d(an, an.root_file, it.range, "RW144",
                                 "this `secrets` item is not a name (UPPER_SNAKE, e.g. `DB_PASSWORD`); if it is a secret value, "
                                 "keep it in Infisical and rotate it if this file was ever committed")
        env = v.get("env")
        if isinstance(env, YMap):
            for ek, _ev in env.entries:
                if not ENV_NAME.fullmatch(ek.text):
                    yield _d(an, an.root_file, ek.range, "RW144", f"`{shown(ek.text)}` is not a valid environment variable name (letters, digits, `_`; not starting with a digit)")


def secret_looking_sizes(an: "Analysis") -> Iterator[Diagnostic]:
    """RW147: a resource's `size` (one value, or one per environment) that looks like a
    credential (a URL or token pasted in the wrong place); never quoted."""
    res = _section(an, "resources")
    if res is None:
        return
    for k, v in res.entries:
        size = v.get("size") if isinstance(v, YMap) else None
        nodes = [size] if isinstance(size, YScalar) else [n for _e, n in size.entries] if isinstance(size, YMap) else []
        for node in nodes:
            why = secret_shape("", node.value) if isinstance(node, YScalar) and isinstance(node.value, str) else None
            if why is not None:
                yield _d(an, an.root_file, node.range, "RW147",
                         f"the size of `{k.text}` holds what looks like a secret ({why}): it is plain text in the runway, in git "
                         "and in the plan; write a size name, and rotate the credential if this file was ever committed",
                         {"resource": k.text, "where": "size"})


def secret_looking_env(an: "Analysis") -> Iterator[Diagnostic]:
    """RW147: a plain `env` value that looks like a credential (it belongs in `secrets`).

    The message and ``data`` never quote the value: the diagnostic must not spread it further
    (CI logs, SARIF uploads, pull-request annotations)."""
    for k, v in _workloads(an):
        # Credentials in a URL or token shape elsewhere in the workload (an image pulled with a
        # password in its URL, a health command with one): same warning, never quoted.
        elsewhere: list[tuple[str, YNode]] = []
        image = v.get("image")
        if isinstance(image, YScalar):
            elsewhere.append(("image", image))
        uses = v.get("uses")
        if isinstance(uses, YSeq):  # a connection URL or token pasted as a reference
            elsewhere.extend(("`uses` item", it) for it in uses.items if isinstance(it, YScalar))
        health = v.get("health")
        command = health.get("command") if isinstance(health, YMap) else None
        if isinstance(command, YSeq):
            elsewhere.extend(("health command", it) for it in command.items if isinstance(it, YScalar))
        elif isinstance(command, YScalar):
            elsewhere.append(("health command", command))
        for where, node in elsewhere:
            if not isinstance(node.value, str):
                continue
            why = secret_shape("", node.value)
            if why is not None:
                yield _d(an, an.root_file, node.range, "RW147",
                         f"the {where} holds what looks like a secret ({why}): it is plain text in the runway, in git, in the plan "
                         "and in the task definition; read it from a variable listed in `secrets` instead, and rotate it if this "
                         "file was ever committed", {"workload": k.text, "where": where})
        env = v.get("env")
        if not isinstance(env, YMap):
            continue
        for ek, ev in env.entries:
            name_why = secret_shape("", ek.text)
            if name_why is not None:
                # A credential pasted as a variable's name (`AKIA…: x` is a valid name).
                yield _d(an, an.root_file, ek.range, "RW147",
                         f"an `env` variable's name looks like a secret ({name_why}): names are plain text in the runway, in git, "
                         "in the plan and in the task definition; name the variable and keep the value in Infisical (list the "
                         "name in `secrets`), and rotate it if this file was ever committed", {"workload": k.text, "where": "env name"})
            if not isinstance(ev, YScalar):
                continue
            why = secret_shape(ek.text, ev.value)
            if why is None:
                continue
            yield _d(an, an.root_file, ev.range, "RW147",
                     f"the value of `{ek.text}` looks like a secret ({why}): `env` values are plain text in the runway, in git, in "
                     f"the plan and in the task definition; list `{ek.text}` in `secrets` instead (its value then lives in Infisical) "
                     "and rotate the value if this file was ever committed",
                     {"variable": ek.text, "workload": k.text})
