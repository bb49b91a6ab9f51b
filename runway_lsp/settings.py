"""The language server's settings: one typed object, parsed once, with visible warnings.

Settings (section ``runway``; VS Code nests them, ``{"inlayHints": {"enabled": false}}``,
flat dotted keys such as ``"inlayHints.enabled"`` or ``"runway.inlayHints.enabled"`` are
accepted too):

============================== ========= ==================================================
key                            default   meaning
============================== ========= ==================================================
``runway.catalogPath``         null      a catalogue folder (``sizes.toml`` + ``prices.csv``, not a URL)
                                         used instead of the packaged one; relative to the
                                         first workspace folder; ``~`` expanded
``runway.usagePath``           null      the usage file of each product (docs/format.md,
                                         "Usage file"), relative to its root runway's
                                         folder; null: ``runway.usage.yaml`` beside it
``runway.inlayHints.environment`` null   the environment whose cost follows a single size
                                         (``size: medium``); null: the first environment
``runway.inlayHints.enabled``  true      inlay hints on or off
``runway.codeLens.enabled``    true      code lenses on or off
``runway.costDelta.enabled``   true      deltas since the last save and against git HEAD
                                         in lenses and hovers (off: git is never run)
``runway.exclude``             []        globs, relative to the workspace folder, of runway
                                         files the workspace scan leaves out
                                         (runway_lsp/exclude.py; VS Code adds its
                                         ``files.exclude`` to the list)
``runway.diagnosticMode``      workspace ``workspace``: the scan publishes every runway's
                                         problems; ``openFilesOnly``: only open files'
============================== ========= ==================================================

Where they come from (LSP 3.17 §"workspace/configuration", §"didChangeConfiguration"):
pulled with ``workspace/configuration`` after ``initialized`` when the client supports it
(a null answer: no ``runway`` settings there, the ``initializationOptions`` hold), otherwise
taken from ``initializationOptions`` (``{"runway": {...}}`` or the section itself), which are
in force from ``initialize`` on;
pulled again on every ``workspace/didChangeConfiguration`` (or, for a client that cannot be
asked, taken from its ``settings``: ``{"runway": {...}}`` or the section itself; empty
settings fall back to the ``initializationOptions``). The server registers for
``didChangeConfiguration`` when the client allows dynamic registration, as the spec advises
for pull-model servers.

Neovim 0.7 declares no ``workspace.configuration`` (0.8 does) yet answers it from
``vim.lsp.start_client{ settings = ... }`` (runtime/lua/vim/lsp/handlers.lua), and 0.7 never
sends those settings in a ``didChangeConfiguration``: a client whose ``clientInfo.name`` is
``Neovim`` is asked anyway, after its ``initializationOptions`` are applied; a null answer
(no ``runway`` settings) keeps them.

An unknown key or an invalid value is never silent: one ``window/showMessage`` warning names
each key, and the default is used for it (docs/architecture.md §8). A ``catalogPath`` that cannot be
loaded is reported the same way and the packaged catalogue is used. Changing the catalogue
re-analyses every open runway and re-publishes its diagnostics.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from dataclasses import dataclass, fields
from typing import Any, Callable

from lsprotocol import types

from runway_core.text import redact, suggest
from runway_core.catalog import Catalog, CatalogError, load_catalog

from .convert import messages
from .exclude import MAX_EXCLUDE_GLOBS, MAX_GLOB_CHARS
from .session import Session, log_failure

log = logging.getLogger("runway_lsp.settings")

SECTION = "runway"

#: ``initializationOptions`` key by which a client opts in to the ``runway/costsChanged``
#: notification (runway_lsp/custom.py, docs/protocol.md); not a setting.
COST_NOTIFICATIONS_OPTION = "runwayCostNotifications"

#: How long a feature waits for the client's answer to ``workspace/configuration`` before it
#: goes on with the settings it has, in seconds (a client that never answers must not hang
#: code lenses).
SETTINGS_WAIT_S = 5.0


@dataclass(frozen=True)
class Settings:
    """The server's settings, every field with its default (see the module docstring)."""

    catalog_path: str | None = None  # runway.catalogPath, as written
    usage_path: str | None = None  # runway.usagePath, as written (relative to each root's folder)
    inlay_hints_environment: str | None = None  # runway.inlayHints.environment
    inlay_hints_enabled: bool = True  # runway.inlayHints.enabled
    code_lens_enabled: bool = True  # runway.codeLens.enabled
    cost_delta_enabled: bool = True  # runway.costDelta.enabled
    exclude: tuple[str, ...] = ()  # runway.exclude (globs)
    diagnostic_mode: str = "workspace"  # runway.diagnosticMode: workspace | openFilesOnly


