"""The flags plugins register, cached so ``pi --help`` can list them without loading any plugin.

Loading plugins costs half a second (their imports, pydantic); ``pi --help`` has 250 ms. So every
time plugins are loaded from the command line (a run, ``pi run --help``, ``pi plugins``, a slow
``pi --help``) the flags they registered are written to ``<agent dir>/cache/plugin-flags.json``
together with a fingerprint of what decided which plugins loaded:

* the installed distributions (names and mtimes of the ``*.dist-info``/``*.egg-info`` directories
  on ``sys.path``, and ``sys.path`` itself) — a fraction of a millisecond, where
  ``importlib.metadata`` alone takes 40 ms to import;
* the local extension files: ``-e`` paths, the project's and the agent dir's ``extensions``
  directories and settings-listed paths (mtime and size of every ``.py`` file and directory);
* the settings files, the trust file and ``PI_DISABLED_PLUGINS``;
* after loading, the source file of every loaded plugin module (an edited entry-point module of an
  editable install counts as a change).

On a match ``pi --help`` prints the cached flags; otherwise it loads the plugins (the slow, always
correct path) and refreshes the entry. Nothing here imports ``pi_core.plugins`` or pydantic at
module level, and no failure of the cache ever fails a command.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pi_core import __version__
from pi_core._files import read_regular, replace_file
from pi_core._jsonfile import loads
from pi_core._paths import agent_dir
from pi_core.cli.options import PluginControl

if TYPE_CHECKING:
    from pi_core.plugins.manager import PiPluginManager
    from pi_core.plugins.registry import FlagSpec

CACHE_FORMAT = 1
CACHE_FILE = Path("cache") / "plugin-flags.json"
#: Entries kept (one per project with a ``.pi`` directory and plugin-control flags combination).
MAX_ENTRIES = 32
#: Must equal ``pi_core.plugins.trust.TRUST_FILE`` (not imported: that would load the plugin layer).
TRUST_FILE = "trusted-projects.json"

Stamp = tuple[str, int, int]


@dataclass(frozen=True)
class CachedFlag:
    """A plugin flag as ``--help`` needs it (the fields of ``pi_core.plugins.registry.FlagSpec``)."""

    name: str
    type: str
    default: Any
    description: str | None
    plugin: str


@dataclass(frozen=True)
class HelpFlags:
    """What ``pi --help`` says about plugins: their flags and why some may be missing."""

    flags: tuple[CachedFlag, ...] = ()
    #: The project whose plugin code was not loaded because it is not trusted.
    untrusted_project: str | None = None
    #: Plugins that failed to load or to register, and flags clashing with pi's own.
    problems: int = 0
    #: A problem that stopped plugin loading altogether (an unreadable settings file).
    error: str | None = None
    from_cache: bool = False


@dataclass(frozen=True)
class Snapshot:
    """What decided which plugins load, taken before loading them."""

    agent: Path
    context: str
    fingerprint: str


# --- stamps -----------------------------------------------------------------------------------------


def _file_stamp(path: Path | str) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return (str(path), -1, -1)
    return (str(path), st.st_mtime_ns, st.st_size)


def _tree_stamps(path: Path, out: list[Stamp], *, scan: bool = True, in_package: bool = False) -> None:
    """Stamps of a plugin path: a file, or a directory scanned the way the loader scans it.

    A directory's own mtime covers added, removed and renamed entries; its ``.py`` files are stamped
    one by one (an edit does not touch the directory). Subdirectories are followed one level down
    from a scanned directory, and all the way inside a package.
    """
    try:
        st = os.stat(path)
    except OSError:
        out.append((str(path), -1, -1))
        return
    if not os.path.isdir(path):
        out.append((str(path), st.st_mtime_ns, st.st_size))
        return
    out.append((str(path), st.st_mtime_ns, -2))
    package = in_package or os.path.isfile(os.path.join(path, "__init__.py"))
    try:
        entries = sorted(os.scandir(path), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.name == "__pycache__" or entry.name.startswith("."):
            continue
        if entry.name.endswith(".py") and entry.is_file():
            out.append(_file_stamp(entry.path))
        elif (scan or package) and entry.is_dir():
            _tree_stamps(Path(entry.path), out, scan=False, in_package=package)


def _distribution_stamps(out: list[Stamp]) -> None:
    """Every installed distribution on ``sys.path`` (entry points can only come from these)."""
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as listing:
                for item in listing:
                    if item.name.endswith((".dist-info", ".egg-info")):
                        out.append((item.path, item.stat().st_mtime_ns, 0))
        except OSError:
            continue


def _listed_extensions(settings_file: Path) -> list[Path]:
    """Paths a settings file's ``extensions`` list names (prefixes ``+ - !`` stripped)."""
    try:
        data = loads(read_regular(settings_file).decode("utf-8-sig", "replace"))  # quiet: loading warns
    except (OSError, ValueError):
        return []  # the loader reports a bad file; its stamp already covers it
    entries = data.get("extensions") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    base = settings_file.parent
    return [base / Path(e.lstrip("+-")).expanduser() for e in entries if isinstance(e, str) and e[:1] != "!"]


