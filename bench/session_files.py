"""The session files the benchmarks run on: one generator for bench_session, bench_vs_pi16,
bench_resume_list and bench_tui.

A v3 session of ``count`` message entries in one chain, repeating user prompt → assistant text
with a ``read`` call → its tool result (~460 bytes an entry). ``compacted=True`` adds a compaction
entry 50 entries before the end that keeps the last 20 before it (the usual shape of a long
session); without it every message goes to the context (the worst case). The file is written
under a temporary name and renamed, so a cached file is never half written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STAMP = "2025-01-01T00:00:00.000Z"
USAGE = {
    "input": 1200,
    "output": 80,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1280,
    "cost": {"input": 0.0036, "output": 0.0012, "cacheRead": 0, "cacheWrite": 0, "total": 0.0048},
}
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _message(i: int, api: str, provider: str, model: str) -> dict[str, Any]:
    ts = 1735689600000 + i
    kind = i % 3
    if kind == 0:
        text = f"Please look at module_{i}.py and fix the failing test."
        return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}
    if kind == 1:
        return {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me read the file first."},
                {
                    "type": "toolCall",
                    "id": f"call_{i}",
                    "name": "read",
                    "arguments": {"path": f"src/module_{i}.py"},
                },
            ],
            "api": api,
            "provider": provider,
            "model": model,
            "usage": USAGE,
            "stopReason": "toolUse",
            "timestamp": ts,
        }
    return {
        "role": "toolResult",
        "toolCallId": f"call_{i - 1}",
        "toolName": "read",
        "content": [{"type": "text", "text": "def f(x):\n    return x * 2\n" * 8}],
        "isError": False,
        "timestamp": ts,
    }


def write_session(
    path: Path,
    count: int,
    *,
    cwd: str = "/bench",
    session_id: str = "bench",
    compacted: bool = False,
    api: str = "anthropic-messages",
    provider: str = "anthropic",
    model: str = "claude-sonnet-4-5",
) -> None:
    """Write the session described in the module docstring to ``path``."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", encoding="utf-8") as out:
        header = {"type": "session", "version": 3, "id": session_id, "timestamp": STAMP, "cwd": cwd}
        out.write(_dumps(header) + "\n")
        parent = None
        for i in range(count):
            entry_id = f"{i:08x}"
            entry = {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": STAMP,
                "message": _message(i, api, provider, model),
            }
            out.write(_dumps(entry) + "\n")
            parent = entry_id
            if compacted and i == count - 50:
                compaction = {
                    "type": "compaction",
                    "id": "c0mpact0",
                    "parentId": parent,
                    "timestamp": STAMP,
                    "summary": "## Goal\nBench summary.",
                    "firstKeptEntryId": f"{i - 20:08x}",
                    "tokensBefore": 150000,
                    "details": {"readFiles": [], "modifiedFiles": []},
                    "fromHook": False,
                }
                out.write(_dumps(compaction) + "\n")
                parent = "c0mpact0"
    partial.replace(path)