def _optional_text(value: Any) -> tuple[bool, Any]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return True, None
    return (True, value.strip()) if isinstance(value, str) else (False, None)


#: A URL's start (RFC 3986 §3.1 scheme, then ``//``): ``runway.catalogPath`` names a folder, and
#: a URL there is refused before it is resolved against the workspace folder, since
#: ``os.path.normpath`` would fold its ``//`` and the result (``https:/user:pw@host``) no longer has
#: the URL shape :func:`runway_core.text.redact` knows (issue 23: the password was echoed).
_URL_START = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _folder(value: Any) -> tuple[bool, Any]:
    ok, parsed = _optional_text(value)
    if ok and isinstance(parsed, str) and _URL_START.match(parsed):
        return False, None
    return ok, parsed


def _flag(value: Any) -> tuple[bool, Any]:
    return (True, value) if isinstance(value, bool) else (False, None)


def _globs(value: Any) -> tuple[bool, Any]:
    if value is None:
        return True, ()
    if isinstance(value, list) and all(isinstance(g, str) for g in value):
        if len(value) > MAX_EXCLUDE_GLOBS or any(len(g.strip()) > MAX_GLOB_CHARS for g in value):
            # Refused whole, with one warning naming the bounds: the glob matcher is linear,
            # but a thousand 10,000-character globs would still cost seconds per scanned file.
            return False, None
        return True, tuple(dict.fromkeys(g.strip() for g in value if g.strip()))
    return False, None


#: ``runway.diagnosticMode`` values.
DIAGNOSTIC_MODES = ("workspace", "openFilesOnly")


def _mode(value: Any) -> tuple[bool, Any]:
    return (True, value) if value in DIAGNOSTIC_MODES else (False, None)


#: Setting key (below ``runway.``) -> (Settings field, checker, what a valid value is).
KEYS: dict[str, tuple[str, Callable[[Any], tuple[bool, Any]], str]] = {
    "catalogPath": ("catalog_path", _folder, "a folder path (a string, not a URL) or null"),
    "usagePath": ("usage_path", _optional_text, "a file path relative to the root runway's folder (a string) or null"),
    "inlayHints.environment": ("inlay_hints_environment", _optional_text, "an environment name (a string) or null"),
    "inlayHints.enabled": ("inlay_hints_enabled", _flag, "true or false"),
    "codeLens.enabled": ("code_lens_enabled", _flag, "true or false"),
    "costDelta.enabled": ("cost_delta_enabled", _flag, "true or false"),
    "exclude": ("exclude", _globs, f"a list of at most {MAX_EXCLUDE_GLOBS:,} glob strings of at most {MAX_GLOB_CHARS:,} characters each"),
    "diagnosticMode": ("diagnostic_mode", _mode, "`workspace` or `openFilesOnly`"),
}
_GROUPS = {k.split(".")[0] for k in KEYS if "." in k}
_DEFAULTS = Settings()