def take_snapshot(control: PluginControl, cwd: Path, env: Mapping[str, str] | None = None) -> Snapshot:
    """Fingerprint what would be loaded for ``control`` in ``cwd`` — without loading anything."""
    env = os.environ if env is None else env
    agent = agent_dir(env)
    cwd = cwd.resolve()
    # A directory without .pi contributes nothing, so all such directories share one entry.
    project = cwd if os.path.isdir(cwd / ".pi") else None
    extensions = [str((cwd / Path(e).expanduser()).resolve()) for e in control.extensions]
    context = {
        "format": CACHE_FORMAT,
        "pi": __version__,
        "python": sys.executable,
        "agent": str(agent),
        "project": str(project) if project else None,
        "extensions": extensions,
        "noExtensions": control.no_extensions,
        "trustProject": control.trust_project,
        "noApprove": control.no_approve,
    }
    stamps: list[Stamp] = []
    _distribution_stamps(stamps)
    scopes = [(agent / "settings.json", agent / "extensions")]
    if project is not None:
        scopes.insert(0, (project / ".pi" / "settings.json", project / ".pi" / "extensions"))
        stamps.append(_file_stamp(agent / TRUST_FILE))
    for settings_file, extensions_dir in scopes:
        stamps.append(_file_stamp(settings_file))  # disabledPlugins count even with --no-extensions
        if not control.no_extensions:
            for listed in _listed_extensions(settings_file):
                _tree_stamps(listed, stamps)
            _tree_stamps(extensions_dir, stamps)
    for extension in extensions:
        _tree_stamps(Path(extension), stamps)
    state = {"sys.path": sys.path, "disabled": env.get("PI_DISABLED_PLUGINS", ""), "stamps": stamps}
    return Snapshot(agent, _digest(context), _digest(state))


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


# --- the cache file ---------------------------------------------------------------------------------


