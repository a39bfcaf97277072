"""Compaction preparation on a 100k-entry session: cut point + serialization, no model call.

Budget (issue 7): under 300 ms. Prints figures; never asserts.

    uv run python bench/bench_compaction.py [entries]
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
from typing import Any

from pi_builtin_compaction.prepare import prepare_compaction
from pi_builtin_compaction.summarize import conversation_block
from pi_core.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from pi_core.runtime.compaction import CompactionSettings
from pi_core.session.manager import SessionManager


def build_session(entries: int) -> SessionManager:
    """Turns of user question, tool call, tool result, answer; a previous compaction halfway."""
    sm = SessionManager.in_memory("/tmp")
    sm.append_model_change("anthropic", "claude-sonnet-4-5")
    turn = 0
    while 1 + 4 * turn < entries:
        sm.append_message(UserMessage(content=f"Please look at module_{turn}.py and fix the bug " * 3))
        sm.append_message(
            AssistantMessage(
                content=[ToolCall(id=f"c{turn}", name="read", arguments={"path": f"src/module_{turn}.py"})],
                api="anthropic-messages",
                provider="anthropic",
                model="claude-sonnet-4-5",
                usage=Usage(total_tokens=1000 + turn),
                stop_reason="toolUse",
            )
        )
        sm.append_message(
            ToolResultMessage(
                tool_call_id=f"c{turn}", tool_name="read", content=[TextContent(text="x = 1\n" * 400)]
            )
        )
        sm.append_message(
            AssistantMessage(
                content=[TextContent(text=f"Fixed the off-by-one in module_{turn}.py. " * 4)],
                api="anthropic-messages",
                provider="anthropic",
                model="claude-sonnet-4-5",
                usage=Usage(total_tokens=1200 + turn),
            )
        )
        turn += 1
    return sm


def timed(fn: Any, repeat: int = 7) -> tuple[float, float, float, Any]:
    """Median and best wall time, and best CPU time of this process (ms): on a loaded machine the
    CPU time is the figure closest to what the code costs on a quiet one."""
    walls, cpus = [], []
    result = None
    for _ in range(repeat):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        cpus.append((time.process_time() - cpu) * 1000)
        walls.append((time.perf_counter() - wall) * 1000)
    return statistics.median(walls), min(walls), min(cpus), result


def show(label: str, figures: tuple[float, float, float, Any], extra: str = "") -> Any:
    median, best, cpu, result = figures
    print(f"{label}: wall median {median:.1f} ms, best {best:.1f} ms; CPU best {cpu:.1f} ms{extra}")
    return result


def main() -> None:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    sm = build_session(size)
    cpu = time.process_time()
    branch = sm.get_branch()
    first = (time.process_time() - cpu) * 1000
    settings = CompactionSettings()
    print(f"session: {len(branch)} entries on the branch")
    show(
        f"get_branch again (first call: CPU {first:.0f} ms, entry models built from the lines)",
        timed(sm.get_branch),
    )

    preparation = show(
        "prepare_compaction (cut point, messages, file ops, tokensBefore)",
        timed(lambda: prepare_compaction(branch, settings)),
    )
    assert preparation is not None
    print(
        f"  [{len(preparation.messages_to_summarize)} messages to summarize, "
        f"{len(preparation.file_ops.read)} files read]"
    )
    text = show(
        "serialization (convert_to_llm + serialize_conversation)",
        timed(lambda: conversation_block(preparation.messages_to_summarize)),
    )
    print(f"  [{len(text) / 1e6:.1f} M characters of conversation text]")
    show(
        "preparation + serialization (budget 300 ms)",
        timed(lambda: conversation_block(prepare_compaction(branch, settings).messages_to_summarize)),  # type: ignore[union-attr]
    )
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
