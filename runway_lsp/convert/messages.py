"""The server's own messages to the client: warnings, capability registrations, the
``workspace/configuration`` request, work-done progress and JSON-RPC error answers.

Must not import pulumi or deploy_engine.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

#: Custom methods of the runway protocol (docs/protocol.md; runway_lsp/custom.py answers them).
COSTS = "runway/costs"
PLAN = "runway/plan"
COSTS_CHANGED = "runway/costsChanged"


def warning(message: str) -> types.ShowMessageParams:
    """``window/showMessage`` params of a warning."""
    return types.ShowMessageParams(type=types.MessageType.Warning, message=message)


def error_response(msg_id: Any, code: int, message: str) -> types.ResponseErrorMessage:
    """A JSON-RPC error answer to request ``msg_id``."""
    return types.ResponseErrorMessage(id=msg_id, error=types.ResponseError(code=code, message=message))


def response_error(code: int, message: str) -> types.ResponseError:
    """The ``error`` of a JSON-RPC error answer (code: JSON-RPC 2.0 §5.1 or LSP's)."""
    return types.ResponseError(code=code, message=message)


def error_answer(msg_id: Any, error: types.ResponseError) -> types.ResponseErrorMessage:
    """A JSON-RPC error answer carrying ``error`` (e.g. pygls' ``to_response_error()``)."""
    return types.ResponseErrorMessage(id=msg_id, error=error)


def configuration_params(section: str) -> types.ConfigurationParams:
    """``workspace/configuration`` params asking for one settings section."""
    return types.ConfigurationParams(items=[types.ConfigurationItem(section=section)])


def register_configuration(registration_id: str, section: str) -> types.RegistrationParams:
    """``client/registerCapability`` for ``workspace/didChangeConfiguration`` of ``section``."""
    registration = types.Registration(
        id=registration_id,
        method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        register_options=types.DidChangeConfigurationRegistrationOptions(section=section),
    )
    return types.RegistrationParams(registrations=[registration])


def register_file_watcher(registration_id: str, glob_pattern: str) -> types.RegistrationParams:
    """``client/registerCapability`` for ``workspace/didChangeWatchedFiles`` of one glob."""
    registration = types.Registration(
        id=registration_id,
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[types.FileSystemWatcher(glob_pattern=glob_pattern)]),
    )
    return types.RegistrationParams(registrations=[registration])


def progress_begin(title: str) -> types.WorkDoneProgressBegin:
    return types.WorkDoneProgressBegin(title=title, cancellable=False, percentage=0)


def progress_report(message: str, percentage: int) -> types.WorkDoneProgressReport:
    return types.WorkDoneProgressReport(message=message, percentage=percentage)


def progress_end(message: str) -> types.WorkDoneProgressEnd:
    return types.WorkDoneProgressEnd(message=message)
