"""Every Python block of docs/extensions.md and docs/hooks.md type-checks strictly and runs.

Plugin authors copy these blocks; a block that mypy --strict rejects, or that crashes when pi calls
it, teaches the wrong thing. The same mypy run covers the example plugins and a file proving that
the runtime's context and UI classes satisfy the protocols plugins annotate with.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.ai.messages import AssistantMessage, SystemMessage, TextContent, UserMessage
from pi_core.plugins import events as ev
from pi_core.plugins.combine import EVENT_HOOKS
from pi_core.plugins.context import ProjectTrustContext
from pi_core.runtime.ui import HeadlessUI
from pi_core.testing import LoopbackLLMServer
from pi_core.testing.session import PiSession

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "docs" / "extensions.md", ROOT / "docs" / "hooks.md"]
PLUGINS_EXAMPLE = ROOT / "plugins-example"

# What a plugin author annotates with must accept pi's own implementations (checked by mypy below).
CONFORMANCE = """
from __future__ import annotations

from pi_core.modes.interactive.trust import TerminalTrustDialogs
from pi_core.modes.interactive.ui import InteractiveUI
from pi_core.modes.rpc.ui import RpcExtensionUI
from pi_core.plugins.context import CommandContext, ExtensionContext, ExtensionUI, ProjectTrustUI
from pi_core.runtime.extension_context import RuntimeCommandContext, RuntimeContext
from pi_core.runtime.ui import HeadlessUI
from pi_core.testing.session import ScriptedUI


def ui(
    headless: HeadlessUI, rpc: RpcExtensionUI, interactive: InteractiveUI, scripted: ScriptedUI
) -> list[ExtensionUI]:
    return [headless, rpc, interactive, scripted]


def trust_dialogs(before_the_repl: TerminalTrustDialogs, nobody: HeadlessUI) -> list[ProjectTrustUI]:
    return [before_the_repl, nobody]


def contexts(ctx: RuntimeContext, command: RuntimeCommandContext) -> tuple[ExtensionContext, CommandContext]:
    return ctx, command
