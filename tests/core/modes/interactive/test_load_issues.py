"""Problems of a resumed session file show in the REPL, one line each: those found when the file
opened and those found later, when an entry that was only scanned then is first read."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_core.session.manager import SessionManager

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}'
USAGE = {
    "input": 1,
    "output": 2,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 3,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def line(index: int, parent: str | None) -> str:
    message: dict[str, Any]
    if index % 2 == 0:
        message = {"role": "user", "content": f"ask {index}", "timestamp": 1}
    else:
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": f"answer {index}"}],
            "api": "openai-completions",
            "provider": "loop",
            "model": "fake-model",
            "usage": USAGE,
            "stopReason": "stop",
            "timestamp": 1,
        }
    entry = {
        "type": "message",
        "id": f"e{index:03d}",
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:01.000Z",
    }
    return json.dumps({**entry, "message": message}, separators=(",", ":"))


def compacted_session(path: Path, *, garble: int, truncated_tail: bool) -> None:
    """20 messages, a compaction keeping the last 2, 2 more; message ``garble`` has broken JSON."""
    lines = [HEADER] + [line(i, f"e{i - 1:03d}" if i else None) for i in range(20)]
    lines[1 + garble] = lines[1 + garble].replace('"content":[', '"content":[[', 1)
    compaction = {
        "type": "compaction",
        "id": "c00",
        "parentId": "e019",
        "timestamp": "2025-01-01T00:00:02.000Z",
        "summary": "earlier work",
        "firstKeptEntryId": "e018",
        "tokensBefore": 100,
    }
    lines.append(json.dumps(compaction, separators=(",", ":")))
    lines += [line(20, "c00"), line(21, "e020")]
    text = "\n".join(lines) + "\n"
    if truncated_tail:
        text += '{"type":"message","id":"e022","parentId":"e021","timest'
    path.write_text(text)


async def test_problems_found_at_open_and_later_show_one_line_each(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    path = tmp_path / "long.jsonl"
    compacted_session(path, garble=5, truncated_tail=True)  # e005: before the kept part
    opened = SessionManager.open(path)
    assert [(issue.line, issue.kind) for issue in opened.load_issues] == [(25, "truncated")]
    opened.close()  # e005 was only scanned: its problem is found when it is first read
    repl = await repl_factory(session=str(path))
    await repl.wait_for(f"{path}:25: last line is incomplete")
    assert "answer 21" in repl.output  # the conversation replayed
    await repl.submit("/session")  # the statistics read every assistant message
    await repl.wait_for(f"{path}:7: line is not valid JSON (")
    await repl.wait_for("Messages")
    await repl.submit("/session")
    await repl.idle()
    shown = [row for row in repl.output.splitlines() if row.startswith(f"{path}:")]
    assert len(shown) == 2, shown  # one line each, once
    assert await repl.quit() == 0
