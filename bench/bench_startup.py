"""Start-up and round-trip time of ``pi -p`` against the loopback server, beside the TypeScript pi.

For each dialect (openai-completions, anthropic-messages) and each implementation, ten runs of
``pi -p --model <loopback model> hi`` in a throwaway home, printing the medians of:

* first request: process start → the first provider request has arrived at the server;
* round trip: process start → the answer is printed and the process has exited.

All built-in plugins are installed (tools, compaction). The workspace's own sources are byte-compiled
first, as an install would have them (editable installs and ``PYTHONDONTWRITEBYTECODE=1`` otherwise
leave pi compiling every module on every start). Prints figures; never asserts.
The TypeScript pi is 0.73.1, from ``--pi073 DIR`` or ``$PI073_DIR`` (a folder where ``npm install
@mariozechner/pi-coding-agent@0.73.1`` ran); without it the bench stops and says so, unless
``--no-ts`` leaves it out (``bench_vs_pi16.py`` compares with pi 1.6.0).
Usage: ``uv run python bench/bench_startup.py [--runs N] [--no-ts] [--pi073 DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bytecode import compile_environment
from pi_core.testing import LoopbackLLMServer, text_turn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's root
from tests.fixtures.real_pi import PI073_MISSING, RealPi, pi073

PI = str(Path(sys.executable).with_name("pi"))
DIALECTS = {"openai-completions": "loop/fake-model", "anthropic-messages": "loopa/fake-claude"}


def _models_json(server: LoopbackLLMServer) -> dict[str, object]:
    return {
        "providers": {
            "loop": {
                "baseUrl": server.base_url("openai-completions"),
                "api": "openai-completions",
                "apiKey": "sk-loopback",
                "models": [{"id": "fake-model"}],
            },
            "loopa": {
                "baseUrl": server.base_url("anthropic-messages"),
                "api": "anthropic-messages",
                "apiKey": "sk-loopback",
                "models": [{"id": "fake-claude"}],
            },
        }
    }


def _one_run(
    argv: list[str], env: dict[str, str], cwd: Path, server: LoopbackLLMServer
) -> tuple[float, float]:
    before = len(server.requests)
    server.add(text_turn("ok"))
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = None
    while process.poll() is None:
        if first is None and len(server.requests) > before:
            first = time.perf_counter() - start
        time.sleep(0.0005)
    total = time.perf_counter() - start
    out, err = process.communicate()
    if process.returncode != 0 or out.strip() != b"ok":
        raise RuntimeError(f"run failed ({process.returncode}): {err.decode()[-500:]}")
    if first is None:
        first = total
    return first, total


def compile_workspace() -> None:
    """Byte-compile what pi imports, as an install does (see bench/_bytecode.py)."""
    compile_environment()


def bench(runs: int, ts: RealPi | None) -> None:
    compile_workspace()
    implementations = {"python pi": [PI]}
    if ts is not None:
        implementations["typescript pi"] = ts.argv()
    with LoopbackLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        agent, project, home = root / "agent", root / "project", root / "home"
        for folder in (agent, project, home):
            folder.mkdir()
        (agent / "models.json").write_text(json.dumps(_models_json(server)))
        env = dict(os.environ, HOME=str(home), PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1")
        env["PI_DISABLED_PLUGINS"] = "hello,keep-recent"  # the workspace's example plugins
        print(f"{'implementation':15} {'dialect':20} {'first request (ms)':>19} {'round trip (ms)':>16}")
        for name, prefix in implementations.items():
            for dialect, model in DIALECTS.items():
                argv = [*prefix, "-p", "--model", model, "hi"]
                _one_run(argv, env, project, server)  # warm the file cache
                samples = [_one_run(argv, env, project, server) for _ in range(runs)]
                first = statistics.median(s[0] for s in samples) * 1000
                total = statistics.median(s[1] for s in samples) * 1000
                print(f"{name:15} {dialect:20} {first:19.0f} {total:16.0f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--no-ts", action="store_true", help="skip the TypeScript pi")
    parser.add_argument("--pi073", help="folder holding node_modules of pi 0.73.1 (default: $PI073_DIR)")
    args = parser.parse_args()
    ts = None if args.no_ts else pi073(args.pi073)
    if ts is None and not args.no_ts:
        sys.exit(f"bench_startup: {PI073_MISSING}; or pass --pi073 DIR, or --no-ts to time ours alone")
    bench(args.runs, ts)


if __name__ == "__main__":
    main()
