"""Run a real pi session in-process, with your plugins, against the loopback scripted model.

The session is the one ``pi -p`` runs: the real loader (plugins from paths or module objects), the
real registrations, runtime, session file and provider SDKs; only the model is scripted. Plugin
errors are strict by default: a handler that raises or returns a wrong shape fails the test.

    from pi_core.testing import text_turn
    from pi_core.testing.session import PiSession

    async def test_my_plugin(pi_llm_server, tmp_path):
        pi_llm_server.add(text_turn("hi there"))
        async with PiSession(pi_llm_server, tmp_path, extensions=["src/my_plugin.py"]) as pi:
            await pi.prompt("hello")
        assert pi.requests[0].body["messages"][-1]["content"] == "hello"
        assert [e["type"] for e in pi.entries][-1] == "message"
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from pi_core.ai.abort import AbortSignal
from pi_core.plugins.dispatch import HookErrorRecord
from pi_core.runtime.ui import HeadlessUI, Theme
from pi_core.testing.server import LOOPBACK_API_KEY, LoopbackLLMServer, RecordedRequest

#: The provider and model :class:`PiSession` selects (an OpenAI-compatible server).
LOOPBACK_PROVIDER = "loopback"
LOOPBACK_MODEL = "scripted"


def write_models_json(agent_dir: Path, server: LoopbackLLMServer, api: str = "openai-completions") -> None:
    """``<agent_dir>/models.json`` with provider ``loopback`` (model ``scripted``) at ``server``."""
    agent_dir.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            LOOPBACK_PROVIDER: {
                "baseUrl": server.base_url(api),
                "api": api,
                "apiKey": LOOPBACK_API_KEY,
                "models": [{"id": LOOPBACK_MODEL, "contextWindow": 128000, "maxTokens": 4096}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")


class PiSession:
    """``async with PiSession(server, tmp_path, ...) as pi``: a bound runtime you prompt and inspect.

    :param server: the running :class:`LoopbackLLMServer` (fixture ``pi_llm_server``).
    :param root: a scratch folder; the project is ``root/project``, the agent dir ``root/agent``.
    :param extensions: plugin files or packages, loaded as ``-e PATH`` would.
    :param plugins: plugin objects, registered after the paths: a module under its ``__name__``,
        an instance as ``<class name>-<position>``.
    :param builtin_tools: also load pi's built-in tools (when ``pi-builtin-tools`` is installed).
    :param tools: the active tools (default: every registered tool).
    :param strict: raise a plugin's errors (:class:`~pi_core.errors.PluginError`) instead of collecting them.

    A plugin that fails to load raises its :class:`~pi_core.errors.PluginLoadError` on entry.
    :param api: which wire API the scripted model speaks.
    """

    def __init__(
        self,
        server: LoopbackLLMServer,
        root: Path,
        *,
        extensions: Sequence[str | Path] = (),
        plugins: Sequence[object] = (),
        builtin_tools: bool = False,
        tools: Sequence[str] | None = None,
        strict: bool = True,
        api: str = "openai-completions",
    ) -> None:
        self.server = server
        self.project = root / "project"
        self.agent_dir = root / "agent"
        self._extensions = [str(path) for path in extensions]
        self._plugins = list(plugins)
        self._builtin_tools = builtin_tools
        self._tools = tools
        self._strict = strict
        self._api = api
        #: Every runtime event the session emitted (what JSON mode prints), in order.
        self.events: list[Any] = []
        #: Plugin errors that were isolated (only with ``strict=False``).
        self.errors: list[HookErrorRecord] = []
        #: What plugins sent to ``ctx.ui.notify`` (message, type).
        self.notices: list[tuple[str, str]] = []
        self.host: Any = None
        self._first_request = 0
        self._saved_env: str | None = None

    async def __aenter__(self) -> PiSession:
        from pi_core.cli.agent_run import plugin_parts
        from pi_core.cli.options import PluginControl
        from pi_core.cli.run import PluginSetup
        from pi_core.plugins.manager import LoadOptions, PluginRecord, load_plugins
        from pi_core.plugins.registry import collect_registrations
        from pi_core.runtime.host import RuntimeHost, RuntimeOptions

        self.project.mkdir(parents=True, exist_ok=True)
        write_models_json(self.agent_dir, self.server, self._api)
        self._saved_env = os.environ.get("PI_CODING_AGENT_DIR")
        os.environ["PI_CODING_AGENT_DIR"] = str(self.agent_dir)
        modules = ("pi_core.ai.builtin_providers",)
        options = LoadOptions(
            cwd=self.project,
            agent_dir=self.agent_dir,
            extension_paths=self._extensions,
            entry_points=False,
            env={},
            builtin_modules=modules,
        )
        pm = load_plugins(options)
        for index, plugin in enumerate(self._plugins):
            name = str(getattr(plugin, "__name__", None) or f"{type(plugin).__name__}-{index}")
            pm.add_plugin(plugin, PluginRecord(name, "flag", name))
        if self._builtin_tools:
            import importlib

            module = "pi_builtin_tools.plugin"
            pm.add_plugin(
                importlib.import_module(module), PluginRecord("tools", "builtin", module, builtin=True)
            )
        registrations = await collect_registrations(pm)
        problems = [*pm.load_errors, *registrations.errors]
        if problems:
            raise problems[0]
        setup = PluginSetup(PluginControl(), pm, registrations, [])
        parts = plugin_parts(setup, reloadable=False)
        if parts.hooks is not None:
            parts.hooks.dispatcher.strict = self._strict
        runtime = RuntimeOptions(
            cwd=str(self.project),
            agent_dir=str(self.agent_dir),
            provider=LOOPBACK_PROVIDER,
            model=LOOPBACK_MODEL,
            thinking="off",
            tools=list(self._tools) if self._tools is not None else list(parts.tools),
        )
        self.host = await RuntimeHost.create(runtime, parts)
        errors = [d.message for d in self.host.diagnostics if d.kind == "error"]
        if errors:
            raise RuntimeError("; ".join(errors))
        if parts.hooks is not None:
            sink = parts.hooks.dispatcher.on_error

            def collect(record: HookErrorRecord) -> None:
                self.errors.append(record)
                if sink is not None:
                    sink(record)

            parts.hooks.dispatcher.on_error = collect
        self.host.session.subscribe(self.events.append)
        self._first_request = len(self.server.requests)
        ui = HeadlessUI(lambda message, kind: self.notices.append((message, kind)), self.host.setting_theme)
        await self.host.bind_mode(ui=ui, on_error=lambda event: self.events.append(event))
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if self.host is not None:
                await self.host.dispose()
        finally:
            if self._saved_env is None:
                os.environ.pop("PI_CODING_AGENT_DIR", None)
            else:
                os.environ["PI_CODING_AGENT_DIR"] = self._saved_env

    @property
    def session(self) -> Any:
        """The current :class:`~pi_core.runtime.session.AgentSession`."""
        return self.host.session

    def ctx(self) -> Any:
        """A fresh ``ctx`` (:class:`~pi_core.plugins.context.ExtensionContext`) of the current session."""
        return self.host.session.extension_context()

    async def prompt(self, text: str) -> None:
        """Send ``text`` as the user would and wait until the run is over."""
        await self.host.session.prompt(text)

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests this session sent to the scripted model."""
        return self.server.requests[self._first_request :]

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The session file's records (header first), as JSON objects."""
        path = self.host.session.session_file
        if not path or not Path(path).exists():
            return []
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def event_types(self) -> list[str]:
        return [str(getattr(event, "type", "")) for event in self.events]


class ScriptedUI(HeadlessUI):
    """``ctx.ui`` of a user who picks ``answer`` in every select dialog and says yes to confirms.

    Bind it with ``await pi.host.bind_mode(ui=ScriptedUI("Yes"), mode="tui")``; ``asked`` holds the
    dialog titles, ``notices`` what was notified, ``statuses`` the status texts by key. ``theme``
    is the built-in ``dark`` theme, so a plugin's colours are the same whatever terminal runs the
    tests. Every other member (widgets, the working row, …) is
    :class:`~pi_core.runtime.ui.HeadlessUI`'s.
    """

    has_ui = True

    def __init__(self, answer: str | None) -> None:
        super().__init__(lambda message, kind: self.notices.append((message, kind)), Theme)
        self.answer = answer
        self.asked: list[str] = []
        self.notices: list[tuple[str, str]] = []
        self.statuses: dict[str, str | None] = {}

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
    ) -> str | None:
        self.asked.append(title)
        return self.answer if self.answer in options else None

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
    ) -> bool:
        self.asked.append(title)
        return True

    def set_status(self, key: str, text: str | None) -> None:
        self.statuses[key] = text
