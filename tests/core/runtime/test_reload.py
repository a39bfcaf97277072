"""``/reload`` and session replacement load the plugins again, as pi builds a new extension runtime.

The plugins are real files loaded through the CLI's path (``prepare_plugins_async`` →
``plugin_parts``), so these tests see what a user editing ``.pi/extensions/*.py`` sees.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_core.cli.agent_run import plugin_parts
from pi_core.cli.options import PluginControl
from pi_core.cli.run import prepare_plugins_async
from pi_core.plugins.context import CommandContext, ExtensionContext
from pi_core.plugins.trust import trust_project
from pi_core.runtime.extension_context import RuntimeCommandContext, RuntimeContext, StaleContextError
from pi_core.runtime.host import RuntimeHost, RuntimeOptions

#: Every lifecycle call lands in events.jsonl with the code's version, so a test can tell
#: which instance of the plugin saw it.
RECORDER = """
import json
from pathlib import Path
from pi_core import hookimpl

LOG = Path(__file__).with_name("events.jsonl")
VERSION = "{version}"


def _log(what):
    with LOG.open("a") as f:
        f.write(json.dumps([VERSION, what]) + "\\n")


_log("imported")


@hookimpl
def session_start(event, ctx):
    _log(f"start:{{event.reason}}:flag={{ctx.get_flag('level')}}")


@hookimpl
def resources_discover(event, ctx):
    _log(f"discover:{{event.reason}}")


@hookimpl
def session_shutdown(event, ctx):
    _log(f"shutdown:{{event.reason}}")


@hookimpl
def register_flags(register):
    register("level", type="string", default="low", description="how loud")


async def _say(args, ctx):
    ctx.ui.notify(VERSION)


@hookimpl
def register_commands(register):
    register("say-{version}", _say, description="say the version")


@hookimpl
def register_tools(register):
    from pi_core.agent.tools import AgentTool, AgentToolResult

    async def run(tool_call_id, params, signal, on_update, ctx):
        return AgentToolResult(content=[])

    register(AgentTool(name="tool_{version}", label="t", description="t",
                       parameters={{"type": "object"}}, execute=run))
"""


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    agent, project = tmp_path / "agent", tmp_path / "project"
    (project / ".pi" / "extensions").mkdir(parents=True)
    agent.mkdir()
    models = {
        "providers": {
            "loop": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "m1"}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.chdir(project)
    return {"agent": agent, "project": project, "ext": project / ".pi" / "extensions"}


def write_plugin(world: dict[str, Path], version: str) -> None:
    (world["ext"] / "recorder.py").write_text(RECORDER.format(version=version))


def commands(host: RuntimeHost) -> list[str]:
    """The commands of the test's plugin (the workspace's example plugins add their own)."""
    return [c["name"] for c in host.session.get_commands() if c["name"].startswith("say-")]


async def bind(host: RuntimeHost, ui: Any = None) -> None:
    """Bind as a mode does: now and again after every replacement."""

    async def rebind() -> None:
        await host.bind_mode(ui=ui)

    host.on_session_replaced(rebind)
    await host.bind_mode(ui=ui)


def events(world: dict[str, Path]) -> list[list[str]]:
    log = world["ext"] / "events.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def start_host(world: dict[str, Path], *, flags: dict[str, Any] | None = None) -> RuntimeHost:
    setup = await prepare_plugins_async(PluginControl(), cwd=world["project"])
    assert not setup.problems and setup.pm.untrusted_project is None
    setup.flag_values = {"level": "low", **(flags or {})}
    options = RuntimeOptions(cwd=str(world["project"]), agent_dir=str(world["agent"]), no_session=True)
    return await RuntimeHost.create(options, plugin_parts(setup))


class AnsweringUI:
    """A UI whose confirm answers as told and remembers what it was asked."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[str] = []
        self.notes: list[tuple[str, str]] = []

    async def confirm(self, title: str, message: str, **_: Any) -> bool:
        self.asked.append(message)
        return self.answer

    def notify(self, message: str, type: str = "info") -> None:
        self.notes.append((message, type))


