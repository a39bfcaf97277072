"""A REPL driven through a prompt-toolkit pipe against the loopback LLM server, in-process.

The runtime host is the real one (real plugins: the built-in tools), output goes to a rich console
over a StringIO; keys are typed into the pipe (Enter is ``\\r``, Esc ``\\x1b``, Ctrl+C ``\\x03``).
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pi_core.cli.agent_run import plugin_parts
from pi_core.cli.options import PluginControl
from pi_core.cli.run import prepare_plugins_async
from pi_core.modes.interactive.app import InteractiveMode
from pi_core.modes.interactive.fullscreen import FullscreenMode
from pi_core.runtime.host import RuntimeHost, RuntimeOptions
from pi_core.testing import LoopbackLLMServer
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

ENTER = "\r"


def write_models(agent: Path, server: LoopbackLLMServer) -> None:
    models = {
        "providers": {
            "loop": {
                "baseUrl": server.base_url("openai-completions"),
                "api": "openai-completions",
                "apiKey": "sk-loopback",
                "models": [
                    {"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096},
                    {"id": "other-model", "contextWindow": 64000, "maxTokens": 4096, "reasoning": True},
                ],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))


@dataclass
class Repl:
    mode: InteractiveMode
    pipe: PipeInput
    buffer: io.StringIO
    task: asyncio.Task[int]
    project: Path
    agent: Path
    sessions: Path
    hooks: list[Any] = field(default_factory=list)

    @property
    def output(self) -> str:
        transcript = getattr(self.mode, "transcript", None)
        if transcript is None:
            return self.buffer.getvalue()
        rows = [row for block in transcript.blocks for row in transcript.lines(block, 100)]
        return "\n".join(line.rstrip() for line in transcript.plain_rows(rows)) + "\n"

    def send(self, keys: str) -> None:
        self.pipe.send_text(keys)

    async def submit(self, text: str) -> None:
        await self.wait_idle_editor()
        self.send(text + ENTER)

    async def wait_idle_editor(self, seconds: float = 15) -> None:
        """Until the editor is running (typed keys reach it, not a closed app)."""
        await self.until(self._editor_running, seconds)

    def _editor_running(self) -> bool:
        if not self.mode.started_up:  # fullscreen's editor runs while plugins start
            return False
        app = getattr(self.mode, "_app", None)
        if app is not None:
            return bool(app.is_running) and self.mode._dialogs == 0
        return self.mode._editor is not None and self.mode._editor.app.is_running

    async def in_dialog(self, seconds: float = 15) -> None:
        """Until a dialog has the keys (typed now, they go to it, not to the editor): holding
        the terminal in regular mode, inside the running application in fullscreen."""
        mode: Any = self.mode

        def asking() -> bool:
            live = bool(getattr(mode, "_dialog_views", None)) and mode._dialog_has_keys()
            return live or (mode._dialogs > 0 and mode._editor_free.is_set())

        await self.until(asking, seconds)

    async def in_component(self, seconds: float = 15) -> None:
        """Until a plugin's component (``ctx.ui.custom``) has the keys: as a dialog in regular
        mode, inside the running application (in the editor's place or floating) in fullscreen."""
        mode: Any = self.mode

        def shown() -> bool:
            live = bool(getattr(mode, "_in_place", None)) or getattr(mode, "_overlays", 0) > 0
            return live or (mode._dialogs > 0 and mode._editor_free.is_set())

        await self.until(shown, seconds)

    async def until(self, check: Callable[[], bool], seconds: float = 15) -> None:
        deadline = asyncio.get_running_loop().time() + seconds
        while not check():
            if self.task.done():
                self.task.result()
                raise AssertionError(f"REPL ended early; output:\n{self.output}")
            if asyncio.get_running_loop().time() > deadline:
                state = (self.mode._dialogs, self.mode._editor_free.is_set(), self.mode._no_dialog.is_set())
                raise AssertionError(f"timed out {state}; output so far:\n{self.output}")
            await asyncio.sleep(0.01)

    async def wait_for(self, text: str, seconds: float = 15) -> None:
        await self.until(lambda: text in self.output, seconds)

    async def idle(self, seconds: float = 15) -> None:
        await self.until(lambda: not self.mode.busy, seconds)

    async def quit(self) -> int:
        await self.idle()
        await self.submit("/quit")
        return await asyncio.wait_for(self.task, 5)


@pytest.fixture
async def repl_factory(
    tmp_path: Path, pi_llm_server: LoopbackLLMServer, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Callable[..., Any]]:
    agent, project, sessions = tmp_path / "agent", tmp_path / "project", tmp_path / "sessions"
    for directory in (agent, project, sessions):
        directory.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.chdir(project)
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    write_models(agent, pi_llm_server)
    started: list[Repl] = []
    pipes: list[Any] = []

    async def start(
        extensions: tuple[str, ...] = (),
        initial: str | None = None,
        messages: tuple[str, ...] = (),
        fullscreen: bool = False,
        **options: Any,
    ) -> Repl:
        setup = await prepare_plugins_async(PluginControl(extensions=extensions), cwd=project)
        assert not setup.problems, setup.problems
        host = await RuntimeHost.create(
            RuntimeOptions(
                cwd=str(project),
                agent_dir=str(agent),
                session_dir=str(sessions),
                model="loop/fake-model",
                **options,
            ),
            plugin_parts(setup),
        )
        pipe_context = create_pipe_input()
        pipe = pipe_context.__enter__()
        pipes.append(pipe_context)
        buffer = io.StringIO()
        mode: InteractiveMode
        if fullscreen:
            mode = FullscreenMode(host, input=pipe, output=DummyOutput(), history_file=agent / "history")
        else:
            console = Console(file=buffer, width=100, color_system=None, highlight=False)
            mode = InteractiveMode(
                host,
                console=console,
                input=pipe,
                output=DummyOutput(),
                history_file=agent / "history",
            )
        task = asyncio.create_task(mode.run(initial, [], list(messages)))
        repl = Repl(mode, pipe, buffer, task, project, agent, sessions)
        started.append(repl)
        return repl

    yield start
    for repl in started:
        if not repl.task.done():
            repl.task.cancel()
            with pytest.raises((asyncio.CancelledError, Exception)):
                await repl.task
    for pipe_context in pipes:
        pipe_context.__exit__(None, None, None)
