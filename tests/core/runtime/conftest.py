"""Builds AgentSessions over the in-process faux provider, a real session file and real settings."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.auth import ENV_API_KEYS, AuthStorage
from pi_core.ai.messages import TextContent
from pi_core.ai.models import ModelRegistry
from pi_core.ai.provider import Model, ProviderConfig, register_api_provider, unregister_api_providers
from pi_core.plugins.dispatch import Dispatcher, Hooks
from pi_core.plugins.manager import PiPluginManager
from pi_core.plugins.registry import CommandSpec
from pi_core.runtime.resources import ResourceOptions, SettingsManager, load_resources
from pi_core.runtime.session import AgentSession, SessionServices
from pi_core.session.manager import SessionManager
from pi_core.testing.faux import FAUX_API, FauxProvider

FAUX_PROVIDER = ProviderConfig(
    id="faux",
    base_url="faux://in-process",
    api=FAUX_API,
    api_key="test-key",
    models=[{"id": "faux-1", "contextWindow": 100_000}],  # type: ignore[list-item]
)


def faux_registry(agent_dir: Path) -> ModelRegistry:
    """The real model registry with provider ``faux`` (key ``test-key``) registered as a plugin would."""
    registry = ModelRegistry(AuthStorage(agent_dir / "auth.json"), agent_dir / "models.json")
    registry.register_provider(FAUX_PROVIDER)
    return registry


async def _write_file(
    tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
) -> AgentToolResult:
    path = Path(ctx.cwd) / params["path"]
    path.write_text(params["content"])
    return AgentToolResult(content=[TextContent(text=f"wrote {params['path']}")])


WRITE_TOOL = AgentTool(
    name="write",
    label="write",
    description="Write a file",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
    execute=_write_file,
)


@dataclass
class Harness:
    tmp: Path
    provider: FauxProvider
    registry: ModelRegistry
    settings: SettingsManager
    events: list[Any] = field(default_factory=list)
    errors: list[Any] = field(default_factory=list)
    pm: PiPluginManager = field(default_factory=PiPluginManager)

    def build(
        self,
        *,
        session_manager: SessionManager | None = None,
        plugins: Sequence[object] = (),
        commands: Sequence[CommandSpec] = (),
        model: Model | None = None,
        persist: bool = True,
    ) -> AgentSession:
        for plugin in plugins:
            self.pm.register(plugin)
        hooks = Hooks(Dispatcher(self.pm, strict=False))
        resources = load_resources(
            ResourceOptions(cwd=str(self.tmp), agent_dir=str(self.tmp / "agent"), settings=self.settings)
        )
        services = SessionServices(
            cwd=str(self.tmp),
            settings=self.settings,
            resources=resources,
            model_registry=self.registry,
            hooks=hooks,
            commands=list(commands),
            tools={"write": WRITE_TOOL},
        )
        manager = session_manager or (
            SessionManager.create(str(self.tmp), self.tmp / "sessions")
            if persist
            else SessionManager.in_memory(str(self.tmp))
        )
        session = AgentSession(
            services,
            manager,
            model=model if model is not None else self.registry.find("faux", "faux-1"),
            thinking_level="off",
            active_tools=["write"],
        )
        hooks.dispatcher.on_error = session.report_hook_error
        session.subscribe(self.events.append)
        return session

    def add_model(self, model_id: str, **fields: Any) -> Model:
        """Another model of provider ``faux``."""
        config = FAUX_PROVIDER.to_json_dict()
        config["models"] = [*config["models"], {"id": model_id, **fields}]
        self.registry.register_provider(ProviderConfig.model_validate(config))
        found = self.registry.find("faux", model_id)
        assert found is not None
        return found

    def types(self) -> list[str]:
        return [e.type for e in self.events]


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """No built-in model may count as available because of the developer's own API keys."""
    for names in ENV_API_KEYS.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    provider = FauxProvider(api="faux")
    register_api_provider(provider, source_id="runtime-tests")
    settings = SettingsManager.in_memory({"retry": {"baseDelayMs": 1}})
    (tmp_path / "agent").mkdir()
    try:
        yield Harness(tmp_path, provider, faux_registry(tmp_path / "agent"), settings)
    finally:
        unregister_api_providers("runtime-tests")
