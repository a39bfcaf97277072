"""Reading, merging and writing pi's ``settings.json`` files (global and project).

Behaviour follows pi 0.73.1: the project file overrides the global one key by key, nested objects
are merged one level deep, legacy keys are migrated on load, and a write touches only the keys that
were changed (re-read from disk under a lock first), so unknown keys and concurrent edits survive.
A file that cannot be read or parsed is reported with its path, line and column, treated as empty,
and never written back.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from pi_core._files import replace_file
from pi_core.runtime.resources.paths import CONFIG_DIR_NAME, get_agent_dir
from pi_core.runtime.resources.settings_model import Settings
from pi_core.settings_file import SettingsError, line_column, parse_settings_json, read_settings_text

SettingsScope = Literal["global", "project"]
JsonObject = dict[str, Any]


@dataclass(frozen=True)
class ScopedSettingsError:
    """A load or write error for one scope, as reported at start-up."""

    scope: SettingsScope
    error: SettingsError

    def __str__(self) -> str:
        return f"({self.scope} settings) {self.error}"


def deep_merge_settings(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> JsonObject:
    """pi's merge: override values win; when both sides are objects they merge one level deep."""
    result: JsonObject = dict(base)
    for key, override in overrides.items():
        current = base.get(key)
        if isinstance(override, dict) and isinstance(current, dict):
            result[key] = {**current, **override}
        else:
            result[key] = override
    return result


def migrate_settings(settings: JsonObject) -> JsonObject:
    """Rewrite legacy keys in place as pi does on load, and return the same dict."""
    if "queueMode" in settings and "steeringMode" not in settings:
        settings["steeringMode"] = settings.pop("queueMode")
    if "transport" not in settings and isinstance(settings.get("websockets"), bool):
        settings["transport"] = "websocket" if settings.pop("websockets") else "sse"
    skills = settings.get("skills")
    if isinstance(skills, dict):
        if skills.get("enableSkillCommands") is not None and settings.get("enableSkillCommands") is None:
            settings["enableSkillCommands"] = skills["enableSkillCommands"]
        custom = skills.get("customDirectories")
        if isinstance(custom, list) and custom:
            settings["skills"] = custom
        else:
            del settings["skills"]
    retry = settings.get("retry")
    if isinstance(retry, dict):
        provider = retry.get("provider") if isinstance(retry.get("provider"), dict) else None
        max_delay = retry.get("maxDelayMs")
        if (
            isinstance(max_delay, (int, float))
            and not isinstance(max_delay, bool)
            and (provider is None or provider.get("maxRetryDelayMs") is None)
        ):
            retry["provider"] = {**(provider or {}), "maxRetryDelayMs": max_delay}
        retry.pop("maxDelayMs", None)
    return settings


def _key_position(text: str, key_path: tuple[str | int, ...]) -> tuple[int | None, int | None]:
    """Best-effort position of the innermost string key of ``key_path`` in the JSON text."""
    for part in reversed(key_path):
        if isinstance(part, str):
            offset = text.find(json.dumps(part))
            if offset >= 0:
                return line_column(text, offset)
    return None, None


def parse_settings_text(text: str, path: str) -> JsonObject:
    """Parse and migrate one settings file's text; raise :class:`SettingsError` with line/column."""
    migrated = migrate_settings(parse_settings_json(text, path))
    try:
        Settings.model_validate(migrated)
    except ValidationError as error:
        first = error.errors()[0]
        loc = tuple(first["loc"])
        line, column = _key_position(text, loc)
        dotted = ".".join(str(p) for p in loc if not str(p).startswith("function-"))
        raise SettingsError(
            path, f"invalid value for {dotted}: {first['msg']}", line=line, column=column
        ) from None
    return migrated


def read_settings_file(path: Path) -> JsonObject:
    """One settings file, parsed and migrated; ``{}`` when missing or empty.

    Raises :class:`SettingsError` (path, line, column) when it cannot be read or is not valid
    settings. The plugin loader reads the same files with :mod:`pi_core.settings_file` (JSON only).
    """
    text = read_settings_text(path)
    return parse_settings_text(text, str(path)) if text else {}


@contextlib.contextmanager
def _file_lock(path: Path, attempts: int = 10, delay: float = 0.02) -> Iterator[None]:
    """Lock ``path`` the way pi's proper-lockfile does (a ``<path>.lock`` directory), so both can run."""
    lock = path.with_name(path.name + ".lock")
    for attempt in range(attempts):
        try:
            lock.mkdir()
            break
        except FileExistsError:
            # A lock older than proper-lockfile's stale limit (10 s) was left by a crashed process.
            with contextlib.suppress(OSError):
                if time.time() - lock.stat().st_mtime > 10:
                    lock.rmdir()
                    continue
            if attempt == attempts - 1:
                raise SettingsError(str(path), "settings file is locked by another process") from None
            time.sleep(delay)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            lock.rmdir()


