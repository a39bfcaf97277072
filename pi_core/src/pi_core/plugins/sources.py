"""Where local plugins come from: the agent dir, settings files, ``.pi/extensions`` and ``-e`` paths.

Only what the plugin loader needs from settings is read here (``extensions``, ``disabledPlugins``);
the full settings manager lives in the runtime layer.

Local plugins are imported from their source only (:func:`source_only_spec`): Python would
otherwise run a ``.pyc`` from ``__pycache__`` (an unchecked hash-based one without looking at the
``.py`` at all), a sourceless ``.pyc`` or a native ``.so`` beside the sources — code that trust
never saw. Bytecode caches are neither read nor written for them, and a compiled module in a
local plugin is refused with a message.
"""

from __future__ import annotations

import fnmatch
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from pi_core.settings_file import SettingsError, line_column, parse_settings_json, read_settings_text

#: Where a local plugin was found, in load-order rank (spec §7.3).
Scope = Literal["flag", "project-settings", "project", "global-settings", "global"]
PROJECT_SCOPES: frozenset[str] = frozenset({"project-settings", "project"})


class SettingsReader:
    """Reads each settings file once, with the parser the runtime's settings manager uses.

    A file that cannot be read or is not a JSON object counts as empty (pi's defaults: none of its
    ``extensions`` load, none of its ``disabledPlugins`` apply); its error — file, line and column —
    is kept once in :attr:`errors` for the caller to show, and loading goes on.
    """

    def __init__(self) -> None:
        self.errors: list[SettingsError] = []
        self._files: dict[Path, tuple[str, dict[str, Any]]] = {}

    def __call__(self, path: Path) -> dict[str, Any]:
        return self._read(path)[1]

    def _read(self, path: Path) -> tuple[str, dict[str, Any]]:
        if path not in self._files:
            try:
                text = read_settings_text(path)
                self._files[path] = (text, parse_settings_json(text, str(path)) if text else {})
            except SettingsError as error:
                self.errors.append(error)
                self._files[path] = ("", {})
        return self._files[path]

    def string_list(self, path: Path, key: str) -> list[str]:
        """``key`` of the file as a list of strings; anything else is reported and counts as ``[]``."""
        text, data = self._read(path)
        value = data.get(key, [])
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return list(value)
        offset = text.find(json.dumps(key))
        line, column = line_column(text, offset) if offset >= 0 else (None, None)
        self.errors.append(
            SettingsError(str(path), f'"{key}" must be a list of strings', line=line, column=column)
        )
        self._files[path] = (text, {**data, key: []})
        return []


def read_settings(path: Path) -> dict[str, Any]:
    """A settings.json as a dict; ``{}`` when it is missing or broken (see :class:`SettingsReader`)."""
    return SettingsReader()(path)


@dataclass(frozen=True)
class LocalPlugin:
    """A local plugin: one ``.py`` file or a package directory (its ``__init__.py`` is loaded)."""

    name: str
    path: Path
    scope: Scope
    is_package: bool = False

    def files(self) -> list[Path]:
        """Every file of the plugin that Python could run (what trust fingerprints): its sources,
        and any compiled module or ``.pth`` file in a package (those are refused at import, but
        their appearance still asks for trust again). ``__pycache__`` is never read for local
        plugins, so it is not part of their code."""
        if not self.is_package:
            return [self.path]
        return sorted(
            p
            for p in self.path.rglob("*")
            if p.suffix in _CODE_SUFFIXES and "__pycache__" not in p.parts and p.is_file()
        )

    @property
    def entry_file(self) -> Path:
        return self.path / "__init__.py" if self.is_package else self.path


