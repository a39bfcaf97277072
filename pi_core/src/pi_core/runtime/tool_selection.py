"""Which tools a run starts with: the ``defaultTools`` setting, ``--tools``, ``--exclude-tools``,
``--no-tools`` and ``--no-builtin-tools``, combined as pi 1.6.0 combines them.

- ``defaultTools`` (user settings, then project settings on top) picks the built-in tools: plain
  names replace the selection, ``+name`` adds and ``-name`` removes, in order; a list of only
  ``+``/``-`` entries changes the selection it inherits. Plugin tools stay active either way.
- ``--tools`` with plain entries is an allowlist over every tool; an entry may be a pattern where
  ``*`` matches any characters. A list of only ``+name``/``-name`` entries (exact names) changes
  the ``defaultTools`` selection instead. The two kinds cannot be mixed in one ``--tools``.
- ``--exclude-tools`` removes names or patterns after everything else.

An entry that names or matches no tool is reported as a warning (pi says nothing) and the run
goes on without it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

MIXED_ENTRIES = "--tools: tool names cannot be mixed with +name or -name entries"


@dataclass
class ToolSelection:
    names: list[str]
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _is_change(entry: str) -> bool:
    return entry.startswith(("+", "-")) and len(entry) > 1


def matches_pattern(pattern: str, name: str) -> bool:
    """``name`` is ``pattern`` (``*``: any characters)."""
    return _matches(pattern, name)


def uses_default_tools(tools: Sequence[str] | None, no_tools: bool, no_builtin_tools: bool) -> bool:
    """The tool set follows ``defaultTools`` (no ``--tools`` allowlist, at most ``+``/``-`` changes,
    no ``--no-tools``): then a resumed session takes the tools its transcript records."""
    entries = [entry for entry in tools or () if entry]
    return not no_tools and not no_builtin_tools and all(_is_change(entry) for entry in entries)


def tool_changes(tools: Sequence[str] | None) -> list[str]:
    """The ``+name``/``-name`` entries of ``--tools``."""
    return [entry for entry in tools or () if entry and _is_change(entry)]


def _matches(pattern: str, name: str) -> bool:
    if "*" not in pattern:
        return pattern == name
    regex = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(regex, name) is not None


def apply_entries(base: Sequence[str], entries: Iterable[str]) -> list[str]:
    """One ``defaultTools``-style list over ``base``: plain names form a new selection (when the
    list has any; an empty list selects nothing), then ``+name``/``-name`` apply in order."""
    entries = [entry.strip() for entry in entries if isinstance(entry, str) and entry.strip()]
    plain = [entry for entry in entries if not _is_change(entry)]
    # Plain names (or an empty list: no built-in tools) replace; only +/- entries change ``base``.
    selected = list(dict.fromkeys(plain)) if plain or not entries else list(base)
    for entry in entries:
        if not _is_change(entry):
            continue
        name = entry[1:]
        if entry[0] == "+" and name not in selected:
            selected.append(name)
        elif entry[0] == "-" and name in selected:
            selected.remove(name)
    return selected


def default_tools(builtin_defaults: Sequence[str], layers: Sequence[object]) -> list[str]:
    """The ``defaultTools`` selection: each settings layer (user, then project) over the last.

    A layer that is not a list of strings is skipped (the settings loader reports bad values).
    """
    selected = list(builtin_defaults)
    for layer in layers:
        if isinstance(layer, list):
            selected = apply_entries(selected, layer)
    return selected


def select_tools(
    *,
    available: Sequence[str],
    builtin: Iterable[str],
    builtin_defaults: Sequence[str],
    setting_layers: Sequence[object] = (),
    tools: Sequence[str] | None = None,
    exclude: Sequence[str] | None = None,
    no_tools: bool = False,
    no_builtin_tools: bool = False,
) -> ToolSelection:
    """The tools to activate, in a stable order (each once), with what could not be applied."""
    builtin_names = set(builtin)
    plugin_tools = [name for name in available if name not in builtin_names]
    warnings: list[str] = []
    errors: list[str] = []
    defaults = default_tools(builtin_defaults, setting_layers)
    for layer in setting_layers:
        if isinstance(layer, list):
            for entry in layer:
                name = entry[1:] if isinstance(entry, str) and _is_change(entry) else entry
                if isinstance(name, str) and name.strip() and name.strip() not in available:
                    warnings.append(f'defaultTools: no tool is named "{name.strip()}"')
    tool_entries = [entry for entry in tools or () if entry]
    changes = [entry for entry in tool_entries if _is_change(entry)]
    if changes and len(changes) != len(tool_entries):
        errors.append(MIXED_ENTRIES)
        return ToolSelection([], warnings, errors)
    if tool_entries and not changes:
        selected: list[str] = []
        for entry in tool_entries:
            found = [name for name in available if _matches(entry, name)]
            if not found:
                what = "matches" if "*" in entry else "is named"
                warnings.append(f'--tools: no tool {what} "{entry}"')
            selected.extend(name for name in found if name not in selected)
    elif no_tools:
        selected = []
    else:
        base = apply_entries(defaults, changes) if changes else defaults
        for entry in changes:
            if entry[1:] not in available:
                warnings.append(f'--tools: no tool is named "{entry[1:]}"')
        chosen = [] if no_builtin_tools else [name for name in base if name in available]
        selected = chosen + [name for name in plugin_tools if name not in chosen]
    for pattern in exclude or ():
        if not any(_matches(pattern, name) for name in available):
            what = "matches" if "*" in pattern else "is named"
            warnings.append(f'--exclude-tools: no tool {what} "{pattern}"')
        selected = [name for name in selected if not _matches(pattern, name)]
    return ToolSelection(selected, warnings, errors)