def _read(agent: Path) -> dict[str, Any]:
    try:
        data = loads((agent / CACHE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
        return {}
    return data


def lookup(snapshot: Snapshot) -> HelpFlags | None:
    """The cached answer for ``snapshot``, or None when there is none or anything changed."""
    entry = _read(snapshot.agent).get("entries", {}).get(snapshot.context)
    if not isinstance(entry, dict) or entry.get("fingerprint") != snapshot.fingerprint:
        return None
    try:
        for path, mtime, size in entry["files"]:
            if _file_stamp(path) != (path, mtime, size):
                return None
        flags = tuple(CachedFlag(**flag) for flag in entry["flags"])
        return HelpFlags(flags, entry["untrustedProject"], int(entry["problems"]), from_cache=True)
    except (KeyError, TypeError, ValueError):
        return None


def plugin_files(pm: PiPluginManager) -> list[str]:
    """Source files of the loaded plugins (modules, or the module of a plugin instance)."""
    files: list[str] = []
    for _, plugin in pm.plugins_in_load_order():
        module = plugin if hasattr(plugin, "__file__") else sys.modules.get(type(plugin).__module__)
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            files.append(path)
    return files


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def store(
    snapshot: Snapshot,
    flags: Iterable[FlagSpec | CachedFlag],
    *,
    untrusted_project: str | None,
    problems: int,
    files: Iterable[str],
) -> None:
    """Record what loading found for ``snapshot``; a no-op when the entry is already current."""
    entry = {
        "fingerprint": snapshot.fingerprint,
        "files": [list(_file_stamp(path)) for path in dict.fromkeys(files)],
        "flags": [
            asdict(CachedFlag(f.name, f.type, _jsonable(f.default), f.description, f.plugin)) for f in flags
        ],
        "untrustedProject": untrusted_project,
        "problems": problems,
    }
    data = _read(snapshot.agent)
    stored = data.get("entries")
    entries: dict[str, Any] = stored if isinstance(stored, dict) else {}
    old = entries.get(snapshot.context)
    if isinstance(old, dict) and {**old, "written": None} == {**entry, "written": None}:
        return
    entries[snapshot.context] = {**entry, "written": time.time()}
    if len(entries) > MAX_ENTRIES:
        newest = sorted(entries.items(), key=lambda item: item[1].get("written", 0), reverse=True)
        entries = dict(newest[:MAX_ENTRIES])
    path = snapshot.agent / CACHE_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, json.dumps({"format": CACHE_FORMAT, "entries": entries}, indent=1))
    except OSError:
        return  # a read-only agent dir only costs the next --help its speed


def try_snapshot(control: PluginControl, cwd: Path) -> Snapshot | None:
    """:func:`take_snapshot`, or None when the file system gets in the way (the cache is optional)."""
    try:
        return take_snapshot(control, cwd)
    except (OSError, ValueError):
        return None


def usable_flags(flags: Iterable[FlagSpec], reserved: Iterable[str]) -> tuple[list[FlagSpec], list[FlagSpec]]:
    """Split plugin flags into those that become options and those clashing with ``reserved``."""
    taken = set(reserved)
    usable: list[FlagSpec] = []
    clashing: list[FlagSpec] = []
    for flag in flags:
        (clashing if f"--{flag.name}" in taken else usable).append(flag)
    return usable, clashing


# --- what pi --help uses ----------------------------------------------------------------------------


def help_flags(control: PluginControl, cwd: Path, reserved: Iterable[str]) -> HelpFlags:
    """The plugin flags for ``pi --help``: from the cache when it is current, else by loading plugins."""
    snapshot = try_snapshot(control, cwd)
    if snapshot is not None:
        cached = lookup(snapshot)
        if cached is not None:
            return cached
    return _load_flags(control, cwd, reserved, snapshot)


def _load_flags(
    control: PluginControl, cwd: Path, reserved: Iterable[str], snapshot: Snapshot | None
) -> HelpFlags:
    from pi_core.errors import PiError
    from pi_core.plugins.manager import LoadOptions, load_plugins

    options = LoadOptions(
        cwd=cwd,
        extension_paths=control.extensions,
        no_extensions=control.no_extensions,
        trust_project=control.trust_project,
        ignore_project=control.no_approve and not control.trust_project,
    )
    try:
        pm = load_plugins(options)
    except PiError as exc:  # e.g. a settings file that is not JSON: say it, list no flags
        return HelpFlags(error=str(exc))
    return remember_loaded(snapshot, pm, reserved)


def remember_loaded(snapshot: Snapshot | None, pm: PiPluginManager, reserved: Iterable[str]) -> HelpFlags:
    """Collect the flags of loaded plugins (``register_flags`` only) and store them for ``snapshot``."""
    import asyncio

    from pi_core.plugins.registry import collect_registrations

    registrations = asyncio.run(collect_registrations(pm, hooks=("register_flags",)))
    usable, clashing = usable_flags(registrations.flags.values(), reserved)
    untrusted = str(pm.untrusted_project.project) if pm.untrusted_project is not None else None
    problems = len(pm.load_errors) + len(registrations.errors) + len(clashing)
    if snapshot is not None:
        store(snapshot, usable, untrusted_project=untrusted, problems=problems, files=plugin_files(pm))
    flags = tuple(CachedFlag(f.name, f.type, f.default, f.description, f.plugin) for f in usable)
    return HelpFlags(flags, untrusted, problems)


def run_option_names() -> set[str]:
    """The option strings of pi's ``run`` command, which plugin flags must not take."""
    from pi_core.cli.app import run

    return {opt for param in run.params for opt in getattr(param, "opts", [])}


def flag_option(flag: FlagSpec | CachedFlag) -> click.Option:
    """The click option a plugin flag becomes (``run``'s parser and both help texts use it)."""
    help_text = f"{flag.description or ''} (plugin {flag.plugin})".strip()
    if flag.type == "boolean":
        return click.Option([f"--{flag.name}"], is_flag=True, default=bool(flag.default), help=help_text)
    return click.Option([f"--{flag.name}"], type=str, default=flag.default, help=help_text, metavar="VALUE")
