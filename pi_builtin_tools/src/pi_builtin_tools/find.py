"""The ``find`` tool: files (and directories) whose name or path matches a glob, honouring .gitignore.

The listing comes from ``rg --files --hidden --no-require-git`` (or the pure-Python walk); glob
matching follows fd's rules, which pi uses: the pattern is matched against the base name, or, when it
contains ``/``, against the full path with ``**/`` put in front unless it is anchored.
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError, ToolUpdate
from pi_core.agent.truncate import DEFAULT_MAX_BYTES
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import TextContent
from pydantic import Field

from pi_builtin_tools import render
from pi_builtin_tools._common import abortable, check_aborted, cwd_of
from pi_builtin_tools._schema import ToolParams
from pi_builtin_tools.binaries import find_rg
from pi_builtin_tools.globmatch import compile_glob
from pi_builtin_tools.listing import Notice, listing_result
from pi_builtin_tools.paths import resolve_to_cwd
from pi_builtin_tools.ripgrep import run_ripgrep
from pi_builtin_tools.walk import walk_files

DEFAULT_LIMIT = 1000


class FindParams(ToolParams):
    pattern: str = Field(
        description="Glob for the files to find, e.g. '*.py', '**/*.json' or 'src/**/test_*.py'"
    )
    path: str | None = Field(default=None, description="Directory to search (default: the cwd)")
    limit: float | None = Field(default=None, description="Most results to return (default: 1000)")


DESCRIPTION = (
    "Find files by glob pattern; paths come back relative to the searched directory. Files ignored by "
    f".gitignore are skipped. Output stops at {DEFAULT_LIMIT} results or {DEFAULT_MAX_BYTES // 1024}KB, "
    "whichever comes first."
)


def create_find_tool() -> AgentTool:
    async def execute(
        tool_call_id: str,
        params: FindParams,
        signal: AbortSignal | None,
        on_update: ToolUpdate | None,
        ctx: Any,
    ) -> AgentToolResult:
        check_aborted(signal)
        search_path = resolve_to_cwd(params.path or ".", cwd_of(ctx))
        if not await asyncio.to_thread(os.path.exists, search_path):
            raise ToolError(f"Path not found: {search_path}")
        limit = int(params.limit) if params.limit else DEFAULT_LIMIT
        matcher = _matcher(params.pattern)
        rg = find_rg(getattr(ctx, "agent_dir", None))
        if rg is not None:
            found = await _find_rg(rg, search_path, matcher, limit, signal)
        else:
            found = await abortable(asyncio.to_thread(_find_python, search_path, matcher, limit), signal)
        check_aborted(signal)
        return _format(found, limit)

    return AgentTool(
        name="find",
        label="find",
        description=DESCRIPTION,
        parameters=FindParams,
        execute=execute,
        prompt_snippet="Find files by glob pattern (respects .gitignore)",
        render_call=render.render_find_call,
        render_result=render.render_search_result,
    )


@dataclass(frozen=True)
class _Matcher:
    """fd's glob rule. ``full`` matches an absolute path; ``__call__`` takes a path and its base name."""

    full: re.Pattern[str]

    def __call__(self, absolute: str, name: str) -> bool:
        return self.full.match(absolute) is not None


def _matcher(pattern: str) -> _Matcher:
    if "/" in pattern:
        if not pattern.startswith(("/", "**/")) and pattern != "**":
            pattern = f"**/{pattern}"
        return _Matcher(compile_glob(pattern))
    # A base-name pattern: anything up to the last slash, then the pattern.
    return _Matcher(compile_glob("**/" + pattern if pattern else pattern))


