"""The one way deploy_engine makes a boto3 client: :func:`make_client` (the records store's S3
client, :func:`deploy_engine.records.s3_store.s3_client`, and the pre-flight's EC2, RDS, ECS and
SSM clients, :func:`deploy_engine.preflight.aws_client`).

boto3 reads the AWS configuration when the session and the client are built, before any
request: a profile that does not exist, a config file it cannot parse, or a setting of a value
it does not know is raised there, as a ``botocore.exceptions.BotoCoreError`` (botocore's own
exceptions module: ``ProfileNotFound``, ``ConfigParseError``, ``ConfigNotFound``,
``InvalidDefaultsMode``, ``InvalidChecksumConfigError``, ``InvalidConfigError``,
``InvalidRegionError``, ``InvalidRetryModeError``...), or a ``ValueError`` for an endpoint URL
it cannot use (``Invalid endpoint: ...``). Each becomes :class:`AwsConfigError`: one line
naming the setting (the environment variable, or the key of the AWS config file, from
botocore's own table of them, ``botocore.configprovider.BOTOCORE_DEFAUT_SESSION_VARIABLES``),
the configuration problem a command reports with exit 3, never a traceback. botocore's
messages name a profile, a path or a value, never a credential; the commands scrub them
with the run's redactor too (an endpoint URL may hold user info).

Must not import boto3 at import time (the core commands run without the [deploy] extra).
"""

from __future__ import annotations

import re
import threading
from typing import Any, Callable, Mapping, TypeVar

T = TypeVar("T")

#: botocore errors whose message names no setting, and the one each is about.
_SETTING_OF = {
    "ProfileNotFound": "profile",
    "InvalidDefaultsMode": "defaults_mode",
    "InvalidRegionError": "region",
    "NoRegionError": "region",
    "InvalidRetryModeError": "retry_mode",
    "InvalidMaxRetryAttemptsError": "max_attempts",
    "InvalidSTSRegionalEndpointsConfigError": "sts_regional_endpoints",
}
#: Variables runway itself reads for a setting besides botocore's (``AWS_REGION`` is the SDKs'
#: common name; botocore's table has only ``AWS_DEFAULT_REGION``).
_ALSO_READ = {"region": ("AWS_REGION",), "profile": ("AWS_PROFILE",)}


class AwsConfigError(Exception):
    """The AWS configuration cannot be used to build a client (module docstring): the message
    is one line, naming the setting; never a credential."""


def _variables() -> dict[str, tuple[Any, Any]]:
    """botocore's logical setting name -> (its key in the AWS config file, its environment
    variable(s)), from botocore itself."""
    try:
        from botocore.configprovider import BOTOCORE_DEFAUT_SESSION_VARIABLES as table
    except ImportError:  # renamed in a later botocore: the message alone then
        return {}
    return {name: (spec[0], spec[1]) for name, spec in table.items()}


def setting_named(exc: BaseException, environ: Mapping[str, str], sources: Mapping[str, str] | None = None) -> str:
    """Which setting ``exc`` (raised while building a session or client) is about, for people:
    ``AWS_DEFAULTS_MODE``, ``defaults_mode in the AWS config file``... ('' when unknown).
    ``sources``: where the caller took a setting it passed itself (``{"profile": "AWS_PROFILE",
    "region": "the backend URL's region= parameter"}``)."""
    name = type(exc).__name__
    kwargs = getattr(exc, "kwargs", None) or {}
    sources = sources or {}
    if name in ("ConfigParseError", "ConfigNotFound"):
        path = str(kwargs.get("path") or "")
        for variable in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
            if environ.get(variable) and path.endswith(environ[variable].lstrip("~")):
                return variable
        return "the AWS config or credentials file (AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE)"
    if isinstance(exc, ValueError) and str(exc).startswith("Invalid endpoint"):
        return "the endpoint URL (the backend URL's endpoint=, AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL)"
    text = f"{exc} {' '.join(str(v) for v in kwargs.values())}"
    wanted = [_SETTING_OF[name]] if name in _SETTING_OF else []
    table = _variables()
    # A config-file key named in the message as a word ('account_id_endpoint_mode'; not
    # "region" inside "regional").
    wanted += [logical for logical, (key, _) in table.items()
               if isinstance(key, str) and logical not in wanted and re.search(rf"(?<![A-Za-z0-9_]){re.escape(key)}(?![A-Za-z0-9_])", text)]
    for logical in wanted:
        if sources.get(logical):
            return sources[logical]
        key, variables = table.get(logical, (logical, None))
        variables = [*_ALSO_READ.get(logical, ()), *([variables] if isinstance(variables, str) else list(variables or ()))]
        given = [v for v in variables if environ.get(v)]
        if given:
            return given[0]
        if variables and key:
            return f"{variables[0]} or `{key}` in the AWS config file"
        if variables:
            return variables[0]
        if key:
            return f"`{key}` in the AWS config file"
    return ""


def config_message(exc: BaseException, environ: Mapping[str, str], sources: Mapping[str, str] | None = None) -> str:
    """The one line of :class:`AwsConfigError` for ``exc``."""
    setting = setting_named(exc, environ, sources)
    detail = " ".join(str(exc).split())[:300]
    where = f" (set by {setting})" if setting and not setting.startswith("the ") else f" ({setting})" if setting else ""
    return f"the AWS configuration cannot be used: {type(exc).__name__}: {detail}{where}"


def make_client(service: str, environ: Mapping[str, str], *, profile: str | None = None, region: str | None = None,
                keys: Mapping[str, str] | None = None, endpoint: str | None = None, config: Any = None,
                sources: Mapping[str, str] | None = None) -> Any:
    """A boto3 client for ``service``: a session of ``profile``, ``region`` (``sources`` says where
    each was given: :func:`setting_named`) and static ``keys`` (``aws_access_key_id``,
    ``aws_secret_access_key``, ``aws_session_token``), the client at ``endpoint`` with botocore
    ``config``. Raises :class:`AwsConfigError` (module docstring) for a configuration botocore
    refuses; makes no request."""
    import boto3
    from botocore.exceptions import BotoCoreError

    try:
        session = boto3.session.Session(profile_name=profile or None, region_name=region or None, **dict(keys or {}))
        return session.client(service, endpoint_url=endpoint or None, config=config)
    except (BotoCoreError, ValueError) as exc:
        raise AwsConfigError(config_message(exc, environ, sources)) from None


def within(deadline_s: float | None, call: Callable[[], T], timed_out: Callable[[], BaseException]) -> T:
    """``call()`` (one AWS request with botocore's retries, or several pages) within a total
    deadline of ``deadline_s`` seconds (None: none); its result, or its own exception. Past the
    deadline raises ``timed_out()``.

    botocore's ``connect_timeout`` / ``read_timeout`` restart with every byte, so an endpoint
    that drips a valid answer (1 byte every 2 s) keeps a request alive for ever (issue 23,
    round 5 F07). The call runs in a daemon thread the caller waits for; past the deadline
    that thread, blocked on the socket, is left behind (a command exits right after; a write
    that timed out may still complete)."""
    if deadline_s is None:
        return call()
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="runway-aws-call", daemon=True).start()
    if not done.wait(deadline_s):
        raise timed_out()
    if "error" in box:
        raise box["error"]
    return box["value"]


__all__ = ["AwsConfigError", "config_message", "make_client", "setting_named", "within"]
