"""The example strategy pi-ext-keep-recent: installed as a distribution, chosen in settings.json.

Swapping strategies touches no core code: the plugin registers "keep-recent", the settings name
it, and ``run_compaction`` writes what it returns — without any model call.
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

import pytest
from pi_core.ai.abort import AbortController, AbortSignal
from pi_core.ai.messages import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from pi_core.plugins.manager import LoadOptions, load_plugins
from pi_core.plugins.registry import collect_registrations
from pi_core.runtime.compaction import (
    CompactionStrategyRegistry,
    SummaryRequest,
    compaction_settings_from,
    run_compaction,
)
from pi_core.session.manager import SessionManager
from pi_core.testing.plugins import fake_distribution

EXAMPLE = Path(__file__).resolve().parents[2] / "plugins-example" / "pi-ext-keep-recent"


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pi-ext-keep-recent as an installed distribution (a fake one pointing at the source if needed)."""
    try:
        distribution("pi-ext-keep-recent")
    except PackageNotFoundError:
        fake_distribution(
            tmp_path / "site",
            "pi-ext-keep-recent",
            entry_points={"keep-recent": "pi_ext_keep_recent.plugin"},
            source_roots=[EXAMPLE / "src"],
        ).activate(monkeypatch)


async def no_model(request: SummaryRequest, signal: AbortSignal) -> AssistantMessage:
    raise AssertionError("keep-recent must not call a model")


def conversation() -> SessionManager:
    sm = SessionManager.in_memory("/tmp")
    sm.append_model_change("anthropic", "m")
    for turn in range(6):
        sm.append_message(UserMessage(content=f"question {turn} " + "q" * 400))
        sm.append_message(
            AssistantMessage(content=[TextContent(text="a" * 400)], api="x", provider="anthropic", model="m")
        )
    return sm


async def test_strategy_selected_in_settings_compacts_without_a_model(
    installed: None, tmp_path: Path
) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "settings.json").write_text(
        json.dumps({"compaction": {"strategy": "keep-recent", "keepRecentTokens": 250}})
    )
    pm = load_plugins(LoadOptions(cwd=tmp_path, agent_dir=agent_dir, env={}, builtin_modules=()))
    registrations = await collect_registrations(pm, ("register_compaction_strategies",))
    assert registrations.compaction_strategies["keep-recent"].plugin == "keep-recent"

    settings = compaction_settings_from(json.loads((agent_dir / "settings.json").read_text()))
    strategy = CompactionStrategyRegistry.from_registered(registrations.compaction_strategies).select(
        settings
    )

    sm = conversation()
    branch = sm.get_branch()
    outcome = await run_compaction(
        session=sm,
        strategy=strategy,
        settings=settings,
        complete=no_model,
        signal=AbortController().signal,
        reason="manual",
    )
    assert outcome.error is None
    entry: Any = outcome.entry
    # Newest first: A6 100 + U6 ~103 + A5 100 >= 250 at A5, the cut's entry.
    assert entry.first_kept_entry_id == branch[-3].id
    assert entry.details == {"strategy": "keep-recent", "droppedMessages": 9}
    assert entry.summary.startswith("9 earlier messages were removed")
    context = sm.build_session_context().messages
    assert [m.role for m in context] == ["compactionSummary", "assistant", "user", "assistant"]


def test_never_cuts_at_a_tool_result_and_skips_when_everything_fits() -> None:
    from pi_core.runtime.compaction import CompactionSettings
    from pi_ext_keep_recent.strategy import KeepRecentStrategy

    sm = SessionManager.in_memory("/tmp")
    sm.append_message(UserMessage(content="u" * 400))
    sm.append_message(AssistantMessage(content=[], api="x", provider="p", model="m"))
    sm.append_message(
        ToolResultMessage(tool_call_id="c", tool_name="read", content=[TextContent(text="r" * 4000)])
    )
    sm.append_message(AssistantMessage(content=[TextContent(text="done")], api="x", provider="p", model="m"))
    strategy = KeepRecentStrategy()
    branch = sm.get_branch()
    preparation = strategy.prepare(branch, CompactionSettings(keep_recent_tokens=500))
    assert preparation is not None
    assert preparation.first_kept_entry_id == branch[3].id  # the tool result's successor, not the result
    assert strategy.prepare(branch, CompactionSettings(keep_recent_tokens=10**6)) is None
