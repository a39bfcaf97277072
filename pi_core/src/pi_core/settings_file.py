"""Reading a ``settings.json`` file as JSON, shared by the plugin loader and the runtime's settings.

Kept free of pydantic and of the runtime layer: the plugin loader reads its two keys
(``extensions``, ``disabledPlugins``) with it before anything else loads. The runtime's
:mod:`pi_core.runtime.resources.settings` adds migration and validation on top; both raise
:class:`SettingsError`, so a broken file is reported the same way by both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_core._jsonfile import loads, read_json_text


class SettingsError(ValueError):
    """A settings file could not be used. The message names the file, and the line/column if known."""

    def __init__(self, path: str, reason: str, *, line: int | None = None, column: int | None = None) -> None:
        self.path = path
        self.reason = reason
        self.line = line
        self.column = column
        where = f"{path}:{line}:{column}" if line is not None and column is not None else path
        super().__init__(f"{where}: {reason}")


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def read_settings_text(path: Path) -> str:
    """The file's text; ``""`` when it does not exist. Raises :class:`SettingsError` if unreadable.

    Read as pi reads it (:mod:`pi_core._jsonfile`): a byte order mark is skipped, bytes that are
    not UTF-8 become U+FFFD with a warning."""
    try:
        return read_json_text(path)
    except FileNotFoundError:
        return ""
    except OSError as error:
        reason = error.strerror or str(error)
        raise SettingsError(str(path), f"cannot read settings: {reason}") from None


def parse_settings_json(text: str, path: str) -> dict[str, Any]:
    """The file's JSON object; raises :class:`SettingsError` with line/column when it is not one."""
    try:
        data = loads(text)
    except json.JSONDecodeError as error:
        raise SettingsError(
            path, f"invalid JSON: {error.msg}", line=error.lineno, column=error.colno
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(path, "settings must be a JSON object", line=1, column=1)
    return data