class _Collector:
    """Matches files and the directories above them (fd lists both; ``rg --files`` only files)."""

    def __init__(self, root: str, matcher: _Matcher, limit: int) -> None:
        self.root = root.rstrip(os.sep) or os.sep
        self.matcher = matcher
        self.limit = limit
        self.results: list[str] = []
        self._seen_dirs: set[str] = set()

    @property
    def full(self) -> bool:
        return len(self.results) >= self.limit

    def add_file(self, path: str) -> None:
        parent = os.path.dirname(path)
        pending: list[str] = []
        while parent != self.root and parent not in self._seen_dirs and parent.startswith(self.root):
            self._seen_dirs.add(parent)
            pending.append(parent)
            parent = os.path.dirname(parent)
        for directory in reversed(pending):
            if not self.full and self.matcher(directory, os.path.basename(directory)):
                self.results.append(self.relative(directory) + "/")
        if not self.full and self.matcher(path, os.path.basename(path)):
            self.results.append(self.relative(path))

    def relative(self, path: str) -> str:
        prefix = self.root if self.root.endswith(os.sep) else self.root + os.sep
        rel = path[len(prefix) :] if path.startswith(prefix) else os.path.relpath(path, self.root)
        return rel.replace(os.sep, "/")


async def _find_rg(
    rg: str, search_path: str, matcher: _Matcher, limit: int, signal: AbortSignal | None
) -> list[str]:
    listing = _Listing(search_path, matcher, limit)

    async def read(stdout: asyncio.StreamReader) -> bool:
        pending = b""
        while chunk := await stdout.read(1 << 16):
            *lines, pending = (pending + chunk).split(b"\n")
            if listing.feed(lines):
                return True  # enough files and no directory among the results: stop early, like fd
        if pending:
            listing.feed([pending])
        return False

    args = ["--files", "--hidden", "--no-require-git", "--color=never", "--", search_path]
    run = await run_ripgrep(rg, args, signal, read)
    if run.failed and not listing.count and not run.stopped:
        raise run.error()
    return listing.results()


class _Listing:
    """Matches ``rg --files`` output chunk by chunk. While no directory matches the pattern, matching
    files are collected in bulk and the listing can stop at the limit; from the chunk where a
    directory matches, a ``_Collector`` orders the rest (directories before their files), seeded
    with what the chunks before gave (no directory among them matched, so its order is theirs).
    Neither keeps the listing itself: memory stays at the results and the directories seen."""

    def __init__(self, root: str, matcher: _Matcher, limit: int) -> None:
        self.root = root.rstrip(os.sep) or os.sep
        self.matcher = matcher
        self.limit = limit
        self.count = 0
        self.matched: list[str] = []
        self.collector: _Collector | None = None
        self.stopped = False
        self._seen: set[str] = {self.root}

    def feed(self, raw_lines: list[bytes]) -> bool:
        """Take more lines; True when enough results are known and the listing may stop."""
        lines = [os.fsdecode(line.rstrip(b"\r")) for line in raw_lines if line]
        self.count += len(lines)
        if self.collector is not None:
            return self._collect(lines)
        full = self.matcher.full.match
        new = {path.rpartition(os.sep)[0] for path in lines} - self._seen
        for directory in list(new):
            parent = os.path.dirname(directory)
            while parent not in self._seen and parent not in new and len(parent) > len(self.root):
                new.add(parent)
                parent = os.path.dirname(parent)
        if any(full(d) for d in new if len(d) > len(self.root)):
            self.collector = _Collector(self.root, self.matcher, self.limit)
            self.collector.results = [self.collector.relative(path) for path in self.matched]
            self.collector._seen_dirs = self._seen  # the directories of the earlier chunks
            self.matched = []
            return self._collect(lines)
        self._seen |= new
        self.matched += [path for path in lines if full(path)]
        self.stopped = len(self.matched) >= self.limit
        return self.stopped

    def _collect(self, lines: list[str]) -> bool:
        assert self.collector is not None
        for path in lines:
            self.collector.add_file(path)
            if self.collector.full:
                self.stopped = True
                return True
        return False

    def results(self) -> list[str]:
        if self.collector is not None:
            return self.collector.results
        collector = _Collector(self.root, self.matcher, self.limit)
        return [collector.relative(path) for path in self.matched[: self.limit]]


def _find_python(search_path: str, matcher: _Matcher, limit: int) -> list[str]:
    collector = _Collector(search_path, matcher, limit)
    for path, _ in walk_files(search_path, require_git=False):
        collector.add_file(path)
        if collector.full:
            break
    return collector.results


def _format(found: list[str], limit: int) -> AgentToolResult:
    if not found:
        return AgentToolResult(content=[TextContent(text="No files found matching pattern")])
    notice = f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
    return listing_result(found, Notice(notice, "resultLimitReached", limit) if len(found) >= limit else None)
