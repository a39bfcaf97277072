"""Which skill, prompt-template and theme files pi would load, before any of them is parsed.

Mirrors pi's resolution order: settings entries (project, then global; plain paths plus ``!``/``+``/``-``
and glob patterns), then auto-discovered directories (project, then user), ranked project-settings >
project-auto > user-settings > user-auto. Directory listings are sorted by name, as Node's readdir is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from pi_core.runtime.resources.ignore_rules import IgnoreMatcher
from pi_core.runtime.resources.paths import CONFIG_DIR_NAME, file_identity, home_dir, resolve_path

ResourceType = Literal["skills", "prompts", "themes"]
Scope = Literal["user", "project", "temporary"]
Source = Literal["local", "auto", "cli", "extension"]

_FILE_SUFFIX: dict[ResourceType, str] = {"skills": ".md", "prompts": ".md", "themes": ".json"}


@dataclass(frozen=True)
class ResolvedResource:
    """One candidate file with where it came from and whether settings leave it enabled."""

    path: str
    scope: Scope
    source: Source
    enabled: bool = True
    #: The directory auto-discovery searched from (``<agentDir>`` or ``<cwd>/.pi``); ``None`` otherwise.
    base_dir: str | None = None

    @property
    def rank(self) -> int:
        """pi's precedence: project settings 0, project auto 1, user settings 2, user auto 3."""
        base = 0 if self.scope == "project" else 2
        return base + (0 if self.source == "local" else 1)


@dataclass(frozen=True)
class _Entry:
    path: str
    is_dir: bool
    is_file: bool


def _list_dir(directory: str) -> list[_Entry]:
    """Directory entries sorted by name, symlinks followed; broken links left out."""
    entries: list[_Entry] = []
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return entries
    for name in names:
        path = os.path.join(directory, name)
        try:
            is_dir = os.path.isdir(path)
            is_file = os.path.isfile(path)
        except OSError:
            continue
        if not is_dir and not is_file and os.path.islink(path):
            continue
        entries.append(_Entry(path, is_dir, is_file))
    return entries


