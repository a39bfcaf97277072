"""``ctx.ui`` beyond dialogs: the theme, styled statuses and widgets, the working row, the hidden
thinking label — in the fullscreen and inline REPLs, and as no-ops where no terminal is drawn."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pi_core.modes.interactive.sanitize import keep_style
from pi_core.runtime.ui import THEMES, HeadlessUI, Theme
from pi_core.testing import LoopbackLLMServer, Text, Thinking, Turn


def test_theme_colours_as_escapes_and_hex() -> None:
    dark, light = Theme("dark"), Theme("light")
    assert Theme("no-such-theme").name == "dark"
    assert dark.color("accent") != light.color("accent")
    assert set(THEMES["dark"]) == set(THEMES["light"])
    red = dark.fg("error", "bad")
    assert red.startswith("\x1b[38;2;") and red.endswith("bad\x1b[39m")
    assert dark.bold("b") == "\x1b[1mb\x1b[22m"
    assert dark.color("unknown-name") == dark.color("text")


def test_keep_style_keeps_colour_and_drops_the_rest() -> None:
    styled = Theme().fg("accent", "ok") + "\x1b]0;title\x07\x1b[2J!"
    kept = keep_style(styled)
    assert "\x1b[38;2;" in kept and "\x1b[39m" in kept
    assert "\x1b]" not in kept and "\x1b[2J" not in kept and kept.endswith("ok\x1b[39m!")


def test_headless_ui_has_the_same_members_doing_nothing() -> None:
    ui = HeadlessUI()
    assert ui.theme.name == "dark"
    ui.set_working_message("x")
    ui.set_working_visible(False)
    ui.set_hidden_thinking_label("y")


async def test_fullscreen_statuses_keep_their_colours_and_the_working_row_follows_the_plugin(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("slow " * 100, chunks=100)], delay=0.03))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    ui = mode.ui
    (mode.host.session.settings.settings.__dict__)["theme"] = "light"
    assert ui.theme.name == "light"
    ui.set_status("build", ui.theme.fg("success", "BUILD-OK") + "\x1b]0;x\x07")
    footer = mode._footer()
    coloured = "".join(text for style, text, *_ in footer if THEMES["light"]["success"] in style)
    assert coloured == "BUILD-OK", footer
    assert "\x1b" not in json.dumps([text for _, text, *_ in footer])
    ui.set_working_message("Thinking deeply")
    await repl.submit("go")
    await repl.until(lambda: mode.busy)
    await repl.until(lambda: "Thinking deeply" in "".join(t for _, t, *_ in mode._status_row()))
    ui.set_working_visible(False)
    assert "Thinking deeply" not in "".join(t for _, t, *_ in mode._status_row())
    await repl.idle(15)
    await repl.quit()


async def test_hidden_thinking_label_is_the_plugins(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(Turn(blocks=[Thinking("secret pondering"), Text("the answer")]))
    repl = await repl_factory()
    await repl.wait_idle_editor()  # start-up sets hide_thinking from the settings
    repl.mode.renderer.hide_thinking = True
    repl.mode.ui.set_hidden_thinking_label("Reasoning (hidden)")
    await repl.submit("think")
    await repl.wait_for("the answer")
    assert "Reasoning (hidden)" in repl.output and "secret pondering" not in repl.output
    await repl.idle()
    await repl.quit()
