"""Round trip of ``pi -p --model sonnet hi`` (a bare pattern, resolved to a built-in Anthropic model).

The built-in ``anthropic`` provider is pointed at the loopback server through models.json, so the run
uses the real ``anthropic`` SDK path. Prints the median time from process start to the first request
at the server and to the process exit, over N runs. Compare a checkout before and after a change to
``pi_core.cli.prefetch``. Prints figures; never asserts.
Usage: ``uv run python bench/bench_prefetch.py [--runs N] [--model PATTERN]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from bench_startup import PI, _one_run, compile_workspace
from pi_core.testing import LoopbackLLMServer


def bench(runs: int, pattern: str) -> None:
    compile_workspace()
    with LoopbackLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        agent, project, home = root / "agent", root / "project", root / "home"
        for folder in (agent, project, home):
            folder.mkdir()
        models = {"providers": {"anthropic": {"baseUrl": server.base_url("anthropic-messages")}}}
        (agent / "models.json").write_text(json.dumps(models))
        env = dict(os.environ, HOME=str(home), PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1")
        env["ANTHROPIC_API_KEY"] = "sk-loopback"
        env["PI_DISABLED_PLUGINS"] = "hello,keep-recent"  # the workspace's example plugins
        argv = [PI, "-p", "--no-session", "--model", pattern, "hi"]
        _one_run(argv, env, project, server)  # warm the file cache
        samples = [_one_run(argv, env, project, server) for _ in range(runs)]
        first = statistics.median(s[0] for s in samples) * 1000
        total = statistics.median(s[1] for s in samples) * 1000
        print(f"--model {pattern}: first request {first:.0f} ms, round trip {total:.0f} ms ({runs} runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--model", default="sonnet")
    args = parser.parse_args()
    bench(args.runs, args.model)


if __name__ == "__main__":
    main()
