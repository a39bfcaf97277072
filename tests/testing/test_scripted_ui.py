"""``ScriptedUI``: the kit's answering user offers every member of ``ctx.ui`` and counts as a UI."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pi_core.testing import LoopbackLLMServer, text_turn
from pi_core.testing.session import PiSession, ScriptedUI

from pi_core import hookimpl


async def test_scripted_ui_plugin_uses_theme_and_working_row(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TRUE_COLOR", "1")  # 24-bit escapes, whatever terminal runs the tests
    seen: dict[str, Any] = {}

    @hookimpl
    async def agent_start(ctx: Any) -> None:
        seen["has_ui"] = ctx.has_ui
        ctx.ui.set_working_message("thinking hard")
        ctx.ui.set_working_visible(False)
        ctx.ui.set_hidden_thinking_label("(thoughts)")
        ctx.ui.set_status("mood", ctx.ui.theme.fg("success", "ok"))
        seen["accent"] = ctx.ui.theme.color("accent")
        seen["answer"] = await ctx.ui.select("Pick", ["a", "b"])
        ctx.ui.notify("done", "info")

    pi_llm_server.add(text_turn("hi"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[SimpleNamespace(agent_start=agent_start)]) as pi:
        ui = ScriptedUI("b")
        await pi.host.bind_mode(ui=ui, mode="tui")
        await pi.prompt("go")
    assert seen == {"has_ui": True, "accent": "#a798d7", "answer": "b"}  # dark's accent, okhsl(295 50% 67%)
    assert ui.asked == ["Pick"]
    assert ui.notices == [("done", "info")]
    assert ui.statuses["mood"] == "\x1b[38;2;104;183;141mok\x1b[39m"  # dark's success


async def test_headless_binding_has_no_ui(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    async with PiSession(pi_llm_server, tmp_path) as pi:
        assert pi.ctx().has_ui is False
        await pi.host.bind_mode(ui=ScriptedUI(None), mode="tui")
        assert pi.ctx().has_ui is True
