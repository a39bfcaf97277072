"""The REPL draws in the theme: its own lines change colour with it (the fullscreen transcript is
laid out again), a broken or missing theme is said once and ``system``'s is used, ``--use-theme``
holds for the run only, and the active user theme is read again when its file changes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.modes.interactive import theme_watch
from pi_core.runtime import themes
from pi_core.runtime.ui import Theme
from rich.text import Text


@pytest.fixture(autouse=True)
def _truecolor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_TRUE_COLOR", "1")


def _theme_file(path: Path, name: str, **colors: object) -> Path:
    dark = json.loads((themes.BUILTIN_DIR / "dark.json").read_text(encoding="utf-8"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**dark, "name": name, "colors": {**dark["colors"], **colors}}))
    return path


async def test_fullscreen_lays_old_output_out_again_in_the_new_theme(
    repl_factory: Callable[..., Any],
) -> None:
    repl = await repl_factory(fullscreen=True)
    await repl.wait_idle_editor()
    mode = repl.mode
    mode.console.print(Text("CAREFUL-NOW", style="pi.warning"))
    block = mode.transcript.blocks[-1]

    def colour_of_block() -> str:
        row = next(row for row in mode.transcript.lines(block, 80) if "CAREFUL" in "".join(f[1] for f in row))
        return next(style for style, text, *_ in row if text.strip())  # its first character's

    assert "ansiyellow" in colour_of_block()  # system's, from a silent terminal: its own yellow
    assert mode.ui.set_theme("light").success
    assert Theme("light").color("warning") in colour_of_block()
    assert mode.styles.toolkit is not None and mode._app is not None
    assert mode._app.color_depth.name == "DEPTH_24_BIT"
    await repl.quit()


async def test_regular_mode_prints_in_the_new_theme_from_now_on(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    await repl.wait_idle_editor()
    console = repl.mode.console
    assert console.get_style("pi.error").color.name == "color(1)"  # type: ignore[union-attr]  # system's
    assert repl.mode.ui.set_theme("light").success
    assert console.get_style("pi.error").color.name == Theme("light").color("error")  # type: ignore[union-attr]
    assert console.get_style("markdown.h2").color.name == Theme("light").color("mdHeading")  # type: ignore[union-attr]
    await repl.quit()


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_a_missing_or_broken_theme_is_said_once_and_system_is_used(
    fullscreen: bool, repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLORFGBG", "0;15")
    broken = tmp_path / "agent" / "themes" / "rusty.json"
    broken.parent.mkdir(parents=True)
    broken.write_text(json.dumps({"name": "rusty", "colors": {"accent": "okhsl(10 200% 50%)"}}))
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"theme": "nowhere"}))
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    ui = repl.mode.ui
    assert ui.theme.name == "system" and ui.theme.appearance == "light"  # on this light terminal
    for _ in range(3):
        _ = ui.theme
    await repl.until(lambda: "Theme not found: nowhere; using the system theme" in _text(repl))
    assert _text(repl).count("Theme not found: nowhere") == 1
    assert any("rusty.json: invalid theme" in d.message for d in repl.mode.host.diagnostics)
    result = ui.set_theme("rusty")
    assert not result.success and "rusty.json: invalid theme: missing colors" in (result.error or "")
    await repl.quit()


def _text(repl: Any) -> str:
    mode = repl.mode
    if hasattr(mode, "transcript"):
        return "\n".join(block.source_text() or "" for block in mode.transcript.blocks)
    return str(repl.output)


async def test_use_theme_holds_until_a_theme_is_chosen(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"theme": "dark"}))
    repl = await repl_factory()
    ui = repl.mode.ui
    ui.theme_for_run = "light/dark"
    await repl.wait_idle_editor()
    assert ui.theme.name == "dark"  # a dark terminal: the pair's second
    ui.theme_for_run = "light"
    assert ui.theme.name == "light"
    assert json.loads((tmp_path / "agent" / "settings.json").read_text())["theme"] == "dark"
    assert ui.set_theme("dark").success and ui.theme.name == "dark" and ui.theme_for_run is None
    await repl.quit()


async def test_the_active_user_theme_is_read_again_when_its_file_changes(
    repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(theme_watch, "POLL_INTERVAL", 0.05)
    path = _theme_file(tmp_path / "agent" / "themes" / "ocean.json", "ocean", accent="#0088ff")
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"theme": "ocean"}))
    repl = await repl_factory(fullscreen=True)
    await repl.wait_idle_editor()
    ui = repl.mode.ui
    assert ui.theme.color("accent") == "#0088ff"
    await asyncio.sleep(0.2)  # the watcher has looked at the file once
    _theme_file(path, "ocean", accent="okhsl(20 72% 67%)")
    await repl.until(lambda: ui.theme.color("accent") != "#0088ff", 5)
    assert ui.theme.color("accent") == Theme("dark").color("error")  # okhsl(20 72% 67%) is dark's red
    assert repl.mode.styles.theme is ui.theme  # the REPL draws with it
    path.write_text('{"name": "ocean", "colors": {')  # half written: the last good colours stay
    await asyncio.sleep(0.4)
    assert ui.theme.color("accent") == Theme("dark").color("error")
    await repl.quit()


async def test_the_watcher_ignores_builtin_themes_and_other_files(tmp_path: Path) -> None:
    assert theme_watch.watched_file(str(tmp_path), "dark") is None
    assert theme_watch.watched_file(str(tmp_path), "system") is None
    assert theme_watch.watched_file(str(tmp_path), "ocean") == tmp_path / "themes" / "ocean.json"