def _shown(value: Any) -> str:
    """A setting's value as a message quotes it: redacted **before** it is cut to 60 characters
    (cut first, a URL's password before its `@` or a JWT before its signature no longer has the
    shape the send-time redaction knows, and its start would be quoted)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    text = redact(text)
    return text if len(text) <= 60 else text[:57] + "..."


def _flatten(raw: dict, prefix: str, out: dict[str, Any], problems: list[str]) -> None:
    for key, value in raw.items():
        name = f"{prefix}{key}"
        if name.startswith(f"{SECTION}.") and not prefix:
            name = name[len(SECTION) + 1 :]
        if name in _GROUPS:
            if isinstance(value, dict):
                _flatten(value, f"{name}.", out, problems)
            elif value is not None:
                problems.append(f"`{SECTION}.{name}` must be an object of settings, not {_shown(value)}; its defaults are used")
            continue
        out[name] = value


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """``(settings, problems)`` from the client's ``runway`` section (any JSON value).

    ``problems`` holds one sentence per unknown key or invalid value, naming the key; each
    such key keeps its default. ``None`` (nothing configured) gives the defaults, silently.
    Pure; never raises.
    """
    if raw is None:
        return _DEFAULTS, []
    if not isinstance(raw, dict):
        return _DEFAULTS, [f"the `{SECTION}` settings must be an object, not {_shown(raw)}; the defaults are used"]
    flat: dict[str, Any] = {}
    problems: list[str] = []
    _flatten(raw, "", flat, problems)
    values: dict[str, Any] = {}
    for key, value in flat.items():
        spec = KEYS.get(key)
        if spec is None:
            near = suggest(key, KEYS)
            hint = f" (did you mean `{SECTION}.{near}`?)" if near else ""
            problems.append(f"`{SECTION}.{key}` is not a setting{hint}; it is ignored")
            continue
        field_name, check, expected = spec
        ok, parsed = check(value)
        if not ok:
            default = getattr(_DEFAULTS, field_name)
            problems.append(f"`{SECTION}.{key}` must be {expected}, not {_shown(value)}; the default ({_shown(default)}) is used")
            continue
        values[field_name] = parsed
    known = {f.name for f in fields(Settings)}
    return Settings(**{k: v for k, v in values.items() if k in known}), problems


def warning_text(problems: list[str]) -> str:
    """One ``window/showMessage`` text for several problems."""
    return "runway settings: " + "; ".join(problems) + "."


def unloadable_text(written: str, folder: str, why: str) -> str:
    """The warning for a ``runway.catalogPath`` that cannot be loaded: the value as written and
    the folder it resolved to, both redacted (:func:`runway_core.text.redact`). When the value
    as written holds a credential, the resolved folder (and the error's quotes of it) is not
    shown at all: resolving rewrites it (``~`` expanded, ``//`` folded, joined to the workspace
    folder), and the rewritten text may no longer have the shape the redaction knows."""
    quoted = _shown(written)
    if redact(written) != written:
        return f"runway settings: `{SECTION}.catalogPath` {quoted} cannot be loaded ({redact(why.replace(folder, '<catalogPath>'))}); the packaged catalogue is used."
    where = "" if folder == written else f" (the folder {redact(repr(folder))})"
    return f"runway settings: `{SECTION}.catalogPath` {quoted}{where} cannot be loaded ({redact(why)}); the packaged catalogue is used."


def init_options_section(options: Any) -> Any:
    """The ``runway`` settings inside ``initializationOptions`` (or the ``settings`` of a
    ``didChangeConfiguration``): ``{"runway": {...}}`` or the settings object itself; the
    :data:`COST_NOTIFICATIONS_OPTION` flag is not a setting and is left out. None when
    nothing but that flag is there (the defaults, silently)."""
    if isinstance(options, dict) and COST_NOTIFICATIONS_OPTION in options:
        options = {k: v for k, v in options.items() if k != COST_NOTIFICATIONS_OPTION} or None
    if isinstance(options, dict) and isinstance(options.get(SECTION), dict) and len(options) == 1:
        return options[SECTION]
    return options


# --------------------------------------------------------------------------------------
# The server side: pulling, applying, telling the rest of the server
# --------------------------------------------------------------------------------------


Listener = Callable[[Settings, Settings], None]


class SettingsManager:
    """The server's current :class:`Settings` and how they are read and applied.

    ``current`` is the typed settings object; features that depend on settings ``await
    ready()`` first, so a request that arrives while the first ``workspace/configuration``
    is in flight is answered with the client's settings, not the defaults.
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self.current = Settings()
        self._said = False  # the settings logged at INFO once (then again only when they change)
        self.init_options: Any = None
        self.client_name: str | None = None  # initialize's clientInfo.name
        self.catalog_folder: str | None = None  # the loaded override folder; None: packaged
        self._pending: asyncio.Future | None = None
        self._generation = 0
        self._listeners: list[Listener] = []

    # --- reading --------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(old, new)`` after every applied change of settings."""
        self._listeners.append(listener)

    @property
    def settled(self) -> bool:
        """The client's settings are in force: applied once (at ``initialized``), and no pull
        of them in flight. Until then what ``runway.costDelta.enabled`` says is not known,
        and git is not run (seventh adversary F7)."""
        return self._said and (self._pending is None or self._pending.done())

    async def ready(self) -> Settings:
        """The current settings, once a pull in flight has been answered (or timed out)."""
        pending = self._pending
        if pending is not None and not pending.done():
            try:
                await asyncio.wait_for(asyncio.shield(pending), SETTINGS_WAIT_S)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # the request waiting here was cancelled ($/cancelRequest): honour it
                log.warning("the settings request was cancelled; using the settings in hand")
            except asyncio.TimeoutError:
                log.warning("the client did not answer workspace/configuration in %ss; using the settings in hand", SETTINGS_WAIT_S)
            except Exception:  # noqa: BLE001
                log.exception("waiting for settings failed")
        return self.current

    def _supports_pull(self) -> bool:
        try:
            ws = self.session.capabilities.workspace
        except Exception:  # noqa: BLE001 - before initialize
            return False
        return bool(ws is not None and ws.configuration)

    def _answers_anyway(self) -> bool:
        """Neovim 0.7 answers ``workspace/configuration`` without declaring it."""
        return self.client_name == "Neovim"

    def pull(self, pushed: Any = None) -> None:
        """Read the settings: ask the client when it can be asked, else use ``pushed`` (the
        settings of a didChangeConfiguration) or the ``initializationOptions`` (and then ask
        a Neovim that did not declare it, see the module docstring)."""
        if not self._supports_pull():
            self.apply(init_options_section(pushed if pushed is not None else self.init_options), "initializationOptions" if pushed is None else "didChangeConfiguration")
            if pushed is None and self._answers_anyway():
                self._ask(undeclared=True)
            return
        self._ask()

    def _ask(self, undeclared: bool = False) -> None:
        """Send ``workspace/configuration`` for the ``runway`` section and apply the answer;
        ``undeclared``: the client did not declare the request, so an error or a null answer
        keeps the settings in hand."""
        self._generation += 1
        generation = self._generation
        loop = asyncio.get_running_loop()
        done: asyncio.Future = loop.create_future()
        self._pending = done

        def answered(future: Any) -> None:
            try:
                if generation != self._generation:
                    return  # an older pull: a newer one is in flight
                try:
                    result = future.result()
                except Exception as exc:  # noqa: BLE001 - a client error answer
                    (log.info if undeclared else log.warning)("workspace/configuration failed (%s); keeping the current settings", exc)
                    return
                section = result[0] if isinstance(result, (list, tuple)) and result else None
                if undeclared and section is None:
                    return  # nothing under `runway` in the client's settings: keep what is in hand
                if section is None:
                    # Nothing under `runway` in the client's settings: its initializationOptions
                    # say what it wants (`costDelta.enabled: false` ran git; seventh adversary F7).
                    section = init_options_section(self.init_options)
                self.apply(section, "workspace/configuration")
            except Exception:  # noqa: BLE001
                log.exception("applying settings failed")
            finally:
                if generation == self._generation and not done.done():
                    done.set_result(None)

        try:
            request = self.session.client.workspace_configuration(messages.configuration_params(SECTION))
            request.add_done_callback(answered)
        except Exception:  # noqa: BLE001
            log.exception("asking for settings failed")
            if not done.done():
                done.set_result(None)

    # --- applying ---------------------------------------------------------------------------

    def warn(self, message: str) -> None:
        log.warning("%s", message)
        try:
            self.session.warn(message)
        except Exception:  # noqa: BLE001
            log.exception("window/showMessage failed")

    def apply(self, raw: Any, origin: str) -> Settings:
        """Parse ``raw`` (the ``runway`` section), warn about its problems, make it current,
        reload the catalogue when ``catalogPath`` asks for it, tell the listeners."""
        settings, problems = parse_settings(raw)
        # Said once: the same settings pulled again (each workspace/configuration answer) at DEBUG.
        log.log(logging.INFO if settings != self.current or not self._said else logging.DEBUG, "settings from %s: %s", origin, settings)
        self._said = True
        if problems:
            self.warn(warning_text(problems))
        old, self.current = self.current, settings
        self._apply_catalog(settings)
        self.session.use_usage_file(os.path.expanduser(settings.usage_path) if settings.usage_path else None)
        for listener in list(self._listeners):
            try:
                listener(old, settings)
            except Exception:  # noqa: BLE001
                log.exception("a settings listener failed")
        return settings

    def _resolve(self, path: str) -> str:
        path = os.path.expanduser(path)
        if not os.path.isabs(path):
            base = None
            try:
                base = self.session.client.workspace.root_path
            except Exception:  # noqa: BLE001 - no workspace yet
                base = None
            path = os.path.join(base or os.getcwd(), path)
        return os.path.normpath(path)

    def _apply_catalog(self, settings: Settings) -> None:
        folder = self._resolve(settings.catalog_path) if settings.catalog_path else None
        catalog: Catalog | None = None
        if folder is not None:
            try:
                catalog = load_catalog(folder)
            except (CatalogError, OSError) as exc:
                self.warn(unloadable_text(settings.catalog_path, folder, str(exc)))
                folder = None
        if folder is None:
            if self.catalog_folder is None:
                return  # the packaged catalogue is already in use
            catalog = load_catalog()
        self.catalog_folder = folder
        assert catalog is not None
        self.use_catalog(catalog)

    def use_catalog(self, catalog: Catalog) -> None:
        """Analyse every open runway again with ``catalog`` and re-publish diagnostics."""
        self.session.use_catalog(catalog)

    # --- the notifications that carry settings --------------------------------------------------

    def on_initialize(self, params: types.InitializeParams) -> None:
        """``initialize``: note the client's name and its ``initializationOptions``."""
        try:
            self.client_name = params.client_info.name if params.client_info is not None else None
            self.init_options = params.initialization_options
            # In force from now on, before `initialized` applies them (with their warnings) or
            # pulls the client's: a request handled in between must not use the defaults
            # (git ran for a hover with `costDelta.enabled: false`; seventh adversary F7).
            self.current = parse_settings(init_options_section(self.init_options))[0]
        except Exception:  # noqa: BLE001
            log.exception("reading initializationOptions failed")

    def on_initialized(self) -> None:
        """``initialized``: read the settings; register for ``didChangeConfiguration`` when
        the client allows dynamic registration."""
        try:
            self.pull()
            ws = self.session.capabilities.workspace
            dyn = ws.did_change_configuration if ws is not None else None
            if dyn is not None and dyn.dynamic_registration:
                future = self.session.client.client_register_capability(messages.register_configuration("runway-settings", SECTION))
                future.add_done_callback(log_failure("registering for didChangeConfiguration"))
        except Exception:  # noqa: BLE001
            log.exception("initialized: reading settings failed")

    def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        """``workspace/didChangeConfiguration``: read the settings again."""
        try:
            # `{"runway": {...}}` or the runway section itself; empty: the initializationOptions.
            pushed = params.settings
            if isinstance(pushed, dict) and SECTION in pushed:
                pushed = pushed[SECTION]
            elif isinstance(pushed, dict) and not pushed:
                pushed = None
            self.pull(pushed)
        except Exception:  # noqa: BLE001
            log.exception("didChangeConfiguration failed")


__all__ = ["Settings", "SettingsManager", "KEYS", "SECTION", "COST_NOTIFICATIONS_OPTION", "parse_settings", "warning_text", "unloadable_text", "init_options_section", "log_failure"]
