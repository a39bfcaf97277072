"""Dispatch overhead per handler and ``pi`` start-up wall time. Prints figures; never asserts.

Run: ``uv run python bench/bench_dispatch.py``  (budgets: dispatch < 20 µs/handler,
``pi --version`` < 150 ms, ``pi --help`` < 250 ms).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pi_core.plugins.events import AgentStartEvent, ToolCallEvent
from pi_core.testing.plugins import PluginHarness

ROOT = Path(__file__).resolve().parents[1]
COUNTS = (0, 1, 10, 50)


def harness(count: int, hook: str, is_async: bool) -> PluginHarness:
    h = PluginHarness(strict=False)
    for index in range(count):
        if is_async:

            async def handler(event: Any, ctx: Any) -> None:
                return None

        else:

            def handler(event: Any, ctx: Any) -> None:  # type: ignore[misc]
                return None

        h.add(f"p{index}", **{hook: handler})
    return h


async def per_dispatch_us(h: PluginHarness, hook: str, event: Any, iterations: int) -> float:
    dispatch = h.dispatcher.dispatch
    for _ in range(200):
        await dispatch(hook, event, None)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(iterations):
            await dispatch(hook, event, None)
        best = min(best, (time.perf_counter() - start) / iterations)
    return best * 1e6


async def bench_dispatch() -> None:
    print("dispatch (best of 5 runs; µs per dispatch, µs per handler)")
    cases = [
        ("agent_start", AgentStartEvent(), "NOTIFY"),
        ("tool_call", ToolCallEvent(tool_call_id="c", tool_name="bash", input={}), "BLOCK_OR_LAST"),
    ]
    for hook, event, rule in cases:
        for is_async in (False, True):
            kind = "async" if is_async else "sync "
            for count in COUNTS:
                h = harness(count, hook, is_async)
                iterations = 20_000 if count <= 10 else 4_000
                total = await per_dispatch_us(h, hook, event, iterations)
                per_handler = f"{total / count:6.2f}" if count else "     -"
                print(
                    f"  {hook:11} {rule:13} {kind} handlers={count:3}  {total:8.2f} µs/dispatch  {per_handler} µs/handler"
                )


def bench_cli() -> None:
    pi = ROOT / ".venv" / "bin" / "pi"
    print(f"\nCLI wall time (median of 10, {pi})")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(Path(tmp) / "agent")}
        for args in (["--version"], ["--help"], ["plugins"]):
            subprocess.run([str(pi), *args], env=env, cwd=tmp, capture_output=True, check=True)  # warm caches
            samples = []
            for _ in range(10):
                start = time.perf_counter()
                subprocess.run([str(pi), *args], env=env, cwd=tmp, capture_output=True, check=True)
                samples.append((time.perf_counter() - start) * 1000)
            print(
                f"  pi {' '.join(args):10} median {statistics.median(samples):7.1f} ms  (min {min(samples):.1f})"
            )


if __name__ == "__main__":
    print(f"python {sys.version.split()[0]}")
    asyncio.run(bench_dispatch())
    bench_cli()
