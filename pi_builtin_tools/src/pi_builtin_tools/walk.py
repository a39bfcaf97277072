"""A pure-Python file walk honouring .gitignore files, for machines without ripgrep.

Covers the rules models meet in practice: comments, negation, directory-only patterns, anchored
patterns, ``**``. Hidden files are included and ``.git`` is not special, as with ``rg --hidden``.
``.gitignore`` files count only inside a git work tree unless ``require_git`` is off (ripgrep's
``--no-require-git``); ``.ignore`` files always count.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from re import Pattern

from pi_builtin_tools.globmatch import compile_glob


@dataclass(frozen=True)
class _Rule:
    regex: Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool


def _parse_ignore(path: str) -> list[_Rule]:
    rules: list[_Rule] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return rules
    for raw in lines:
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        line = line.removeprefix("\\")
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if not line:
            continue
        rules.append(_Rule(compile_glob(line), negate, dir_only, anchored))
    return rules


def _ignored(rules_stack: list[tuple[str, list[_Rule]]], path: str, is_dir: bool) -> bool:
    ignored = False
    for base, rules in rules_stack:
        rel = os.path.relpath(path, base).replace(os.sep, "/")
        name = rel.rsplit("/", 1)[-1]
        for rule in rules:
            if rule.dir_only and not is_dir:
                continue
            target = rel if rule.anchored else name
            if rule.regex.match(target):
                ignored = not rule.negate
    return ignored


def in_git_work_tree(path: str) -> bool:
    current = os.path.abspath(path)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


#: Up to this many entries a directory is walked in name order; a bigger one (a folder of a million
#: files) is walked in the order the system lists it, as ripgrep does, so that memory does not
#: grow with it.
SORTED_ENTRIES = 10_000


def _entries(directory: str) -> Iterator[os.DirEntry[str]]:
    """The entries of ``directory``, by name unless there are more than :data:`SORTED_ENTRIES`."""
    with os.scandir(directory) as listing:
        first = list(itertools.islice(listing, SORTED_ENTRIES + 1))
        if len(first) <= SORTED_ENTRIES:
            yield from sorted(first, key=lambda e: e.name)
            return
        yield from first
        del first
        yield from listing


def walk_files(root: str, include_dirs: bool = False, require_git: bool = True) -> Iterator[tuple[str, bool]]:
    """Yield ``(absolute path, is_dir)`` for every non-ignored entry below ``root`` (files only unless
    ``include_dirs``)."""
    ignore_names = (".gitignore", ".ignore") if not require_git or in_git_work_tree(root) else (".ignore",)
    stack: list[tuple[str, list[tuple[str, list[_Rule]]]]] = [(root, [])]
    while stack:
        directory, inherited = stack.pop()
        rules = inherited
        for ignore_name in ignore_names:
            parsed = _parse_ignore(os.path.join(directory, ignore_name))
            if parsed:
                rules = [*rules, (directory, parsed)]
        try:
            entries = _entries(directory)
        except OSError:
            continue
        subdirs: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if _ignored(rules, entry.path, is_dir):
                continue
            if is_dir:
                subdirs.append(entry.path)
                if include_dirs:
                    yield entry.path, True
            else:
                yield entry.path, False
        stack.extend((sub, rules) for sub in reversed(subdirs))
