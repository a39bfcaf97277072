"""Time to the first prompt with MCP servers configured, end to end: ``pi -p hi`` with no
``mcp.json`` against the same with three stdio servers, one of them slow to start.

    uv run python bench/bench_mcp_startup.py [--runs 5] [--delay 5] [--pi16 LAUNCHER]

Each run is a fresh process in a throwaway home whose ``models.json`` points at the loopback
scripted server of ``pi_core.testing`` in this process. Rows, interleaved run by run so that a load
change hits them alike:

* ``none`` — no ``mcp.json``;
* ``deferred`` — three servers (tests/mcp/demo_server.py, an SDK server) with the default
  exposure, one sleeping ``--delay`` seconds before it serves;
* ``direct+slow`` — two of them ``direct`` (the first prompt declares their tools, so it waits for
  them: pi 1.6.0's rule) and the slow one deferred.

Per row: the median time from process start to the first request reaching the model server
(``first request``: what the user waits for before the answer can start) and to exit (``wall``),
after one unmeasured warm-up run. ``--pi16`` adds the same rows for pi 1.6.0. The load average is
printed before and after. Prints figures; never asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _bytecode import compile_environment
from _home import isolated_env
from pi_core.testing import LoopbackLLMServer, text_turn

BENCH = Path(__file__).resolve().parent
DEMO = str(BENCH.parent / "tests" / "mcp" / "demo_server.py")
OURS = str(Path(sys.executable).with_name("pi"))


def servers(row: str, delay: float) -> dict[str, Any] | None:
    if row == "none":
        return None
    direct = row == "direct+slow"

    def entry(exposure: str, **env: str) -> dict[str, Any]:
        return {"command": sys.executable, "args": [DEMO], "env": env, "exposure": exposure}

    return {
        "one": entry("direct" if direct else "deferred"),
        "two": entry("direct" if direct else "deferred"),
        "slow": entry("deferred", DEMO_MODE="slow", DEMO_DELAY=str(delay)),
    }


def run_once(pi: str, row: str, server: LoopbackLLMServer, root: Path, delay: float) -> tuple[float, float]:
    agent, home, project = root / "agent", root / "home", root / "project"
    config = servers(row, delay)
    mcp_file = agent / "mcp.json"
    if config is None:
        mcp_file.unlink(missing_ok=True)
    else:
        mcp_file.write_text(json.dumps({"mcpServers": config}))
    env = isolated_env(home, agent)
    server.add(text_turn("ok"))
    before = len(server.requests)
    first: list[float] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if len(server.requests) > before:
                first.append(time.monotonic())
                return
            time.sleep(0.002)

    watcher = threading.Thread(target=watch, daemon=True)
    started = time.monotonic()
    watcher.start()
    result = subprocess.run(
        [pi, "--model", "loop/fake-model", "-p", "hi"], cwd=project, env=env, capture_output=True, text=True
    )
    ended = time.monotonic()
    done.set()
    watcher.join()
    if result.returncode != 0:
        print(f"  {row}: exit {result.returncode}: {result.stderr.strip()[-300:]}")
    return (first[0] - started if first else float("nan")), ended - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--delay", type=float, default=5.0, help="seconds the slow server sleeps")
    parser.add_argument("--ours", default=OURS)
    parser.add_argument("--pi16", help="pi 1.6.0 launcher: adds its rows")
    args = parser.parse_args()
    compile_environment()  # as an install would (see bench/_bytecode.py)
    implementations = {"ours": args.ours, **({"pi 1.6.0": args.pi16} if args.pi16 else {})}
    rows = ("none", "deferred", "direct+slow")
    print(f"before: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    with LoopbackLLMServer() as server, tempfile.TemporaryDirectory(prefix="pi-bench-mcp-") as tmp:
        root = Path(tmp)
        for name in ("agent", "home", "project"):
            (root / name).mkdir()
        url = server.base_url("openai-completions")
        models = {
            "loop": {
                "baseUrl": url,
                "api": "openai-completions",
                "apiKey": "sk-x",
                "models": [{"id": "fake-model"}],
            }
        }
        (root / "agent" / "models.json").write_text(json.dumps({"providers": models}))
        figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for pi in implementations.values():
            for row in rows:
                run_once(pi, row, server, root, args.delay)  # warm-up
        for _ in range(args.runs):
            for who, pi in implementations.items():
                for row in rows:
                    figures.setdefault((who, row), []).append(run_once(pi, row, server, root, args.delay))
    print(f"medians of {args.runs} interleaved runs; slow server: {args.delay:g} s to start")
    print(f"| {'pi':9} | {'row':12} | first request | wall    |")
    print(f"|{'-' * 11}|{'-' * 14}|{'-' * 15}|{'-' * 9}|")
    for (who, row), values in figures.items():
        first = statistics.median(v[0] for v in values)
        wall = statistics.median(v[1] for v in values)
        print(f"| {who:9} | {row:12} | {first:11.2f} s | {wall:5.2f} s |")
    print(f"after: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
