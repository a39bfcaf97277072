"""``ctx.ui.set_editor_component``: a plugin's editor in the editor's place, in both REPL modes —
a ``CustomEditor`` subclass (a vim-like modal editor typing into the built-in one), a component
with its own text that submits through ``on_submit``, getting the factory back, restoring the
built-in editor, and editors that raise."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.modes.interactive.editor_slot import builtin_rows
from pi_core.plugins.editor import CustomEditor
from pi_core.testing import LoopbackLLMServer, text_turn

PLUGIN = """
from pi_core import hookimpl
from pi_core.plugins.editor import CustomEditor

NORMAL_KEYS = {"h": "\\x1b[D", "l": "\\x1b[C", "x": "\\x1b[3~", "0": "\\x01", "$": "\\x05"}


class Modal(CustomEditor):
    def __init__(self, tui, theme, keybindings):
        super().__init__(tui, theme, keybindings)
        self.mode = "insert"

    def handle_input(self, data):
        if data == "\\x1b":
            if self.mode == "insert":
                self.mode = "normal"
            else:
                super().handle_input(data)
            return
        if self.mode == "insert":
            super().handle_input(data)
        elif data == "i":
            self.mode = "insert"
        elif data in NORMAL_KEYS:
            super().handle_input(NORMAL_KEYS[data])
        elif len(data) == 1 and data.isprintable():
            return
        else:
            super().handle_input(data)

    def render(self, width):
        rows = super().render(width)
        rows[-1] += " NORMAL" if self.mode == "normal" else " INSERT"
        return rows


class Own:
    def __init__(self):
        self.text, self.on_submit = "", None

    def render(self, width):
        return [f"OWN[{self.text}]"]

    def handle_input(self, data):
        if data == "\\r":
            text, self.text = self.text, ""
            self.on_submit(text)
        elif data.isprintable():
            self.text += data

    def get_text(self):
        return self.text

    def set_text(self, text):
        self.text = text


class Broken(CustomEditor):
    def render(self, width):
        raise RuntimeError("editor drawing went wrong")


class Grumpy(CustomEditor):
    def handle_input(self, data):
        if data == "!":
            raise ValueError("no exclamations")
        super().handle_input(data)


FACTORIES = {
    "modal": lambda tui, theme, keys: Modal(tui, theme, keys),
    "own": lambda tui, theme, keys: Own(),
    "broken": lambda tui, theme, keys: Broken(tui, theme, keys),
    "grumpy": lambda tui, theme, keys: Grumpy(tui, theme, keys),
}


def editor(args, ctx):
    ctx.ui.set_editor_component(FACTORIES.get(args.strip()))
    factory = ctx.ui.get_editor_component()
    ctx.ui.notify(f"EDITOR {args.strip() or 'builtin'} {factory is FACTORIES.get(args.strip())}")


@hookimpl
def register_commands(register):
    register("editor", editor, description="choose the editor")