class SettingsManager:
    """Global + project settings: load, merge, typed view, and minimal write-back.

    ``set(...)`` changes one key (or one nested key such as ``"compaction.enabled"``) in the chosen
    scope and writes it at once; only changed keys are merged into the file's current contents.
    """

    def __init__(self, global_path: Path | None, project_path: Path | None) -> None:
        self.global_path = global_path
        self.project_path = project_path
        self._data: dict[SettingsScope, JsonObject] = {"global": {}, "project": {}}
        self._load_failed: dict[SettingsScope, bool] = {"global": False, "project": False}
        self._errors: list[ScopedSettingsError] = []
        self._overrides: JsonObject = {}
        self._typed: Settings | None = None
        #: Project keys left out of the merged settings (program settings of an untrusted project).
        self._withheld: frozenset[str] = frozenset()
        self.reload()

    @classmethod
    def create(
        cls, cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None = None
    ) -> SettingsManager:
        """Settings from ``<agent_dir>/settings.json`` and ``<cwd>/.pi/settings.json``."""
        agent = Path(agent_dir) if agent_dir is not None else get_agent_dir()
        return cls(agent / "settings.json", Path(cwd) / CONFIG_DIR_NAME / "settings.json")

    @classmethod
    def in_memory(cls, global_settings: Mapping[str, Any] | None = None) -> SettingsManager:
        """A manager with no files (tests, SDK use); writes only change memory."""
        manager = cls(None, None)
        manager._data["global"] = migrate_settings(copy.deepcopy(dict(global_settings or {})))
        return manager

    # -- reading -----------------------------------------------------------------------------

    def _path(self, scope: SettingsScope) -> Path | None:
        return self.global_path if scope == "global" else self.project_path

    def _read(self, scope: SettingsScope) -> JsonObject:
        path = self._path(scope)
        if path is None:
            return self._data[scope]
        return read_settings_file(path)

    def reload(self) -> None:
        """Re-read both files. A file that fails keeps being treated as empty and is reported."""
        self._typed = None
        for scope in ("global", "project"):
            try:
                self._data[scope] = self._read(scope)
                self._load_failed[scope] = False
            except SettingsError as error:
                self._data[scope] = {}
                self._load_failed[scope] = True
                self._errors.append(ScopedSettingsError(scope, error))

    @property
    def errors(self) -> list[ScopedSettingsError]:
        """Errors recorded so far (load and write), oldest first."""
        return list(self._errors)

    def drain_errors(self) -> list[ScopedSettingsError]:
        """Return and forget the recorded errors (the CLI prints them as warnings at start-up)."""
        drained, self._errors = self._errors, []
        return drained

    def global_settings(self) -> JsonObject:
        """A copy of the global file's (migrated) contents."""
        return copy.deepcopy(self._data["global"])

    def project_settings(self) -> JsonObject:
        """A copy of the project file's (migrated) contents."""
        return copy.deepcopy(self._data["project"])

    def merged(self) -> JsonObject:
        """Effective raw settings: global, then project, then runtime overrides."""
        project = self._data["project"]
        if self._withheld:
            project = {key: value for key, value in project.items() if key not in self._withheld}
        merged = deep_merge_settings(self._data["global"], project)
        return deep_merge_settings(merged, self._overrides)

    def withhold_project(self, keys: Iterable[str]) -> None:
        """Ignore these top-level keys of the project file (they stay in the file)."""
        self._withheld = frozenset(keys)
        self._typed = None

    @property
    def settings(self) -> Settings:
        """The effective settings as a typed model with pi's defaults (cached until a change)."""
        if self._typed is None:
            self._typed = Settings.model_validate(self.merged())
        return self._typed

    def apply_overrides(self, overrides: Mapping[str, Any]) -> None:
        """Layer values over the files for this run only (never written).

        Raises :class:`pydantic.ValidationError` if the result is not valid settings.
        """
        combined = deep_merge_settings(self._overrides, overrides)
        Settings.model_validate(deep_merge_settings(self.merged(), combined))
        self._overrides = combined
        self._typed = None

    # -- writing -----------------------------------------------------------------------------

    def set(self, key: str, value: Any, scope: SettingsScope = "global") -> None:
        """Set ``key`` (``"theme"`` or ``"compaction.enabled"``) in ``scope`` and persist it.

        ``None`` removes the key. Nothing is written if that scope's file failed to load.
        Raises :class:`SettingsError` (and changes nothing) if the value is not valid for the key.
        """
        field, _, nested = key.partition(".")
        data = copy.deepcopy(self._data[scope])
        if nested:
            container = data.get(field)
            if not isinstance(container, dict):
                container = data[field] = {}
            _assign(container, nested, value)
        else:
            _assign(data, field, value)
        candidate = {**self._data, scope: data}
        try:
            merged = deep_merge_settings(
                deep_merge_settings(candidate["global"], candidate["project"]), self._overrides
            )
            Settings.model_validate(merged)
        except ValidationError as error:
            reason = error.errors()[0]["msg"]
            raise SettingsError(
                str(self._path(scope) or "<memory>"), f"invalid value for {key}: {reason}"
            ) from None
        self._data[scope] = data
        self._typed = None
        self._persist(scope, field, nested or None)

    def _persist(self, scope: SettingsScope, field: str, nested: str | None) -> None:
        path = self._path(scope)
        if path is None or self._load_failed[scope]:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with _file_lock(path):
                current = self._read(scope)
                value = self._data[scope].get(field)
                if nested is not None and isinstance(value, dict):
                    base = current.get(field)
                    merged = dict(base) if isinstance(base, dict) else {}
                    if nested in value:
                        merged[nested] = value[nested]
                    else:
                        merged.pop(nested, None)
                    current[field] = merged
                elif field in self._data[scope]:
                    current[field] = value
                else:
                    current.pop(field, None)
                replace_file(path, json.dumps(current, indent=2, ensure_ascii=False))
        except SettingsError as error:
            self._errors.append(ScopedSettingsError(scope, error))
        except OSError as error:
            self._errors.append(
                ScopedSettingsError(
                    scope, SettingsError(str(path), f"cannot write settings: {error.strerror}")
                )
            )


def _assign(target: JsonObject, key: str, value: Any) -> None:
    if value is None:
        target.pop(key, None)
    else:
        target[key] = copy.deepcopy(value)
