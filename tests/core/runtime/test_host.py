from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pi_core._markers import hookimpl
from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.plugins.dispatch import Dispatcher, Hooks
from pi_core.plugins.manager import PiPluginManager
from pi_core.runtime.host import PluginParts, RuntimeHost, RuntimeOptions


async def _noop(*args: Any) -> AgentToolResult:
    return AgentToolResult(content=[])


def _tool(name: str) -> AgentTool:
    return AgentTool(name=name, label=name, description=name, parameters={"type": "object"}, execute=_noop)


TOOLS = {name: _tool(name) for name in ("read", "bash", "edit", "write", "grep", "mine")}
BUILTIN = {"read", "bash", "edit", "write", "grep"}


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    agent, project = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    project.mkdir()
    models = {
        "providers": {
            "loop": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "m1"}, {"id": "m2", "reasoning": True}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    return agent, project


def _options(dirs: tuple[Path, Path], **extra: Any) -> RuntimeOptions:
    agent, project = dirs
    return RuntimeOptions(cwd=str(project), agent_dir=str(agent), **extra)


def _parts(*plugins: object) -> PluginParts:
    pm = PiPluginManager()
    for plugin in plugins:
        pm.register(plugin)
    return PluginParts(
        hooks=Hooks(Dispatcher(pm, strict=True)), tools=dict(TOOLS), builtin_tool_names=set(BUILTIN)
    )


async def test_default_tools_model_and_thinking(dirs: tuple[Path, Path]) -> None:
    host = await RuntimeHost.create(_options(dirs), _parts())
    session = host.session
    assert session.active_tool_names == ["read", "bash", "edit", "write", "mine"]
    assert session.model is not None and session.model.id == "m1"
    assert session.thinking_level == "off"  # clamped: m1 cannot reason
    assert host.diagnostics == []


async def test_tool_flags(dirs: tuple[Path, Path]) -> None:
    only = await RuntimeHost.create(_options(dirs, tools=["grep", "nope"]), _parts())
    assert only.session.active_tool_names == ["grep"]
    none = await RuntimeHost.create(_options(dirs, no_tools=True), _parts())
    assert none.session.active_tool_names == []
    plugin_only = await RuntimeHost.create(_options(dirs, no_builtin_tools=True), _parts())
    assert plugin_only.session.active_tool_names == ["mine"]


async def test_each_tool_is_active_once(dirs: tuple[Path, Path]) -> None:
    # A plugin's "read" replaced the built-in: it is a plugin tool and a default name at once.
    parts = _parts()
    parts.builtin_tool_names.discard("read")
    host = await RuntimeHost.create(_options(dirs), parts)
    assert host.session.active_tool_names == ["read", "bash", "edit", "write", "mine"]
    assert [t.name for t in host.session.agent.state.tools] == host.session.active_tool_names
    plugin_only = await RuntimeHost.create(_options(dirs, no_builtin_tools=True), parts)
    assert plugin_only.session.active_tool_names == ["read", "mine"]
    repeated = await RuntimeHost.create(_options(dirs, tools=["grep", "read", "grep"]), _parts())
    assert repeated.session.active_tool_names == ["grep", "read"]


async def test_model_flag_with_thinking_suffix_and_saved_default(dirs: tuple[Path, Path]) -> None:
    host = await RuntimeHost.create(_options(dirs, model="loop/m2:high"), _parts())
    assert (host.session.model.id, host.session.thinking_level) == ("m2", "high")  # type: ignore[union-attr]
    agent, _ = dirs
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "loop", "defaultModel": "m2"}))
    saved = await RuntimeHost.create(_options(dirs), _parts())
    assert saved.session.model.id == "m2" and saved.session.thinking_level == "medium"  # type: ignore[union-attr]