"""

MODES = [pytest.param(False, id="regular"), pytest.param(True, id="fullscreen")]


def _plugin(tmp_path: Path) -> str:
    path = tmp_path / "editors.py"
    path.write_text(PLUGIN)
    return str(path)


def _drawn(mode: Any) -> str:
    drawn = mode.editor_slot.drawn(80)
    assert drawn is not None
    return "\n".join("".join(text for _, text, *_ in line) for line in drawn[0])


@pytest.mark.parametrize("fullscreen", MODES)
async def test_a_modal_editor_types_into_the_builtin_one_and_submits(
    repl_factory: Callable[..., Any], tmp_path: Path, pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    pi_llm_server.add(text_turn("answered"))
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=fullscreen)
    mode: Any = repl.mode
    await repl.submit("/editor modal")
    await repl.wait_for("EDITOR modal True")
    await repl.wait_idle_editor()
    repl.send("hello")
    await repl.until(lambda: mode.editor_buffer().text == "hello")
    assert "INSERT" in _drawn(mode) and "> hello" in _drawn(mode)
    repl.send("\x1b")  # insert → normal: Esc is the editor's, not an abort
    await repl.until(lambda: "NORMAL" in _drawn(mode))
    repl.send("hhx")  # two left, delete: "helo"
    await repl.until(lambda: mode.editor_buffer().text == "helo")
    repl.send("zq")  # printable keys do nothing in normal mode
    repl.send("i!")
    await repl.until(lambda: mode.editor_buffer().text == "hel!o")
    assert mode.get_editor_text() == "hel!o"
    repl.send("\r")  # Enter goes through to the built-in editor: submitted as typed
    await repl.until(lambda: len(pi_llm_server.requests) == 1)
    assert "hel!o" in str(pi_llm_server.requests[0].body)
    await repl.idle()
    await repl.submit("/editor")  # the built-in editor again
    await repl.wait_for("EDITOR builtin True")
    assert mode.editor_slot.component is None and not mode.editor_slot.draws_rows()
    assert await repl.quit() == 0


@pytest.mark.parametrize("fullscreen", MODES)
async def test_an_editor_of_its_own_keeps_its_text_and_submits_with_on_submit(
    repl_factory: Callable[..., Any], tmp_path: Path, pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    pi_llm_server.add(text_turn("answered"))
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=fullscreen)
    mode: Any = repl.mode
    await repl.submit("/editor own")
    await repl.wait_for("EDITOR own True")
    await repl.until(lambda: _drawn(mode) == "OWN[]")  # the editor was emptied by the submit
    mode.set_editor_text("draft ")
    assert _drawn(mode) == "OWN[draft ]"
    repl.send("one")
    await repl.until(lambda: _drawn(mode) == "OWN[draft one]")
    assert mode.get_editor_text() == "draft one"
    assert mode.editor_buffer().text == ""  # the built-in buffer saw none of it
    repl.send("\r")
    await repl.until(lambda: len(pi_llm_server.requests) == 1)
    assert "draft one" in str(pi_llm_server.requests[0].body)
    await repl.idle()
    mode.set_editor_text("left over")
    mode.ui.set_editor_component(None)  # the built-in editor gets the plugin editor's text
    assert mode.editor_slot.factory is None and mode.get_editor_text() == "left over"
    mode.set_editor_text("")
    assert await repl.quit() == 0


@pytest.mark.parametrize("fullscreen", MODES)
async def test_an_editor_that_raises_is_reported_and_the_builtin_one_comes_back(
    repl_factory: Callable[..., Any], tmp_path: Path, fullscreen: bool
) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=fullscreen)
    mode: Any = repl.mode
    await repl.submit("/editor broken")
    await repl.wait_for("editor drawing went wrong", 10)
    await repl.until(lambda: mode.editor_slot.component is None)
    await repl.submit("/editor grumpy")
    await repl.wait_for("EDITOR grumpy True")
    await repl.wait_idle_editor()
    repl.send("ab!c")
    await repl.wait_for("no exclamations", 10)
    await repl.until(lambda: mode.editor_buffer().text == "ab!c")  # no key was lost
    assert mode.editor_slot.component is None
    mode.set_editor_text("")
    assert "Traceback" not in repl.output
    assert await repl.quit() == 0


def test_the_builtin_rows_show_the_prompt_and_the_cursor() -> None:
    from prompt_toolkit.buffer import Buffer

    class Mode:
        busy = False

        def __init__(self, buffer: Buffer) -> None:
            self.buffer = buffer

        def editor_buffer(self) -> Buffer:
            return self.buffer

        def _prompt_message(self) -> str:
            return "> "

    buffer = Buffer(multiline=True)
    buffer.text = "ab\ncd"
    buffer.cursor_position = 1
    assert builtin_rows(Mode(buffer)) == ["> a\x1b[7mb\x1b[27m", "  cd"]  # type: ignore[arg-type]
    buffer.cursor_position = 5
    assert builtin_rows(Mode(buffer)) == ["> ab", "  cd\x1b[7m \x1b[27m"]  # type: ignore[arg-type]
    plain = CustomEditor(object(), None, None)  # no REPL behind it: inert, not broken
    plain.handle_input("x")
    assert plain.render(10) == [] and plain.get_text() == ""
