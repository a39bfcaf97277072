"""``ctx.ui`` beyond dialogs: the theme, styled statuses and widgets, the working row, the hidden
thinking label — in the fullscreen and inline REPLs, and as no-ops where no terminal is drawn."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.modes.interactive.sanitize import keep_style
from pi_core.modes.interactive.ui import SPINNER_FRAMES
from pi_core.runtime import themes
from pi_core.runtime.ui import HeadlessUI, Theme
from pi_core.testing import LoopbackLLMServer, Text, Thinking, Turn


@pytest.fixture(autouse=True)
def _truecolor(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read 24-bit escapes: the REPL's terminal takes them whatever runs the tests."""
    monkeypatch.setenv("PI_TRUE_COLOR", "1")


def test_theme_colours_as_escapes_and_hex() -> None:
    dark, light = Theme("dark"), Theme("light")
    assert Theme("no-such-theme").name == "dark"
    assert dark.color("accent") != light.color("accent")
    assert set(dark.values) == set(light.values) == set(themes.TOKENS)
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
    assert ui.theme.name == "system"  # without a theme setting to read: pi's default setting
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
    coloured = "".join(text for style, text, *_ in footer if Theme("light").color("success") in style)
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


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_working_indicator_frames_turn_before_the_message(
    fullscreen: bool, repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("slow " * 60, chunks=60)], delay=0.03))
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"theme": "dark"}))
    repl = await repl_factory(fullscreen=fullscreen)
    mode, ui = repl.mode, repl.mode.ui
    accent = Theme("dark").color("accent")

    def row() -> str:
        """The working row; fullscreen's accent-coloured text gets the reset escape, as inline."""
        if fullscreen:
            return "".join(f"{t}\x1b[39m" if accent in style else t for style, t, *_ in mode._status_row())
        return mode._toolbar() or ""

    await repl.wait_idle_editor()
    ui.set_working_indicator([ui.theme.fg("accent", "A"), "B\x1b]0;x\x07"], interval_ms=40)
    await repl.submit("go")
    await repl.until(lambda: mode.busy)
    seen: set[str] = set()
    await repl.until(lambda: seen.update({row()}) or any("B working…" in r for r in seen), 3)
    await repl.until(lambda: seen.update({row()}) or any("A\x1b[39m working…" in r for r in seen), 3)
    assert not any("\x1b]" in r for r in seen)
    ui.set_working_indicator([])
    assert "A\x1b[39m working…" not in row() and "B working…" not in row() and "working…" in row()
    ui.set_working_indicator(["*"])  # one frame stands still
    assert "* working…" in row()
    ui.set_working_indicator()  # pi's spinner again
    assert "* working…" not in row() and "working…" in row()
    assert any(f"{frame}\x1b[39m working…" in row() for frame in SPINNER_FRAMES)
    await repl.idle(15)
    await repl.quit()
    assert ui._ticker is None


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_the_working_row_turns_pis_braille_spinner_by_default(
    fullscreen: bool, repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("slow " * 60, chunks=60)], delay=0.03))
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"theme": "dark"}))
    repl = await repl_factory(fullscreen=fullscreen)
    mode = repl.mode
    accent = Theme("dark").color("accent")
    red, green, blue = (int(accent[i : i + 2], 16) for i in (1, 3, 5))

    def frame() -> str | None:
        """The spinner frame on the working row, checked to be in the accent colour."""
        if fullscreen:
            parts = mode._status_row()
            if "working…" not in "".join(text for _, text, *_ in parts):
                return None
            frames = [text for style, text, *_ in parts if text in SPINNER_FRAMES and accent in style]
        else:
            shown = mode._toolbar() or ""
            prefix = f"\x1b[38;2;{red};{green};{blue}m"
            frames = [f for f in SPINNER_FRAMES if f"{prefix}{f}\x1b[39m working…" in shown]
        return frames[0] if frames else None

    await repl.submit("go")
    await repl.until(lambda: mode.busy)
    seen: set[str | None] = set()
    await repl.until(lambda: seen.add(frame()) or len(seen - {None}) >= 3, 5)  # it turns by itself
    await repl.idle(15)
    assert frame() is None  # idle: no working row
    await repl.quit()


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_tools_expanded_is_the_ctrl_o_state(fullscreen: bool, repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    ui = repl.mode.ui
    assert ui.get_tools_expanded() is False
    ui.set_tools_expanded(True)
    assert ui.get_tools_expanded() is True and repl.mode.renderer.expand_tools
    ui.set_tools_expanded(True)  # no change: nothing toggles back
    assert ui.get_tools_expanded() is True
    ui.set_tools_expanded(False)
    assert ui.get_tools_expanded() is False
    await repl.quit()


def test_headless_ui_has_no_indicator_and_no_expanded_tools() -> None:
    ui = HeadlessUI()
    ui.set_working_indicator(["x"], interval_ms=10)
    ui.set_tools_expanded(True)
    assert ui.get_tools_expanded() is False


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_themes_are_listed_loaded_and_switched(
    fullscreen: bool, repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLORFGBG", "0;15")  # a light terminal
    themes_dir = tmp_path / "agent" / "themes"
    themes_dir.mkdir(parents=True)
    ocean = themes_dir / "ocean.json"
    dark = json.loads((themes.BUILTIN_DIR / "dark.json").read_text(encoding="utf-8"))
    ocean.write_text(json.dumps({**dark, "name": "ocean", "colors": {**dark["colors"], "accent": "#0088ff"}}))
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    ui = repl.mode.ui
    assert ui.theme.name == "system" and ui.theme.appearance == "light"  # no setting: the default
    listed = [(info.name, info.path) for info in ui.get_all_themes()]
    assert listed == [("system", None), ("dark", None), ("light", None), ("ocean", str(ocean))]
    loaded = ui.get_theme("ocean")
    assert loaded is not None and loaded.color("accent") == "#0088ff" and ui.theme.name == "system"
    assert ui.get_theme("nope") is None
    missing = ui.set_theme("nope")
    assert (missing.success, missing.error) == (False, "Theme not found: nope")
    switched = ui.set_theme("ocean")
    assert switched.success and switched.error is None and ui.theme.name == "ocean"
    saved = json.loads((tmp_path / "agent" / "settings.json").read_text())
    assert saved["theme"] == "ocean"
    ui.set_status("mark", ui.theme.fg("accent", "OCEAN"))
    if fullscreen:
        footer = repl.mode._footer()  # type: ignore[attr-defined]
        assert "".join(text for style, text, *_ in footer if "#0088ff" in style) == "OCEAN"
    else:
        assert "\x1b[38;2;0;136;255mOCEAN" in (repl.mode._toolbar() or "")
    assert ui.set_theme(Theme("dark")).success and ui.theme.name == "dark"  # this run only
    assert json.loads((tmp_path / "agent" / "settings.json").read_text())["theme"] == "ocean"
    assert ui.set_theme("dark/ocean").success and ui.theme.name == "dark"  # light terminal: first
    await repl.quit()


async def test_without_a_terminal_there_are_no_themes_to_switch() -> None:
    from pi_core.modes.rpc.ui import RpcExtensionUI

    for ui, error in ((HeadlessUI(), "UI not available"), (RpcExtensionUI(lambda request: None), None)):
        assert ui.get_all_themes() == [] and ui.get_theme("dark") is None
        result = ui.set_theme("light")
        assert not result.success
        assert result.error == (error or "Theme switching not supported in RPC mode")
        assert ui.theme.name == "system"
