"""The ``find`` tool: files (and directories) whose name or path matches a glob, honouring .gitignore.

The listing comes from ``rg --files --hidden --no-require-git`` (or the pure-Python walk); glob
matching follows fd's rules, which pi uses: the pattern is matched against the base name, or, when it
contains ``/``, against the full path with ``**/`` put in front unless it is anchored.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError, ToolUpdate
from pi_core.agent.truncate import DEFAULT_MAX_BYTES, format_size, truncate_head
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import TextContent
from pydantic import Field

from pi_builtin_tools import render
from pi_builtin_tools._common import ABORTED, abortable, check_aborted, cwd_of
from pi_builtin_tools._schema import ToolParams
from pi_builtin_tools.binaries import find_rg
from pi_builtin_tools.globmatch import compile_glob
from pi_builtin_tools.paths import resolve_to_cwd
from pi_builtin_tools.walk import walk_files

DEFAULT_LIMIT = 1000
_NO_LIMIT = 2**53 - 1


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


def _matcher(pattern: str) -> Callable[[str, str], bool]:
    """``match(absolute_path, name)`` with fd's basename / full-path rule."""
    if "/" in pattern:
        if not pattern.startswith(("/", "**/")) and pattern != "**":
            pattern = f"**/{pattern}"
        full = compile_glob(pattern)
        return lambda absolute, name: full.match(absolute) is not None
    base = compile_glob(pattern)
    return lambda absolute, name: base.match(name) is not None


class _Collector:
    """Matches files and the directories above them (fd lists both; ``rg --files`` only files)."""

    def __init__(self, root: str, matcher: Callable[[str, str], bool], limit: int) -> None:
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
                self.results.append(self._relative(directory) + "/")
        if not self.full and self.matcher(path, os.path.basename(path)):
            self.results.append(self._relative(path))

    def _relative(self, path: str) -> str:
        prefix = self.root if self.root.endswith(os.sep) else self.root + os.sep
        rel = path[len(prefix) :] if path.startswith(prefix) else os.path.relpath(path, self.root)
        return rel.replace(os.sep, "/")


async def _find_rg(
    rg: str, search_path: str, matcher: Callable[[str, str], bool], limit: int, signal: AbortSignal | None
) -> list[str]:
    process = await asyncio.create_subprocess_exec(
        rg,
        "--files",
        "--hidden",
        "--no-require-git",
        "--color=never",
        "--",
        search_path,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=2**20,
    )
    remove = signal.add_listener(process.kill) if signal is not None else (lambda: None)
    collector = _Collector(search_path, matcher, limit)
    stderr_task = asyncio.ensure_future(process.stderr.read() if process.stderr else asyncio.sleep(0, b""))
    try:
        assert process.stdout is not None
        buffer = b""
        while chunk := await process.stdout.read(1 << 16):
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                collector.add_file(os.fsdecode(line.rstrip(b"\r")))
                if collector.full:
                    break
            if collector.full:
                process.kill()
                break
        if buffer and not collector.full:
            collector.add_file(os.fsdecode(buffer.rstrip(b"\r")))
        code = await process.wait()
        stderr = await stderr_task
    except BaseException:
        if process.returncode is None:
            process.kill()
        stderr_task.cancel()
        raise
    finally:
        remove()
    if signal is not None and signal.aborted:
        raise ToolError(ABORTED)
    if code not in (0, 1) and not collector.full and not collector.results:
        message = (stderr or b"").decode("utf-8", "replace").strip()
        raise ToolError(message or f"ripgrep exited with code {code}")
    return collector.results


def _find_python(search_path: str, matcher: Callable[[str, str], bool], limit: int) -> list[str]:
    collector = _Collector(search_path, matcher, limit)
    for path, _ in walk_files(search_path, require_git=False):
        collector.add_file(path)
        if collector.full:
            break
    return collector.results


def _format(found: list[str], limit: int) -> AgentToolResult:
    if not found:
        return AgentToolResult(content=[TextContent(text="No files found matching pattern")])
    truncation = truncate_head("\n".join(found), max_lines=_NO_LIMIT)
    text = truncation.content
    details: dict[str, Any] = {}
    notices: list[str] = []
    if len(found) >= limit:
        notices.append(f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern")
        details["resultLimitReached"] = limit
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = truncation.to_details()
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    return AgentToolResult(content=[TextContent(text=text)], details=details or None)