async def test_startup_errors_become_diagnostics(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    (agent / "models.json").unlink()
    host = await RuntimeHost.create(_options(dirs, api_key="sk-x"), _parts())
    assert [d.message for d in host.diagnostics if d.kind == "error"] == [
        "--api-key needs a model: name one with --model, --provider/--model or --models"
    ]
    assert host.session.model is None


async def test_broken_settings_file_is_a_warning_and_defaults_apply(dirs: tuple[Path, Path]) -> None:
    _, project = dirs
    (project / ".pi").mkdir()
    (project / ".pi" / "settings.json").write_text('{\n  "retry": {\n    "enabled": nope\n  }\n}')
    host = await RuntimeHost.create(_options(dirs), _parts())
    (warning,) = [d for d in host.diagnostics if "settings.json" in d.message]
    assert warning.kind == "warning" and "settings.json:3:" in warning.message
    assert host.session.auto_retry_enabled is True


class SwitchGuard:
    def __init__(self) -> None:
        self.events: list[str] = []

    @hookimpl
    def session_before_switch(self, event: Any) -> dict[str, bool] | None:
        self.events.append(f"before_switch:{event.reason}")
        return {"cancel": True} if event.reason == "resume" else None

    @hookimpl
    def session_shutdown(self, event: Any) -> None:
        self.events.append(f"shutdown:{event.reason}")

    @hookimpl
    def session_start(self, event: Any) -> None:
        self.events.append(f"start:{event.reason}")


async def test_session_replacement_fires_hooks_and_rebinds(dirs: tuple[Path, Path]) -> None:
    guard = SwitchGuard()
    host = await RuntimeHost.create(_options(dirs), _parts(guard))
    assert guard.events == []  # plugins start when a mode binds, as pi's bindExtensions
    await host.bind_mode()
    rebinds: list[str] = []

    async def rebind() -> None:
        rebinds.append(host.session.session_id)

    host.on_session_replaced(rebind)
    first = host.session
    assert await host.new_session() is False
    assert host.session is not first and first.disposed and rebinds == [host.session.session_id]
    assert await host.switch_session("/nowhere.jsonl") is True  # cancelled by the plugin
    assert guard.events == [
        "start:startup",
        "before_switch:new",
        "shutdown:new",
        "start:new",
        "before_switch:resume",
    ]


class SkillContributor:
    def __init__(self, path: Path) -> None:
        self.path = path

    @hookimpl
    def resources_discover(self, event: Any) -> dict[str, list[str]]:
        return {"skillPaths": [str(self.path)]}


async def test_resources_discover_adds_skills_to_the_system_prompt(
    dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    skill = tmp_path / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: Ship the app\n---\nRun make deploy.")
    host = await RuntimeHost.create(_options(dirs), _parts(SkillContributor(skill.parent)))
    await host.bind_mode()
    assert [s.name for s in host.session.resources.skills] == ["deploy"]
    assert "<name>deploy</name>" in host.session.system_prompt


async def test_session_dir_setting_is_used_when_no_flag(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    agent, _ = dirs
    target = tmp_path / "elsewhere"
    (agent / "settings.json").write_text(json.dumps({"sessionDir": str(target)}))
    host = await RuntimeHost.create(_options(dirs), _parts())
    assert host.session.session_manager.get_session_dir() == str(target)
    flagged = await RuntimeHost.create(_options(dirs, session_dir=str(tmp_path / "flag")), _parts())
    assert flagged.session.session_manager.get_session_dir() == str(tmp_path / "flag")


async def test_plugin_providers_join_the_registry_and_bad_ones_are_errors(dirs: tuple[Path, Path]) -> None:
    from pi_core.ai.provider import ProviderConfig

    good = ProviderConfig.model_validate(
        {"id": "plug", "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k",
         "models": [{"id": "p1"}]}
    )  # fmt: skip
    bad = ProviderConfig.model_validate({"id": "broken", "models": [{"id": "x"}]})
    parts = _parts()
    parts.providers = [good, bad]
    host = await RuntimeHost.create(_options(dirs, model="plug/p1"), parts)
    assert host.session.model is not None and host.session.model.provider == "plug"
    assert [d.message for d in host.diagnostics if d.kind == "error"] == [
        'Plugin provider error: Provider broken: "baseUrl" is required when defining models.'
    ]


async def test_broken_models_json_is_a_warning_and_builtins_stay(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    (agent / "models.json").write_text("{ nope")
    host = await RuntimeHost.create(_options(dirs, model="anthropic/claude-sonnet-4-5"), _parts())
    assert [d.kind for d in host.diagnostics] == ["warning"]
    assert host.diagnostics[0].message.startswith("errors loading models.json:\nFailed to parse models.json:")
    assert host.session.model is not None and host.session.model.id == "claude-sonnet-4-5"


async def test_unknown_model_is_a_usage_error(dirs: tuple[Path, Path]) -> None:
    host = await RuntimeHost.create(_options(dirs, model="loop/m1x", provider="nope"), _parts())
    (error,) = host.diagnostics
    assert error.kind == "error" and error.usage
    assert error.message == 'Unknown provider "nope". Use --list-models to see available providers/models.'


async def test_model_scope_picks_saved_default_in_scope_else_first(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    first = await RuntimeHost.create(_options(dirs, models=["loop/m2:low", "loop/m1"]), _parts())
    assert (first.session.model.id, first.session.thinking_level) == ("m2", "low")  # type: ignore[union-attr]
    assert [(m.id, level) for m, level in first.services.scoped_models] == [("m2", "low"), ("m1", None)]
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "loop", "defaultModel": "m1"}))
    saved = await RuntimeHost.create(_options(dirs, models=["loop/m2:low", "loop/m1"]), _parts())
    assert saved.session.model.id == "m1"  # type: ignore[union-attr]


async def test_api_key_flag_applies_to_the_chosen_models_provider(dirs: tuple[Path, Path]) -> None:
    host = await RuntimeHost.create(_options(dirs, model="openai/gpt-4o", api_key="sk-flag"), _parts())
    model = host.session.model
    assert model is not None and host.services.model_registry.has_configured_auth(model)
    assert host.services.model_registry.get_api_key(model) == "sk-flag"
    assert host.diagnostics == []


def _session_of_a_deleted_folder(tmp_path: Path) -> Path:
    from pi_core.ai.messages import AssistantMessage, TextContent, UserMessage
    from pi_core.session.manager import SessionManager

    gone = tmp_path / "deleted-project"
    manager = SessionManager.create(str(gone), tmp_path / "old-sessions")
    manager.append_message(UserMessage(content=[TextContent(text="old prompt")]))
    manager.append_message(
        AssistantMessage(
            content=[TextContent(text="old")], api="openai-completions", provider="loop", model="m1"
        )
    )
    manager.close()
    return Path(manager.get_session_file() or "")


async def test_a_session_whose_cwd_is_gone_is_refused_continued_or_forked(
    dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    from pi_core.runtime.host import MissingSessionCwdError

    path = _session_of_a_deleted_folder(tmp_path)
    before = path.read_bytes()
    project = str(dirs[1])
    with pytest.raises(MissingSessionCwdError) as refused:
        await RuntimeHost.create(_options(dirs, session=str(path)), _parts())
    assert str(refused.value) == (
        f"Stored session working directory does not exist: {tmp_path / 'deleted-project'}\n"
        f"Session file: {path}\nCurrent working directory: {project}"
    )
    assert [label for label, _ in refused.value.choices()] == [
        f"Continue in {project} (asks again next time)",
        f"Fork into {project} (new session ID, original kept)",
    ]
    # Continue: the same file, run in this cwd; its header still names the old folder.
    host = await RuntimeHost.create(_options(dirs, session=str(path), missing_cwd="continue"), _parts())
    manager = host.session.session_manager
    assert (manager.get_session_file(), manager.get_cwd()) == (str(path), project)
    assert len(host.session.messages) == 2
    await host.dispose()
    assert path.read_bytes() == before
    # Fork: a new file for this cwd that points back at the original.
    host = await RuntimeHost.create(_options(dirs, session=str(path), missing_cwd="fork"), _parts())
    forked = host.session.session_manager
    assert forked.get_session_file() != str(path) and forked.get_cwd() == project
    assert len(host.session.messages) == 2
    await host.dispose()
    text = await asyncio.to_thread(Path(forked.get_session_file() or "").read_text)
    header = json.loads(text.splitlines()[0])
    assert (header["cwd"], header["parentSession"]) == (project, str(path))
    assert path.read_bytes() == before


class SwitchRecorder(SwitchGuard):
    @hookimpl
    def session_before_switch(self, event: Any) -> None:
        self.events.append(f"before_switch:{event.reason}")


async def test_switching_to_a_session_whose_cwd_is_gone_is_refused_before_any_hook(
    dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    from pi_core.runtime.host import MissingSessionCwdError

    path = _session_of_a_deleted_folder(tmp_path)
    guard = SwitchRecorder()
    host = await RuntimeHost.create(_options(dirs), _parts(guard))
    await host.bind_mode()
    first = host.session
    with pytest.raises(MissingSessionCwdError):
        await host.switch_session(str(path))
    assert host.session is first and guard.events == ["start:startup"]
    assert await host.switch_session(str(path), "continue") is False
    assert host.session.session_manager.get_cwd() == str(dirs[1])
    assert guard.events[1:] == ["before_switch:resume", "shutdown:resume", "start:resume"]
    await host.dispose()


def _finished_session(cwd: Path, session_dir: Path) -> Path:
    from pi_core.ai.messages import AssistantMessage, TextContent, UserMessage
    from pi_core.session.manager import SessionManager

    manager = SessionManager.create(str(cwd), session_dir)
    manager.append_message(UserMessage(content=[TextContent(text="old prompt")]))
    manager.append_message(
        AssistantMessage(
            content=[TextContent(text="old")], api="openai-completions", provider="loop", model="m1"
        )
    )
    manager.close()
    return Path(manager.get_session_file() or "")


async def test_resuming_a_session_of_another_project_moves_the_run_there(
    dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    # pi 1.6.0 runs a session in the folder it was recorded in: that project's context files,
    # settings and plugins; later new sessions start there too.
    project = dirs[1]
    other = tmp_path / "other-project"
    (other / ".pi").mkdir(parents=True)
    (other / "AGENTS.md").write_text("Rules of the other project.")
    (other / ".pi" / "settings.json").write_text(json.dumps({"quietStartup": True}))
    (project / "AGENTS.md").write_text("Rules of this project.")
    path = _finished_session(other, tmp_path / "other-sessions")
    loaded_for: list[str | None] = []

    def parts() -> PluginParts:
        fresh = _parts()
        fresh.reload = reload
        return fresh

    async def reload(confirm: Any, where: str | None = None) -> PluginParts:
        loaded_for.append(where)
        return parts()

    host = await RuntimeHost.create(_options(dirs), parts())
    assert "Rules of this project." in host.session.system_prompt
    assert await host.switch_session(str(path)) is False
    assert (host.services.cwd, host.session.cwd) == (str(other), str(other))
    assert "Rules of the other project." in host.session.system_prompt
    assert "Rules of this project." not in host.session.system_prompt
    assert host.services.settings.settings.quiet_startup is True
    assert loaded_for == [str(other)]
    assert await host.new_session() is False
    assert host.session.session_manager.get_cwd() == str(other)
    assert loaded_for == [str(other), None]  # already there: the plugins of the same project
    await host.dispose()


async def test_import_minds_the_cwd_the_file_records(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    from pi_core.runtime.host import MissingSessionCwdError

    project = str(dirs[1])
    gone = _session_of_a_deleted_folder(tmp_path)
    host = await RuntimeHost.create(_options(dirs, session_dir=str(tmp_path / "sessions")), _parts())
    with pytest.raises(MissingSessionCwdError):
        await host.import_session(str(gone))
    assert not (tmp_path / "sessions" / gone.name).exists()  # refused: nothing copied
    # Continue: a copy in this project's session folder, run here; the copy keeps its header.
    assert await host.import_session(str(gone), "continue") is False
    manager = host.session.session_manager
    copy = tmp_path / "sessions" / gone.name
    assert (manager.get_session_file(), manager.get_cwd()) == (str(copy), project)
    assert len(host.session.messages) == 2
    # Fork: a new session here from the file, which is not copied as it is.
    (tmp_path / "sessions" / gone.name).unlink()
    assert await host.import_session(str(gone), "fork") is False
    forked = host.session.session_manager
    assert forked.get_cwd() == project
    assert Path(forked.get_session_file() or "").parent == tmp_path / "sessions"
    assert not (tmp_path / "sessions" / gone.name).exists()
    await host.dispose()
