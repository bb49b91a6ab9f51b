"""The Runway output channel says each thing once (issue 26): pygls' warning for a
``$/cancelRequest`` that arrives after its answer (VS Code sends many; LSP 3.17 §"Cancellation
Support": an answered request is simply not cancelled) is DEBUG, and the same settings pulled
again are logged at DEBUG, a change at INFO."""

from __future__ import annotations

import logging

from runway_lsp.navigation import install_log_filter
from runway_lsp.settings import SettingsManager


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_late_cancel_is_not_a_warning():
    install_log_filter()
    json_rpc = logging.getLogger("pygls.protocol.json_rpc")  # where pygls warns (protocol/json_rpc.py)
    seen = _Records()
    json_rpc.addHandler(seen)
    try:
        json_rpc.warning('Cancel notification for unknown message id "%s"', 14)
        json_rpc.warning("something else")
    finally:
        json_rpc.removeHandler(seen)
    assert [r.getMessage() for r in seen.records] == ["something else"]


class _Session:
    """What SettingsManager.apply calls on its session (runway_lsp/settings.py): a warning,
    and the usage file the settings point at (issue 25's ``usagePath``)."""

    def warn(self, message: str) -> None:
        pass

    def use_usage_file(self, usage_file: str | None) -> None:
        pass


def test_the_same_settings_again_are_logged_once(caplog):
    manager = SettingsManager(_Session())  # type: ignore[arg-type]
    caplog.set_level(logging.DEBUG, logger="runway_lsp.settings")
    manager.apply({}, "initializationOptions")
    manager.apply({}, "workspace/configuration")
    manager.apply({"codeLens": {"enabled": False}}, "workspace/configuration")
    said = [(r.levelname, r.getMessage().split(":")[0]) for r in caplog.records if r.getMessage().startswith("settings from")]
    assert said == [("INFO", "settings from initializationOptions"), ("DEBUG", "settings from workspace/configuration"), ("INFO", "settings from workspace/configuration")]
