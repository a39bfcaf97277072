"""`pi plugins` and a print-mode run with every first-party plugin installed against none.

Builds two throwaway environments with uv (offline, from this checkout, with bytecode as the
README's install has it): pi's own distributions only, and the same plus every
``plugins-example/pi-ext-*``. One untimed warm-up run of each command per environment first. Then runs the two commands alternately
in both (interleaved, so load on the machine hits both alike) and prints the medians and the ratio.
The print-mode run talks to the loopback scripted server. Prints figures; never asserts.

    uv run python bench/bench_plugins.py [runs]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pi_core.testing import LoopbackLLMServer, text_turn

ROOT = Path(__file__).resolve().parents[1]
CORE = ["pi_core", "pi_builtin_tools", "pi_builtin_compaction", "pi_builtin_providers"]


def environment(where: Path, with_plugins: bool) -> Path:
    subprocess.run(["uv", "venv", "-q", "--python", sys.executable, str(where)], check=True)
    members = [str(ROOT / name) for name in CORE if (ROOT / name).exists()]
    if with_plugins:
        members += [str(p) for p in sorted((ROOT / "plugins-example").glob("pi-ext-*"))]
    python = where / "bin" / "python"
    env = {**os.environ, "UV_OFFLINE": "1"}
    subprocess.run(
        ["uv", "pip", "install", "-q", "--compile-bytecode", "--python", str(python), *members],
        check=True,
        env=env,
    )
    return where / "bin" / "pi"


def main(runs: int) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="pi-bench-plugins-"))
    pis = {"none": environment(scratch / "none", False), "all": environment(scratch / "all", True)}
    agent = scratch / "agent"
    agent.mkdir()
    project = scratch / "project"
    project.mkdir()
    with LoopbackLLMServer() as server:
        server.add(*[text_turn("ok") for _ in range(2 * runs + 6)])
        provider = {
            "baseUrl": server.base_url("openai-completions"),
            "api": "openai-completions",
            "apiKey": "sk-bench",
            "models": [{"id": "m", "contextWindow": 128000, "maxTokens": 4096}],
        }
        (agent / "models.json").write_text(json.dumps({"providers": {"loop": provider}}))
        # As a user's install runs: with bytecode (the README installs with --compile-bytecode;
        # the workspace's own editable sources get theirs on the warm-up run below).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PI_CODING_AGENT_DIR"] = str(agent)
        commands = {"pi plugins": ["plugins"], "pi -p hi": ["-p", "--no-session", "--model", "loop/m", "hi"]}
        for label, args in commands.items():
            times: dict[str, list[float]] = {"none": [], "all": []}
            for kind in ("none", "all"):  # warm-up: caches and bytecode, not timed
                subprocess.run([str(pis[kind]), *args], cwd=project, env=env, capture_output=True)
            for run in range(runs):
                for kind in ("none", "all") if run % 2 == 0 else ("all", "none"):
                    start = time.perf_counter()
                    done = subprocess.run([str(pis[kind]), *args], cwd=project, env=env, capture_output=True)
                    times[kind].append(time.perf_counter() - start)
                    if done.returncode != 0:
                        print(f"{label} ({kind}) failed: {done.stderr.decode()[-400:]}")
                        return
            none, every = statistics.median(times["none"]), statistics.median(times["all"])
            print(
                f"{label:12} none {none:.3f} s   all first-party plugins {every:.3f} s   ratio {every / none:.2f}x"
            )
    print(f"(median of {runs} interleaved runs each)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
