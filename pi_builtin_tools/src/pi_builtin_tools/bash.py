"""The ``bash`` tool: run a command in the session cwd, stream its tail, truncate it the way pi does."""

from __future__ import annotations

import asyncio
import functools
import os
import subprocess
import time
from collections.abc import Callable
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError, ToolUpdate
from pi_core.agent.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import TextContent
from pydantic import Field

from pi_builtin_tools import render
from pi_builtin_tools._common import cwd_of
from pi_builtin_tools._schema import ToolParams
from pi_builtin_tools.output import OutputAccumulator, Snapshot
from pi_builtin_tools.shell import kill_process_tree, shell_command, shell_env

#: Streaming updates are throttled to one per this many seconds.
UPDATE_INTERVAL = 0.1
#: After the shell exits, how long to wait for pipes held open by daemonised grandchildren.
EXIT_STDIO_GRACE = 0.1


class BashParams(ToolParams):
    command: str = Field(description="The bash command to run")
    timeout: float | None = Field(default=None, description="Timeout in seconds (optional; none by default)")


DESCRIPTION = (
    "Run a bash command in the current working directory and return its combined stdout and stderr. "
    f"Only the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB of output are returned "
    "(whichever limit is hit first); when output is cut, the complete output is saved to a temp file. "
    "An optional timeout in seconds can be given."
)


#: The variables that tell a command about the session it runs in (pi 1.6.0); inherited values
#: of these names are always dropped, so a nested pi never reports its parent's session.
SESSION_ENV_NAMES = ("PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL")

GUIDELINES = ["The PI_* environment variables tell you the current model and session, should you need them."]


def session_env(ctx: Any) -> dict[str, str]:
    """``PI_SESSION_ID``, ``PI_SESSION_FILE``, ``PI_PROVIDER``, ``PI_MODEL``, ``PI_REASONING_LEVEL``
    from the tool context (an agent session), each only when known."""
    env: dict[str, str] = {}
    manager = getattr(ctx, "session_manager", None)
    if manager is not None:
        env["PI_SESSION_ID"] = str(manager.get_session_id())
        session_file = manager.get_session_file()
        if session_file:
            env["PI_SESSION_FILE"] = str(session_file)
    model = getattr(ctx, "model", None)
    if model is not None:
        env["PI_PROVIDER"], env["PI_MODEL"] = str(model.provider), str(model.id)
    level = getattr(ctx, "thinking_level", None)
    if isinstance(level, str) and level:
        env["PI_REASONING_LEVEL"] = level
    return env


def _setting(settings: Any, name: str) -> str | None:
    value = getattr(settings, name, None)
    return value if isinstance(value, str) and value else None


def create_bash_tool(
    *,
    shell_path: str | None = None,
    command_prefix: str | None = None,
    extra_bin_dirs: list[str] | None = None,
) -> AgentTool:
    """``shell_path``/``command_prefix`` are pi's ``shellPath``/``shellCommandPrefix`` settings;
    left ``None`` they are read from ``ctx.settings`` on every call (what the runtime gives: the
    project's values only for a trusted project)."""

    async def execute(
        tool_call_id: str,
        params: BashParams,
        signal: AbortSignal | None,
        on_update: ToolUpdate | None,
        ctx: Any,
    ) -> AgentToolResult:
        configured = getattr(ctx, "settings", None)
        prefix = (
            command_prefix if command_prefix is not None else _setting(configured, "shell_command_prefix")
        )
        shell = shell_path if shell_path is not None else _setting(configured, "shell_path")
        command = f"{prefix}\n{params.command}" if prefix else params.command
        bin_dirs = list(extra_bin_dirs or [])
        agent_dir = getattr(ctx, "agent_dir", None)
        if isinstance(agent_dir, str):
            bin_dirs.insert(0, os.path.join(agent_dir, "bin"))
        return await run_bash(
            command,
            cwd_of(ctx),
            params.timeout,
            signal,
            on_update,
            shell_path=shell,
            bin_dirs=bin_dirs,
            session_env=session_env(ctx),
        )

    return AgentTool(
        name="bash",
        label="bash",
        description=DESCRIPTION,
        parameters=BashParams,
        execute=execute,
        prompt_snippet="Execute bash commands (ls, grep, find, etc.)",
        prompt_guidelines=GUIDELINES,
        render_call=render.render_bash_call,
        render_result=render.render_bash_result,
    )


async def run_bash(
    command: str,
    cwd: str,
    timeout_seconds: float | None,
    signal: AbortSignal | None,
    on_update: ToolUpdate | None,
    *,
    shell_path: str | None = None,
    bin_dirs: list[str] | None = None,
    session_env: dict[str, str] | None = None,
) -> AgentToolResult:
    """Run ``command``; ``session_env`` replaces any inherited ``PI_SESSION_*``-style variables."""
    output = OutputAccumulator(temp_file_prefix="pi-bash")
    updates = _Updates(output, on_update)
    if on_update is not None:
        on_update(AgentToolResult(content=[], details=None))
    env = shell_env(bin_dirs)
    for name in SESSION_ENV_NAMES:
        env.pop(name, None)
    env.update(session_env or {})
    status = await _execute(command, cwd, timeout_seconds, signal, output, updates.schedule, shell_path, env)
    output.finish()
    updates.flush()
    snapshot = output.snapshot(persist_if_truncated=True)
    output.close_temp_file()
    updates.close()

    text, details = _format(snapshot, output, "" if status.failed_early else "(no output)")
    if status.aborted:
        raise ToolError(_with_status(text, "Command aborted"))
    if status.timed_out:
        raise ToolError(_with_status(text, f"Command timed out after {_seconds(timeout_seconds)} seconds"))
    if status.exit_code is not None and status.exit_code != 0:
        raise ToolError(_with_status(text, f"Command exited with code {status.exit_code}"))
    return AgentToolResult(content=[TextContent(text=text)], details=details)


