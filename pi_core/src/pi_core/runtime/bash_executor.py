"""Run a user's ``!command`` (REPL) or RPC ``bash`` the way pi's bash-executor does.

The command runs in the session's cwd through the configured shell, in its own process group so
an abort kills everything it started. Output is decoded incrementally, ANSI escapes and control
characters (except tab and LF) are removed, CRs dropped; a rolling buffer keeps the last ~100 KB,
and once more than 50 KB arrived everything is also written to ``<tmp>/pi-bash-<hex>.log``. The
result is tail-truncated to 2000 lines / 50 KB.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import secrets
import shutil
import signal
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pi_core.agent.truncate import DEFAULT_MAX_BYTES, truncate_tail
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import BashExecutionMessage

# CSI / OSC / single-character escapes, as strip-ansi removes them.
_ANSI = re.compile(
    r"[\u001b\u009b][\[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?"
    r"(?:\u0007|\u001b\\|\u009c))|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]))"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\ufff9-\ufffb]")


def sanitize_output(text: str) -> str:
    """Strip ANSI sequences, control characters other than tab/LF, and CRs."""
    return _CONTROL.sub("", _ANSI.sub("", text))


def shell_argv(shell_path: str | None) -> list[str]:
    """``[shell, "-c"]``: the configured ``shellPath``, else /bin/bash, else bash on PATH, else sh."""
    if shell_path:
        if not os.path.exists(shell_path):
            raise FileNotFoundError(f"Custom shell path not found: {shell_path}")
        return [shell_path, "-c"]
    if os.path.exists("/bin/bash"):
        return ["/bin/bash", "-c"]
    return [shutil.which("bash") or "sh", "-c"]


@dataclass(frozen=True)
class BashOutcome:
    """What a user bash run produced (pi's ``BashResult``); ``exit_code`` is ``None`` when cancelled."""

    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None

    def to_message(self, command: str, *, exclude_from_context: bool = False) -> BashExecutionMessage:
        return BashExecutionMessage(
            command=command,
            output=self.output,
            exit_code=self.exit_code,
            cancelled=self.cancelled,
            truncated=self.truncated,
            full_output_path=self.full_output_path,
            exclude_from_context=exclude_from_context or None,
        )


class _Collector:
    """Rolling output buffer plus the spill file once the output grows past the limit."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.size = 0
        self.total_bytes = 0
        self.spill_path: str | None = None
        self._spill: IO[str] | None = None

    def spill(self) -> None:
        if self._spill is not None:
            return
        path = Path(tempfile.gettempdir()) / f"pi-bash-{secrets.token_hex(8)}.log"
        self.spill_path = str(path)
        self._spill = path.open("w", encoding="utf-8")
        for chunk in self.chunks:
            self._spill.write(chunk)

    def add(self, raw_len: int, text: str) -> None:
        self.total_bytes += raw_len
        if self.total_bytes > DEFAULT_MAX_BYTES:
            self.spill()
        if self._spill is not None:
            self._spill.write(text)
        self.chunks.append(text)
        self.size += len(text)
        while self.size > DEFAULT_MAX_BYTES * 2 and len(self.chunks) > 1:
            self.size -= len(self.chunks.pop(0))

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()


async def execute_bash(
    command: str,
    cwd: str,
    *,
    shell_path: str | None = None,
    signal_: AbortSignal | None = None,
    on_chunk: Callable[[str], None] | None = None,
) -> BashOutcome:
    """Run ``command`` and collect its sanitised output; an abort kills the process group."""
    argv = shell_argv(shell_path)
    process = await asyncio.create_subprocess_exec(
        *argv,
        command,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    collector = _Collector()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def kill() -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)

    remove = signal_.add_listener(kill) if signal_ is not None else (lambda: None)
    try:
        assert process.stdout is not None
        while True:
            data = await process.stdout.read(65536)
            if not data:
                break
            text = sanitize_output(decoder.decode(data)).replace("\r", "")
            collector.add(len(data), text)
            if on_chunk is not None:
                on_chunk(text)
        tail = sanitize_output(decoder.decode(b"", final=True)).replace("\r", "")
        if tail:
            collector.add(0, tail)
            if on_chunk is not None:
                on_chunk(tail)
        exit_code = await process.wait()
    finally:
        remove()
    full = "".join(collector.chunks)
    truncation = truncate_tail(full)
    if truncation.truncated:
        collector.spill()
    collector.close()
    cancelled = signal_ is not None and signal_.aborted
    return BashOutcome(
        output=truncation.content if truncation.truncated else full,
        exit_code=None if cancelled else exit_code,
        cancelled=cancelled,
        truncated=truncation.truncated,
        full_output_path=collector.spill_path,
    )
