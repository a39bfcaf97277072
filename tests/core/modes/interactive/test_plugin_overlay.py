"""``ctx.ui.custom`` with pi's four factory arguments (the ``keybindings`` a component tests keys
with) and ``overlay=True``, which floats the component over the live fullscreen transcript."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.modes.interactive.custom import ComponentKeys, wants_keybindings
from pi_core.testing import LoopbackLLMServer, Text, Turn

PLUGIN = """
from pi_core import hookimpl


class Chooser:
    def __init__(self, keybindings, done):
        self.keys, self.done, self.seen = keybindings, done, []

    def render(self, width):
        return [f"CHOOSER width={width} seen={''.join(self.seen)}"]

    def handle_input(self, data):
        if self.keys.matches(data, "tui.select.confirm"):
            self.done("confirmed:" + "".join(self.seen))
        elif self.keys.matches(data, "tui.select.cancel"):
            self.done("cancelled")
        else:
            self.seen.append(data if data.isprintable() else "?")


async def choose(args, ctx):
    value = await ctx.ui.custom(
        lambda tui, theme, keybindings, done: Chooser(keybindings, done), overlay=args == "float"
    )
    ctx.ui.notify(f"CHOSE {value}")


@hookimpl
def register_commands(register):
    register("choose", choose, description="a component testing keys by action")
"""

MODES = [pytest.param(False, id="regular"), pytest.param(True, id="fullscreen")]


def _plugin(tmp_path: Path) -> str:
    path = tmp_path / "chooser.py"
    path.write_text(PLUGIN)
    return str(path)


@pytest.mark.parametrize("fullscreen", MODES)
async def test_a_component_made_with_keybindings_tests_keys_by_action(
    repl_factory: Callable[..., Any], tmp_path: Path, fullscreen: bool
) -> None:
    (tmp_path / "agent").mkdir(exist_ok=True)
    (tmp_path / "agent" / "keybindings.json").write_text(json.dumps({"tui.select.confirm": ["ctrl+y"]}))
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=fullscreen)
    await repl.submit("/choose")
    await repl.in_component()
    repl.send("ab\r\x19")  # Enter is no longer confirm: Ctrl+Y is (keybindings.json)
    await repl.wait_for("CHOSE confirmed:ab?")  # Enter was an ordinary key
    await repl.submit("/choose")
    await repl.in_component()
    repl.send("\x1b")
    await repl.wait_for("CHOSE cancelled")
    assert await repl.quit() == 0


async def test_an_overlay_floats_over_the_live_transcript_until_done(
    repl_factory: Callable[..., Any], tmp_path: Path, pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("streamed under the overlay " * 20, chunks=40)], delay=0.02))
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=True)
    mode: Any = repl.mode
    await repl.submit("a question")
    await repl.until(lambda: mode.busy)
    await repl.submit("/choose float")
    await repl.until(lambda: mode._overlays == 1)
    assert mode._dialogs == 0 and mode._app.is_running  # the application goes on drawing
    await repl.wait_for("streamed under the overlay", 10)
    repl.send("xy")
    await repl.until(lambda: "seen=xy" in _floating_text(mode))
    repl.send("\r")
    await repl.wait_for("CHOSE confirmed:xy")
    await repl.until(lambda: mode._overlays == 0)
    assert len(mode._root.floats) == 1  # only the completion menu is left
    assert mode._app.layout.has_focus(mode._buffer)
    await repl.idle(15)
    await repl.submit("/choose float")
    await repl.until(lambda: mode._overlays == 1)
    repl.send("\x03")  # Ctrl+C is the component's cancel, not the REPL's
    await repl.wait_for("CHOSE cancelled")
    assert await repl.quit() == 0


async def test_a_component_in_the_editor_place_stays_live_in_fullscreen(
    repl_factory: Callable[..., Any], tmp_path: Path, pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("streamed above the component " * 20, chunks=40)], delay=0.02))
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=True)
    mode: Any = repl.mode
    await repl.submit("a question")
    await repl.until(lambda: mode.busy)
    await repl.submit("/choose")
    await repl.until(lambda: len(mode._in_place) == 1)
    assert mode._dialogs == 0 and mode._app.is_running  # no snapshot: the application draws on
    await repl.wait_for("streamed above the component", 10)
    repl.send("xy")
    await repl.until(lambda: "seen=xy" in _text_of(mode._in_place[-1]))
    repl.send("\r")
    await repl.wait_for("CHOSE confirmed:xy")
    await repl.until(lambda: not mode._in_place)
    assert mode._app.layout.has_focus(mode._buffer)
    assert await repl.quit() == 0


def _floating_text(mode: Any) -> str:
    return _text_of(mode._root.floats[-1].content)


def _text_of(shown: Any) -> str:
    from prompt_toolkit.layout import walk

    texts: list[str] = []
    for container in walk(shown):
        control = getattr(container, "content", None)
        if control is not None and hasattr(control, "create_content"):
            content = control.create_content(60, 5)
            texts.extend("".join(t for _, t, *_ in content.get_line(i)) for i in range(content.line_count))
    return "\n".join(texts)


def test_keys_are_matched_by_action_and_factories_by_arity() -> None:
    keys = ComponentKeys({"tui.select.up": ["ctrl+k"]})
    assert keys.matches("\r", "tui.select.confirm") and keys.matches("\x1b", "tui.select.cancel")
    assert keys.matches("\x03", "tui.select.cancel") and not keys.matches("x", "tui.select.cancel")
    assert keys.matches("\x0b", "tui.select.up") and not keys.matches("\x1b[A", "tui.select.up")
    assert keys.matches("\x1b[B", "tui.select.down") and keys.matches("\x1b[6~", "tui.select.pageDown")
    assert keys.get_keys("tui.select.cancel") == ["escape", "ctrl+c"] and keys.get_keys("nope") == []
    assert keys.matches("\x0f", "app.tools.expand") is False  # only ids it was given
    assert ComponentKeys({"app.tools.expand": ["ctrl+o"]}).matches("\x0f", "app.tools.expand")
    newline = ComponentKeys({"tui.input.newLine": ["shift+enter"]})
    assert newline.matches("\x1b[13;2u", "tui.input.newLine") and not newline.matches(
        "\r", "tui.input.newLine"
    )
    assert wants_keybindings(lambda tui, theme, keybindings, done: None)
    assert wants_keybindings(lambda *parts: None)
    assert not wants_keybindings(lambda tui, theme, done: None)