class _Status:
    def __init__(self) -> None:
        self.exit_code: int | None = None
        self.aborted = False
        self.timed_out = False

    @property
    def failed_early(self) -> bool:
        return self.aborted or self.timed_out


async def _execute(
    command: str,
    cwd: str,
    timeout_seconds: float | None,
    signal: AbortSignal | None,
    output: OutputAccumulator,
    on_data: Callable[[], None],
    shell_path: str | None,
    env: dict[str, str],
) -> _Status:
    if not await asyncio.to_thread(os.path.isdir, cwd):
        raise ToolError(f"Working directory does not exist: {cwd}\nCannot execute bash commands.")
    status = _Status()
    try:
        # Popen rather than asyncio's subprocess: asyncio's wait() also waits for the pipes to close,
        # which a daemonised grandchild can postpone forever.
        process = subprocess.Popen(  # noqa: ASYNC220 - spawning returns at once; waiting is in a thread
            [*shell_command(shell_path), command],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # Own process group, so a kill reaches everything the command started.
            start_new_session=True,
        )
    except OSError as exc:
        raise ToolError(str(exc)) from exc

    def kill() -> None:
        kill_process_tree(process.pid)

    loop = asyncio.get_running_loop()
    pipes: list[tuple[asyncio.BaseTransport, asyncio.Future[None]]] = []
    for stream in (process.stdout, process.stderr):
        assert stream is not None
        closed: asyncio.Future[None] = loop.create_future()
        reader = _PipeReader(output, on_data, closed)
        read_transport, _ = await loop.connect_read_pipe(functools.partial(_same, reader), stream)
        pipes.append((read_transport, closed))
    timer: asyncio.TimerHandle | None = None
    if timeout_seconds is not None and timeout_seconds > 0:

        def on_timeout() -> None:
            status.timed_out = True
            kill()

        timer = loop.call_later(timeout_seconds, on_timeout)
    remove_listener: Callable[[], None] = lambda: None  # noqa: E731
    if signal is not None:

        def on_abort() -> None:
            status.aborted = True
            kill()

        remove_listener = signal.add_listener(on_abort)
    try:
        return_code = await asyncio.shield(asyncio.to_thread(process.wait))
        # Daemonised grandchildren may keep the pipes open forever; give them a moment, no more.
        await asyncio.wait([closed for _, closed in pipes], timeout=EXIT_STDIO_GRACE)
        status.exit_code = None if return_code < 0 else return_code
    except BaseException:
        kill()
        raise
    finally:
        if timer is not None:
            timer.cancel()
        remove_listener()
        for pipe_transport, _ in pipes:
            pipe_transport.close()
    if signal is not None and signal.aborted:
        status.aborted = True
    return status


def _same(reader: _PipeReader) -> _PipeReader:
    return reader


class _PipeReader(asyncio.Protocol):
    def __init__(
        self, output: OutputAccumulator, on_data: Callable[[], None], closed: asyncio.Future[None]
    ) -> None:
        self._output = output
        self._on_data = on_data
        self._closed = closed

    def data_received(self, data: bytes) -> None:
        self._output.append(data)
        self._on_data()

    def eof_received(self) -> bool | None:
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._closed.done():
            self._closed.set_result(None)


class _Updates:
    """At most one partial result per ``UPDATE_INTERVAL``, each the current tail snapshot."""

    def __init__(self, output: OutputAccumulator, on_update: ToolUpdate | None) -> None:
        self._output = output
        self._on_update = on_update
        self._dirty = False
        self._last = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def schedule(self) -> None:
        if self._on_update is None:
            return
        self._dirty = True
        delay = UPDATE_INTERVAL - (time.monotonic() - self._last)
        if delay <= 0:
            self.close()
            self.flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.flush()

    def flush(self) -> None:
        if self._on_update is None or not self._dirty:
            return
        self._dirty = False
        self._last = time.monotonic()
        snapshot = self._output.snapshot(persist_if_truncated=True)
        details: dict[str, Any] = {}
        if snapshot.truncation.truncated:
            details["truncation"] = snapshot.truncation.to_details()
        if snapshot.full_output_path:
            details["fullOutputPath"] = snapshot.full_output_path
        self._on_update(AgentToolResult(content=[TextContent(text=snapshot.content)], details=details))

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _format(
    snapshot: Snapshot, output: OutputAccumulator, empty_text: str
) -> tuple[str, dict[str, Any] | None]:
    truncation = snapshot.truncation
    text = snapshot.content or empty_text
    if not truncation.truncated:
        return text, None
    details: dict[str, Any] = {"truncation": truncation.to_details()}
    if snapshot.full_output_path:
        details["fullOutputPath"] = snapshot.full_output_path
    total = truncation.total_lines
    start = total - truncation.output_lines + 1
    path = snapshot.full_output_path
    if truncation.last_line_partial:
        text += (
            f"\n\n[Showing last {format_size(truncation.output_bytes)} of line {total} "
            f"(line is {format_size(output.last_line_bytes)}). Full output: {path}]"
        )
    elif truncation.truncated_by == "lines":
        text += f"\n\n[Showing lines {start}-{total} of {total}. Full output: {path}]"
    else:
        text += (
            f"\n\n[Showing lines {start}-{total} of {total} ({format_size(DEFAULT_MAX_BYTES)} limit). "
            f"Full output: {path}]"
        )
    return text, details


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


def _seconds(value: float | None) -> str:
    if value is None:
        return "undefined"
    return str(int(value)) if float(value).is_integer() else str(value)