"""


def python_blocks() -> list[tuple[str, str]]:
    blocks: list[tuple[str, str]] = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for number, match in enumerate(re.finditer(r"```python\n(.*?)```", text, re.S), 1):
            blocks.append((f"{doc.stem}_{number}", match.group(1)))
    return blocks


BLOCKS = python_blocks()


def test_every_hook_has_an_example_block() -> None:
    hooks_md = [code for name, code in BLOCKS if name.startswith("hooks_")]
    for hook in EVENT_HOOKS:
        assert any(re.search(rf"\bdef {hook}\(", code) for code in hooks_md), hook


@pytest.mark.slow
def test_docs_examples_and_example_plugins_pass_mypy_strict(tmp_path: Path) -> None:
    files: list[str] = []
    for name, code in BLOCKS:
        path = tmp_path / f"doc_{name}.py"
        path.write_text(code, encoding="utf-8")
        files.append(str(path))
    conformance = tmp_path / "conformance.py"
    conformance.write_text(CONFORMANCE, encoding="utf-8")
    files.append(str(conformance))
    sources = sorted(str(p) for p in PLUGINS_EXAMPLE.glob("pi-ext-*/src"))
    packages = [str(p) for src in sources for p in Path(src).iterdir() if (p / "__init__.py").exists()]
    config = tmp_path / "mypy.ini"
    config.write_text(
        "[mypy]\nstrict = True\nplugins = pydantic.mypy\n"
        f"mypy_path = {':'.join([*sources, str(ROOT / 'pi_core' / 'src')])}\n",
        encoding="utf-8",
    )
    args = [sys.executable, "-m", "mypy", "--config-file", str(config), "--no-error-summary"]
    args += ["--cache-dir", str(ROOT / ".mypy_cache" / "doc-examples"), *files, *packages]
    done = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == ""


# --- running them -----------------------------------------------------------------------------


def _assistant(text: str) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)], api="x", provider="x", model="x", stop_reason="stop"
    )


def sample_event(hook: str, pi: PiSession) -> Any:
    """A plausible event for ``hook`` in the running session."""
    leaf = pi.session.session_manager.get_leaf_id() or ""
    samples: dict[str, Callable[[], Any]] = {
        "session_start": lambda: ev.SessionStartEvent(reason="startup"),
        "resources_discover": lambda: ev.ResourcesDiscoverEvent(cwd=str(pi.project), reason="startup"),
        "input": lambda: ev.InputEvent(text="?quick why?"),
        "before_agent_start": lambda: ev.BeforeAgentStartEvent(prompt="hi", system_prompt="base"),
        "agent_start": ev.AgentStartEvent,
        "agent_end": lambda: ev.AgentEndEvent(messages=[_assistant("done")]),
        "turn_start": lambda: ev.TurnStartEvent(turn_index=0, timestamp=0),
        "turn_end": lambda: ev.TurnEndEvent(turn_index=0, message=_assistant("done")),
        "message_start": lambda: ev.MessageStartEvent(message=UserMessage(content="hi")),
        "message_update": lambda: ev.MessageUpdateEvent(message=_assistant("do")),
        "message_end": lambda: ev.MessageEndEvent(message=_assistant("the password is hunter2")),
        "context": lambda: ev.ContextEvent(messages=[UserMessage(content="hi")]),
        "context_with_system": lambda: ev.ContextWithSystemEvent(
            messages=[SystemMessage(content="You are pi."), UserMessage(content="hi")]
        ),
        "before_provider_request": lambda: ev.BeforeProviderRequestEvent(payload={"model": "m"}),
        "after_provider_response": lambda: ev.AfterProviderResponseEvent(
            status=200, headers={"x-ratelimit-remaining": "7"}
        ),
        "provider_stream_event": lambda: ev.ProviderStreamEvent(
            provider="openai", api="openai-completions", model="m", data={"id": "chunk-1"}
        ),
        "tool_execution_start": lambda: ev.ToolExecutionStartEvent(tool_call_id="1", tool_name="bash"),
        "tool_call": lambda: ev.ToolCallEvent(
            tool_call_id="1", tool_name="bash", input={"command": "sudo ls", "path": ".env"}
        ),
        "tool_execution_update": lambda: ev.ToolExecutionUpdateEvent(tool_call_id="1", tool_name="bash"),
        "tool_result": lambda: ev.ToolResultEvent(
            tool_call_id="1", tool_name="bash", content=[TextContent(text="SECRET=1")]
        ),
        "tool_execution_end": lambda: ev.ToolExecutionEndEvent(tool_call_id="1", tool_name="bash"),
        "session_before_switch": lambda: ev.SessionBeforeSwitchEvent(reason="new"),
        "session_before_fork": lambda: ev.SessionBeforeForkEvent(entry_id=leaf),
        "session_before_compact": lambda: ev.SessionBeforeCompactEvent(
            preparation=ev.CompactionPreparation(first_kept_entry_id=leaf, tokens_before=10)
        ),
        "session_compact": lambda: ev.SessionCompactEvent(from_extension=True),
        "session_before_tree": lambda: ev.SessionBeforeTreeEvent(
            preparation=ev.TreePreparation(target_id=leaf)
        ),
        "session_tree": lambda: ev.SessionTreeEvent(new_leaf_id=leaf),
        "session_shutdown": lambda: ev.SessionShutdownEvent(reason="quit"),
        "model_select": lambda: ev.ModelSelectEvent(model=pi.session.model),
        "thinking_level_select": lambda: ev.ThinkingLevelSelectEvent(level="high", previous_level="off"),
        "user_bash": lambda: ev.UserBashEvent(command="whoami", cwd=str(pi.project)),
        "project_trust": lambda: ev.ProjectTrustEvent(cwd=str(pi.project)),
        "agent_before_settle": lambda: ev.AgentBeforeSettleEvent(messages=[_assistant("done")]),
        "agent_settled": lambda: ev.AgentSettledEvent(aborted=False),
        "ui_prompt_start": lambda: ev.UiPromptStartEvent(kind="confirm", title="Sure?"),
        "ui_prompt_end": lambda: ev.UiPromptEndEvent(kind="confirm", title="Sure?"),
        "session_compact_failed": lambda: ev.SessionCompactFailedEvent(reason="manual", error_message="x"),
        "session_info_changed": lambda: ev.SessionInfoChangedEvent(name="work"),
        "before_provider_headers": lambda: ev.BeforeProviderHeadersEvent(headers={"x-a": "1"}),
        "mcp_servers_change": lambda: ev.McpServersChangeEvent(
            servers=[ev.RegisteredMcpServer(name="docs", config={"url": "http://x/mcp"}, extension_path="p")]
        ),
    }
    return samples[hook]()


def _hooks_of(path: Path) -> list[str]:
    names = re.findall(r"^(?:async )?def (\w+)\(", path.read_text(encoding="utf-8"), re.M)
    return [name for name in names if name in EVENT_HOOKS]


PLUGIN_BLOCKS = [(name, code) for name, code in BLOCKS if "@hookimpl" in code and "def test_" not in code]


@pytest.mark.parametrize(("name", "code"), PLUGIN_BLOCKS, ids=[name for name, _ in PLUGIN_BLOCKS])
async def test_plugin_example_loads_and_its_hooks_run(
    name: str, code: str, tmp_path: Path, pi_llm_server: LoopbackLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for src in PLUGINS_EXAMPLE.glob("pi-ext-*/src"):
        monkeypatch.syspath_prepend(str(src))
    path = tmp_path / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    # Strict: a raising handler or a result that does not fit fails the test.
    async with PiSession(pi_llm_server, tmp_path, extensions=[path]) as pi:
        dispatcher = pi.session.hooks.dispatcher
        for hook in _hooks_of(path):
            # project_trust runs before any session: its ctx is the small trust context.
            ctx = (
                ProjectTrustContext(str(pi.project), "print", False, HeadlessUI())
                if hook == "project_trust"
                else pi.ctx()
            )
            await dispatcher.dispatch(hook, sample_event(hook, pi), ctx)
        await dispatcher.drain()
        assert pi.errors == []


def _load_module(name: str, code: str, tmp_path: Path) -> Any:
    path = tmp_path / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"doc_example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OTHER_BLOCKS = [(name, code) for name, code in BLOCKS if (name, code) not in PLUGIN_BLOCKS]


@pytest.mark.parametrize(("name", "code"), OTHER_BLOCKS, ids=[name for name, _ in OTHER_BLOCKS])
async def test_other_example_runs(
    name: str, code: str, tmp_path: Path, pi_llm_server: LoopbackLLMServer
) -> None:
    module = _load_module(name, textwrap.dedent(code), tmp_path)
    ran = 0
    fixtures = {"pi_llm_server": pi_llm_server, "tmp_path": tmp_path / "test"}
    (tmp_path / "test").mkdir()
    for attr, function in vars(module).items():
        if attr.startswith("test_") and inspect.iscoroutinefunction(function):
            wanted = inspect.signature(function).parameters
            await function(**{name: fixtures[name] for name in wanted})
            ran += 1
    if hasattr(module, "main"):
        plugin = tmp_path / "gate.py"
        plugin.write_text("from pi_core import hookimpl\n\n@hookimpl\ndef agent_start():\n    pass\n")
        async with PiSession(pi_llm_server, tmp_path / "run") as pi:
            await module.main(tmp_path, [str(plugin)], pi.ctx())
        ran += 1
    assert ran, f"{name}: a Python block that is neither a plugin, a test nor a main()"
