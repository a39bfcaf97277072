"""What loading the plugins again costs: ``/reload`` and ``/new`` with N local extension files.

Each replacement disposes the session, re-imports every local extension file, collects the
registrations again and starts the next session (pi 0.73.1 does the same). The workspace's
installed plugins (built-in tools, compaction, the example plugins) load too. Prints figures;
never asserts.

Run: ``uv run python bench/bench_reload.py``
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pi_core.cli.agent_run import plugin_parts
from pi_core.cli.options import PluginControl
from pi_core.cli.run import prepare_plugins_async
from pi_core.plugins.trust import trust_project
from pi_core.runtime.host import RuntimeHost, RuntimeOptions

EXTENSION = """
from pi_core import hookimpl

STATE = []


@hookimpl
def session_start(event, ctx):
    STATE.append(event.reason)


async def hello(args, ctx):
    ctx.ui.notify("hello {index}")


@hookimpl
def register_commands(register):
    register("hello-{index}", hello, description="say hello")
"""

ROUNDS = 20


def make_project(root: str, extensions: int) -> tuple[Path, Path]:
    """An agent dir and a trusted project with ``extensions`` local extension files."""
    agent, project = Path(root, "agent"), Path(root, "project")
    (project / ".pi" / "extensions").mkdir(parents=True)
    agent.mkdir()
    for index in range(extensions):
        path = project / ".pi" / "extensions" / f"ext{index}.py"
        path.write_text(EXTENSION.format(index=index))
    models = {"providers": {"loop": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                                     "apiKey": "k", "models": [{"id": "m1"}]}}}  # fmt: skip
    (agent / "models.json").write_text(json.dumps(models))
    os.environ["PI_CODING_AGENT_DIR"] = str(agent)
    os.chdir(project)
    trust_project(project, agent)
    return agent, project


async def measure(extensions: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as root:
        agent, project = make_project(root, extensions)
        setup = await prepare_plugins_async(PluginControl(), cwd=project)
        assert not setup.problems, setup.problems
        options = RuntimeOptions(cwd=str(project), agent_dir=str(agent), no_session=True)
        host = await RuntimeHost.create(options, plugin_parts(setup))
        await host.bind_mode()
        timings: dict[str, list[float]] = {"reload": [], "new": []}
        for _ in range(ROUNDS):
            for kind in timings:
                started = time.perf_counter()
                if kind == "reload":
                    await host.reload()
                else:
                    await host.new_session()
                timings[kind].append((time.perf_counter() - started) * 1000)
        await host.dispose()
        return statistics.median(timings["reload"]), statistics.median(timings["new"])


def main() -> None:
    print(f"python {sys.version.split()[0]}, {ROUNDS} rounds, median ms per replacement")
    print(f"{'local extensions':>18} {'/reload':>10} {'/new':>10}")
    for count in (0, 10, 50):
        reload_ms, new_ms = asyncio.run(measure(count))
        print(f"{count:>18} {reload_ms:>10.1f} {new_ms:>10.1f}")


if __name__ == "__main__":
    main()