def _rel(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def collect_skill_entries(
    directory: str,
    mode: Literal["pi", "agents"],
    matcher: IgnoreMatcher | None = None,
    root: str | None = None,
) -> list[str]:
    """Skill files under ``directory``: a dir holding ``SKILL.md`` is a skill root (no deeper search);
    in ``pi`` mode top-level ``.md`` files are skills too; dot-entries and node_modules are skipped."""
    if not os.path.exists(directory):
        return []
    root = root or directory
    matcher = matcher or IgnoreMatcher()
    matcher.add_rules_from(directory, root)
    entries = _list_dir(directory)
    for entry in entries:
        if (
            os.path.basename(entry.path) == "SKILL.md"
            and entry.is_file
            and not matcher.ignores(_rel(entry.path, root))
        ):
            return [entry.path]
    found: list[str] = []
    for entry in entries:
        name = os.path.basename(entry.path)
        if name.startswith(".") or name == "node_modules":
            continue
        rel = _rel(entry.path, root)
        if mode == "pi" and directory == root and entry.is_file and name.endswith(".md"):
            if not matcher.ignores(rel):
                found.append(entry.path)
            continue
        if not entry.is_dir or matcher.ignores(rel + "/"):
            continue
        found.extend(collect_skill_entries(entry.path, mode, matcher, root))
    return found


def collect_flat_entries(directory: str, suffix: str) -> list[str]:
    """Non-recursive files with ``suffix`` (auto-discovered prompts and themes)."""
    if not os.path.exists(directory):
        return []
    matcher = IgnoreMatcher()
    matcher.add_rules_from(directory, directory)
    found: list[str] = []
    for entry in _list_dir(directory):
        name = os.path.basename(entry.path)
        if name.startswith(".") or name == "node_modules" or matcher.ignores(_rel(entry.path, directory)):
            continue
        if entry.is_file and name.endswith(suffix):
            found.append(entry.path)
    return found


def collect_files_recursive(
    directory: str, suffix: str, matcher: IgnoreMatcher | None = None, root: str | None = None
) -> list[str]:
    """Files with ``suffix`` anywhere under ``directory`` (settings directories of prompts/themes)."""
    if not os.path.exists(directory):
        return []
    root = root or directory
    matcher = matcher or IgnoreMatcher()
    matcher.add_rules_from(directory, root)
    found: list[str] = []
    for entry in _list_dir(directory):
        name = os.path.basename(entry.path)
        if name.startswith(".") or name == "node_modules":
            continue
        rel = _rel(entry.path, root)
        if matcher.ignores(rel + "/" if entry.is_dir else rel):
            continue
        if entry.is_dir:
            found.extend(collect_files_recursive(entry.path, suffix, matcher, root))
        elif entry.is_file and name.endswith(suffix):
            found.append(entry.path)
    return found


def _collect_from_paths(paths: Sequence[str], resource_type: ResourceType) -> list[str]:
    files: list[str] = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
        elif os.path.isdir(path):
            if resource_type == "skills":
                files.extend(collect_skill_entries(path, "pi"))
            else:
                files.extend(collect_files_recursive(path, _FILE_SUFFIX[resource_type]))
    return files


# -- settings patterns ---------------------------------------------------------------------------


def _glob_to_regex(pattern: str) -> re.Pattern[str]:
    """minimatch-style glob: ``**`` crosses directories, ``*`` and ``?`` do not, ``{a,b}`` alternates."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            out.append("(?:" + "|".join(re.escape(alt) for alt in pattern[i + 1 : end].split(",")) + ")")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("^" + "".join(out) + "$")


def _candidates(path: str, base_dir: str) -> list[str]:
    """The forms of ``path`` a pattern may match: relative, name, absolute (and the skill's dir)."""
    forms = [_rel(path, base_dir), os.path.basename(path), path.replace(os.sep, "/")]
    if os.path.basename(path) == "SKILL.md":
        parent = os.path.dirname(path)
        forms += [_rel(parent, base_dir), os.path.basename(parent), parent.replace(os.sep, "/")]
    return forms


def _matches_glob(path: str, patterns: Sequence[str], base_dir: str) -> bool:
    forms = _candidates(path, base_dir)
    return any(_glob_to_regex(p.replace(os.sep, "/")).match(f) for p in patterns for f in forms)


def _matches_exact(path: str, patterns: Sequence[str], base_dir: str) -> bool:
    forms = _candidates(path, base_dir)
    exact = [f for i, f in enumerate(forms) if i % 3 != 1]  # names alone never match exactly
    for pattern in patterns:
        normalized = pattern[2:] if pattern.startswith(("./", ".\\")) else pattern
        if normalized.replace(os.sep, "/") in exact:
            return True
    return False


def _is_pattern(entry: str) -> bool:
    return entry.startswith(("!", "+", "-")) or "*" in entry or "?" in entry


def apply_patterns(paths: Sequence[str], patterns: Sequence[str], base_dir: str) -> set[str]:
    """Enabled subset of ``paths``.

    Globs include, ``!`` excludes, ``+`` force-includes and ``-`` force-excludes an exact path.
    """
    includes = [p for p in patterns if not p.startswith(("!", "+", "-"))]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    force_in = [p[1:] for p in patterns if p.startswith("+")]
    force_out = [p[1:] for p in patterns if p.startswith("-")]
    result = [p for p in paths if not includes or _matches_glob(p, includes, base_dir)]
    if excludes:
        result = [p for p in result if not _matches_glob(p, excludes, base_dir)]
    for path in paths:
        if force_in and path not in result and _matches_exact(path, force_in, base_dir):
            result.append(path)
    if force_out:
        result = [p for p in result if not _matches_exact(p, force_out, base_dir)]
    return set(result)


def enabled_by_overrides(path: str, entries: Sequence[str], base_dir: str) -> bool:
    """Whether settings ``!``/``+``/``-`` entries leave an auto-discovered file enabled."""
    enabled = True
    excludes = [e[1:] for e in entries if e.startswith("!")]
    if excludes and _matches_glob(path, excludes, base_dir):
        enabled = False
    force_in = [e[1:] for e in entries if e.startswith("+")]
    if force_in and _matches_exact(path, force_in, base_dir):
        enabled = True
    force_out = [e[1:] for e in entries if e.startswith("-")]
    if force_out and _matches_exact(path, force_out, base_dir):
        enabled = False
    return enabled


# -- the whole resolution ------------------------------------------------------------------------


def find_git_root(start: str) -> str | None:
    """The first ancestor of ``start`` (inclusive) containing ``.git``."""
    current = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def ancestor_agents_skill_dirs(cwd: str) -> list[str]:
    """``.agents/skills`` in cwd and each ancestor up to the git root (or ``/``)."""
    git_root = find_git_root(cwd)
    dirs: list[str] = []
    current = os.path.abspath(cwd)
    while True:
        dirs.append(os.path.join(current, ".agents", "skills"))
        if git_root is not None and current == git_root:
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return dirs


def resolve_resources(
    resource_type: ResourceType,
    cwd: str,
    agent_dir: str,
    global_entries: Sequence[str],
    project_entries: Sequence[str],
) -> list[ResolvedResource]:
    """All candidate files of one type from settings entries and auto-discovery, best first."""
    found: dict[str, ResolvedResource] = {}

    def add(path: str, scope: Scope, source: Source, enabled: bool, base: str | None = None) -> None:
        if path and path not in found:
            found[path] = ResolvedResource(path, scope, source, enabled, base)

    project_base = os.path.join(cwd, CONFIG_DIR_NAME)
    for entries, scope, base in (
        (project_entries, "project", project_base),
        (global_entries, "user", agent_dir),
    ):
        plain = [resolve_path(e, base) for e in entries if not _is_pattern(e)]
        patterns = [e for e in entries if _is_pattern(e)]
        files = _collect_from_paths(plain, resource_type)
        enabled = apply_patterns(files, patterns, base)
        for path in files:
            add(path, scope, "local", path in enabled)  # type: ignore[arg-type]

    auto: list[tuple[Scope, str, list[str], Sequence[str]]] = []
    user_agents = os.path.join(home_dir(), ".agents", "skills")
    if resource_type == "skills":
        project_agents = [
            d for d in ancestor_agents_skill_dirs(cwd) if os.path.normpath(d) != os.path.normpath(user_agents)
        ]
        auto.append(
            (
                "project",
                project_base,
                collect_skill_entries(os.path.join(project_base, "skills"), "pi")
                + [f for d in project_agents for f in collect_skill_entries(d, "agents")],
                project_entries,
            )
        )
        auto.append(
            (
                "user",
                agent_dir,
                collect_skill_entries(os.path.join(agent_dir, "skills"), "pi")
                + collect_skill_entries(user_agents, "agents"),
                global_entries,
            )
        )
    else:
        suffix = _FILE_SUFFIX[resource_type]
        auto.append(
            (
                "project",
                project_base,
                collect_flat_entries(os.path.join(project_base, resource_type), suffix),
                project_entries,
            )
        )
        auto.append(
            (
                "user",
                agent_dir,
                collect_flat_entries(os.path.join(agent_dir, resource_type), suffix),
                global_entries,
            )
        )
    for scope, base, paths, overrides in auto:
        for path in paths:
            add(path, scope, "auto", enabled_by_overrides(path, overrides, base), base)

    ordered = sorted(found.values(), key=lambda r: r.rank)
    seen: set[tuple[int, int] | str] = set()
    unique: list[ResolvedResource] = []
    for resource in ordered:
        real = file_identity(resource.path)
        if real not in seen:
            seen.add(real)
            unique.append(resource)
    return unique


def merge_paths(
    primary: Sequence[str], additional: Sequence[str], resolve: Callable[[str], str]
) -> list[str]:
    """Concatenate path lists, resolving each and dropping later duplicates of the same real file."""
    merged: list[str] = []
    seen: set[tuple[int, int] | str] = set()
    for raw in [*primary, *additional]:
        resolved = resolve(raw)
        real = file_identity(resolved)
        if real in seen:
            continue
        seen.add(real)
        merged.append(resolved)
    return merged