async def test_reload_reimports_the_plugin_and_restarts_it_in_pis_order(world: dict[str, Path]) -> None:
    write_plugin(world, "v1")
    trust_project(world["project"], world["agent"])
    host = await start_host(world, flags={"level": "high"})
    await host.bind_mode()
    assert commands(host) == ["say-v1"]
    assert "tool_v1" in host.session.active_tool_names

    write_plugin(world, "v2")
    trust_project(world["project"], world["agent"])  # the user reviewed the change
    await host.reload()

    assert events(world) == [
        ["v1", "imported"],
        ["v1", "start:startup:flag=high"],
        ["v1", "discover:startup"],
        ["v1", "shutdown:reload"],  # the old instance hears the shutdown
        ["v2", "imported"],
        ["v2", "start:reload:flag=high"],  # the flag value survives the reload
        ["v2", "discover:reload"],
    ]
    assert commands(host) == ["say-v2"]
    assert "tool_v2" in host.session.active_tool_names  # a tool new to the session becomes active
    assert "tool_v1" not in host.session.services.tools


async def test_new_session_gets_fresh_plugin_instances(world: dict[str, Path]) -> None:
    write_plugin(world, "v1")
    trust_project(world["project"], world["agent"])
    host = await start_host(world)
    await host.bind_mode()
    assert await host.new_session() is False
    assert [e[1] for e in events(world)] == [
        "imported",
        "start:startup:flag=low",
        "discover:startup",
        "shutdown:new",
        "imported",  # pi 0.73.1 re-imports extensions for every replacement
        "start:new:flag=low",
        "discover:startup",
    ]


async def test_a_changed_project_plugin_asks_before_it_runs_again(world: dict[str, Path]) -> None:
    write_plugin(world, "v1")
    trust_project(world["project"], world["agent"])
    host = await start_host(world)
    ui = AnsweringUI(answer=False)
    await bind(host, ui)
    write_plugin(world, "v2")  # not reviewed: the fingerprint no longer matches

    await host.reload()
    assert len(ui.asked) == 1 and "changed since you trusted it" in ui.asked[0]
    assert ["v2", "imported"] not in events(world)
    assert commands(host) == []  # the project's code is off until trusted
    [(note, kind)] = ui.notes
    assert note.startswith("[Extension issues]") and "pi trust" in note and kind == "warning"

    await host.reload()
    assert len(ui.asked) == 1  # declined once: not asked again for the same code

    ui.answer = True
    write_plugin(world, "v3")
    await host.reload()
    assert len(ui.asked) == 2
    assert commands(host) == ["say-v3"]


async def test_a_broken_plugin_after_reload_is_reported_and_the_session_goes_on(
    world: dict[str, Path],
) -> None:
    write_plugin(world, "v1")
    trust_project(world["project"], world["agent"])
    host = await start_host(world)
    ui = AnsweringUI(answer=True)
    await bind(host, ui)
    (world["ext"] / "recorder.py").write_text("def broken(:\n")
    trust_project(world["project"], world["agent"])
    await host.reload()
    [(note, _)] = ui.notes
    assert note.startswith("[Extension issues]"), note
    assert "syntax error" in note, note
    assert commands(host) == []
    assert not host.session.disposed and host.session.model is not None


async def test_a_context_kept_across_a_reload_is_stale(world: dict[str, Path]) -> None:
    write_plugin(world, "v1")
    trust_project(world["project"], world["agent"])
    host = await start_host(world)
    await host.bind_mode()
    kept = host.session.extension_context()
    await host.reload()
    with pytest.raises(StaleContextError):
        kept.get_flag("level")
    assert host.session.extension_context().get_flag("level") == "low"
    assert host.session.extension_context().get_flag("--level") == "low"
    assert host.session.extension_context().get_flag("nobody") is None


@pytest.mark.parametrize(
    ("protocol", "implementation"),
    [(ExtensionContext, RuntimeContext), (CommandContext, RuntimeCommandContext)],
)
def test_the_runtime_context_implements_every_documented_member(protocol: type, implementation: type) -> None:
    documented = {name for name in dir(protocol) if not name.startswith("_")}
    missing = sorted(name for name in documented if not hasattr(implementation, name))
    assert missing == []