#: Suffixes of files that Python can execute: sources, bytecode, native modules, ``.pth`` lines.
_CODE_SUFFIXES = frozenset(
    {*importlib.machinery.SOURCE_SUFFIXES, *importlib.machinery.BYTECODE_SUFFIXES, ".pyo", ".pth"}
    | set(importlib.machinery.EXTENSION_SUFFIXES)
    | {".so", ".pyd"}
)
_COMPILED_SUFFIXES = (*importlib.machinery.BYTECODE_SUFFIXES, *importlib.machinery.EXTENSION_SUFFIXES)


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles the ``.py`` file every time: never reads or writes a bytecode cache."""

    def get_code(self, fullname: str) -> Any:
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


class _LocalPluginFinder(importlib.abc.MetaPathFinder):
    """Finds the submodules of local plugin packages, from their sources only."""

    def __init__(self) -> None:
        self.prefixes: set[str] = set()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        head = fullname.rpartition(".")[0]
        if not head or head.split(".", 1)[0] not in self.prefixes or path is None:
            return None
        name = fullname.rpartition(".")[2]
        for directory in path:
            base = Path(directory) / name
            if (base / "__init__.py").is_file():
                return _spec(fullname, base / "__init__.py", [str(base)])
            if base.with_suffix(".py").is_file():
                return _spec(fullname, base.with_suffix(".py"), None)
            compiled = [c for c in _compiled_candidates(base) if c.is_file()]
            if compiled:
                raise ImportError(
                    f"{compiled[0]} is compiled code without its source; pi imports local "
                    "plugins from .py files only",
                    name=fullname,
                )
        return None


def _compiled_candidates(base: Path) -> list[Path]:
    return [base.with_name(base.name + suffix) for suffix in _COMPILED_SUFFIXES] + [
        base / f"__init__{suffix}" for suffix in _COMPILED_SUFFIXES
    ]


def _spec(fullname: str, file: Path, search: list[str] | None) -> importlib.machinery.ModuleSpec | None:
    loader = SourceOnlyLoader(fullname, str(file))
    return importlib.util.spec_from_file_location(
        fullname, file, loader=loader, submodule_search_locations=search
    )


_FINDER = _LocalPluginFinder()


def source_only_spec(plugin: LocalPlugin, module_name: str) -> importlib.machinery.ModuleSpec | None:
    """The import spec of a local plugin under ``module_name``: its entry file and (for a
    package) its submodules load from source only (see the module docstring)."""
    if plugin.is_package:
        _FINDER.prefixes.add(module_name)
        if _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)
    search = [str(plugin.path)] if plugin.is_package else None
    return _spec(module_name, plugin.entry_file, search)


@dataclass
class LocalSources:
    """Local plugins in load order, plus the problems found while resolving them."""

    plugins: list[LocalPlugin] = field(default_factory=list)
    missing: list[tuple[str, Scope]] = field(default_factory=list)


def _skip(entry: Path) -> bool:
    return (entry.name.startswith((".", "_")) and entry.name != "__init__.py") or entry.name == "__pycache__"


def scan_directory(directory: Path, scope: Scope) -> list[LocalPlugin]:
    """Plugins in an extensions dir: ``*.py`` files and ``<pkg>/__init__.py`` packages, one level, sorted."""
    if (directory / "__init__.py").is_file():
        return [LocalPlugin(directory.name, directory, scope, is_package=True)]
    if not directory.is_dir():
        return []
    found: list[LocalPlugin] = []
    for entry in sorted(directory.iterdir()):
        if _skip(entry):
            continue
        if entry.is_file() and entry.suffix == ".py":
            found.append(LocalPlugin(entry.stem, entry, scope))
        elif entry.is_dir() and (entry / "__init__.py").is_file():
            found.append(LocalPlugin(entry.name, entry, scope, is_package=True))
    return found


def resolve_path(raw: str, base: Path, scope: Scope, sources: LocalSources) -> list[LocalPlugin]:
    """A file or directory named on the command line or in settings (relative to ``base``)."""
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = base / path
    if path.is_file():
        if path.name == "__init__.py":
            return [LocalPlugin(path.parent.name, path.parent, scope, is_package=True)]
        return [LocalPlugin(path.stem, path, scope)]
    if path.is_dir():
        return scan_directory(path, scope)
    sources.missing.append((str(path), scope))
    return []


def _settings_entries(
    settings_file: Path, scope: Scope, sources: LocalSources, read: SettingsReader
) -> tuple[list[LocalPlugin], list[str], list[Path]]:
    """Plain entries load; ``!glob`` and ``-path`` exclude auto-discovered ones; ``+path`` force-includes."""
    entries = read.string_list(settings_file, "extensions")
    base = settings_file.parent
    loaded: list[LocalPlugin] = []
    exclude_globs: list[str] = []
    exclude_paths: list[Path] = []
    for entry in entries:
        if entry.startswith("!"):
            exclude_globs.append(entry[1:])
        elif entry.startswith("-"):
            exclude_paths.append((base / entry[1:]).resolve())
        else:
            loaded.extend(resolve_path(entry.removeprefix("+"), base, scope, sources))
    return loaded, exclude_globs, exclude_paths


def _excluded(plugin: LocalPlugin, globs: Iterable[str], paths: Iterable[Path]) -> bool:
    resolved = plugin.path.resolve()
    if resolved in paths:
        return True
    return any(fnmatch.fnmatch(plugin.path.name, g) or fnmatch.fnmatch(str(plugin.path), g) for g in globs)


def discover_local(
    *,
    cwd: Path,
    agent: Path,
    extension_paths: Iterable[str] = (),
    discovery: bool = True,
    read: SettingsReader | None = None,
) -> LocalSources:
    """Local plugins in load order: ``-e``, project settings, project dir, global settings, global dir.

    With ``discovery`` off (``--no-extensions``) only the ``-e`` paths are returned. A path seen twice
    is loaded once, at its first place. Settings problems land in ``read.errors``.
    """
    read = read or SettingsReader()
    sources = LocalSources()
    ordered: list[LocalPlugin] = []
    for raw in extension_paths:
        ordered.extend(resolve_path(raw, cwd, "flag", sources))
    if discovery:
        for settings_file, settings_scope, auto_dir, auto_scope in (
            (cwd / ".pi" / "settings.json", "project-settings", cwd / ".pi" / "extensions", "project"),
            (agent / "settings.json", "global-settings", agent / "extensions", "global"),
        ):
            listed, globs, paths = _settings_entries(settings_file, settings_scope, sources, read)  # type: ignore[arg-type]
            ordered.extend(listed)
            auto = scan_directory(auto_dir, auto_scope)  # type: ignore[arg-type]
            ordered.extend(p for p in auto if not _excluded(p, globs, paths))
    seen: set[Path] = set()
    for plugin in ordered:
        key = plugin.path.resolve()
        if key not in seen:
            seen.add(key)
            sources.plugins.append(plugin)
    return sources


def blocked_names(
    *, cwd: Path, agent: Path, env: Mapping[str, str] | None = None, read: SettingsReader | None = None
) -> list[str]:
    """Names blocked by ``disabledPlugins`` (global and project settings) and ``PI_DISABLED_PLUGINS``."""
    env = os.environ if env is None else env
    read = read or SettingsReader()
    names: list[str] = []
    for settings_file in (agent / "settings.json", cwd / ".pi" / "settings.json"):
        names.extend(read.string_list(settings_file, "disabledPlugins"))
    names.extend(n.strip() for n in env.get("PI_DISABLED_PLUGINS", "").split(",") if n.strip())
    return list(dict.fromkeys(names))
