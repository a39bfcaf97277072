"""Bounded accumulation of streaming command output (pi's output accumulator).

Keeps only a rolling tail of decoded text in memory, counts lines and bytes as they arrive, and once
the output passes either limit spills *all* raw bytes, from the start, into a temp file whose path
the result reports.
"""

from __future__ import annotations

import codecs
import os
import secrets
import tempfile
from dataclasses import dataclass
from typing import IO

from pi_core.agent.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, truncate_tail


@dataclass(frozen=True)
class Snapshot:
    content: str
    truncation: TruncationResult
    full_output_path: str | None


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class OutputAccumulator:
    def __init__(
        self,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        temp_file_prefix: str = "pi-output",
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._max_rolling = max(max_bytes * 2, 1)
        self._prefix = temp_file_prefix
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._raw_chunks: list[bytes] = []
        self._tail = ""
        self._tail_bytes = 0
        self._tail_at_line_start = True
        self._total_raw = 0
        self._total_decoded = 0
        self.total_lines = 1
        self._current_line_bytes = 0
        self._finished = False
        self.temp_file_path: str | None = None
        self._temp_file: IO[bytes] | None = None

    def append(self, data: bytes) -> None:
        if self._finished:
            raise RuntimeError("Cannot append to a finished output accumulator")
        self._total_raw += len(data)
        self._append_text(self._decoder.decode(data))
        if self._temp_file is not None or self._over_limits():
            self._ensure_temp_file()
            assert self._temp_file is not None
            self._temp_file.write(data)
        elif data:
            self._raw_chunks.append(data)

    def finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self._append_text(self._decoder.decode(b"", final=True))
        if self._over_limits():
            self._ensure_temp_file()

    def snapshot(self, persist_if_truncated: bool = False) -> Snapshot:
        tail = truncate_tail(self._snapshot_text(), self.max_lines, self.max_bytes)
        truncated = self.total_lines > self.max_lines or self._total_decoded > self.max_bytes
        truncated_by = None
        if truncated:
            truncated_by = tail.truncated_by or ("bytes" if self._total_decoded > self.max_bytes else "lines")
        truncation = tail.model_copy(
            update={
                "truncated": truncated,
                "truncated_by": truncated_by,
                "total_lines": self.total_lines,
                "total_bytes": self._total_decoded,
            }
        )
        if persist_if_truncated and truncated:
            self._ensure_temp_file()
        return Snapshot(truncation.content, truncation, self.temp_file_path)

    def close_temp_file(self) -> None:
        if self._temp_file is not None:
            self._temp_file.close()
            self._temp_file = None

    @property
    def last_line_bytes(self) -> int:
        return self._current_line_bytes

    def _append_text(self, text: str) -> None:
        if not text:
            return
        size = _utf8_len(text)
        self._total_decoded += size
        self._tail += text
        self._tail_bytes += size
        if self._tail_bytes > self._max_rolling * 2:
            self._trim_tail()
        newlines = text.count("\n")
        if newlines == 0:
            self._current_line_bytes += size
        else:
            self.total_lines += newlines
            self._current_line_bytes = _utf8_len(text[text.rfind("\n") + 1 :])

    def _trim_tail(self) -> None:
        data = self._tail.encode("utf-8", "surrogatepass")
        if len(data) <= self._max_rolling:
            self._tail_bytes = len(data)
            return
        start = len(data) - self._max_rolling
        while start < len(data) and (data[start] & 0xC0) == 0x80:
            start += 1
        self._tail_at_line_start = data[start - 1] == 0x0A if start > 0 else self._tail_at_line_start
        self._tail = data[start:].decode("utf-8", "replace")
        self._tail_bytes = _utf8_len(self._tail)

    def _snapshot_text(self) -> str:
        if self._tail_at_line_start:
            return self._tail
        newline = self._tail.find("\n")
        return self._tail if newline == -1 else self._tail[newline + 1 :]

    def _over_limits(self) -> bool:
        return (
            self._total_raw > self.max_bytes
            or self._total_decoded > self.max_bytes
            or self.total_lines > self.max_lines
        )

    def _ensure_temp_file(self) -> None:
        if self.temp_file_path is not None:
            return
        path = os.path.join(tempfile.gettempdir(), f"{self._prefix}-{secrets.token_hex(8)}.log")
        self.temp_file_path = path
        self._temp_file = open(path, "wb")  # noqa: SIM115 - stays open while output streams in
        for chunk in self._raw_chunks:
            self._temp_file.write(chunk)
        self._raw_chunks = []
