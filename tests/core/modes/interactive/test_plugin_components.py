"""Plugin components in both REPL modes: ``ctx.ui.custom`` (prompt-toolkit containers and
pi-shaped ``render``/``handle_input`` objects), custom header and footer, ``on_terminal_input``,
``paste_to_editor`` and autocomplete providers; and how the same calls degrade without a terminal."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.modes.rpc.ui import RpcExtensionUI
from pi_core.runtime.ui import HeadlessUI
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

ESC = "\x1b"

PLUGIN = """
from pi_core import hookimpl
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import FormattedTextControl, Window


async def pick_box(args, ctx):
    def make(tui, theme, done):
        keys = KeyBindings()
        keys.add("enter")(lambda event: done("BOX-ENTER"))
        keys.add("escape", eager=True)(lambda event: done(None))
        text = f"BOX-DRAWN {tui.columns}x{tui.rows} press Enter"
        return Window(FormattedTextControl(text, key_bindings=keys, focusable=True), height=1)

    value = await ctx.ui.custom(make)
    ctx.ui.notify(f"BOX-RESULT {value}")


class Counter:
    def __init__(self, theme, done):
        self.typed = ""
        self.theme = theme
        self.done = done

    def render(self, width):
        return [self.theme.fg("accent", "COUNTER typed=" + self.typed), "\\x1b]0;EVIL\\x07second row"]

    def handle_input(self, data):
        if data == "\\r":
            self.done(self.typed)
        else:
            self.typed += data


async def counter(args, ctx):
    value = await ctx.ui.custom(lambda tui, theme, done: Counter(theme, done))
    ctx.ui.notify(f"COUNTER-RESULT {value}")


class Broken:
    def render(self, width):
        raise RuntimeError("render exploded")

    def handle_input(self, data):
        pass


async def broken(args, ctx):
    value = await ctx.ui.custom(lambda tui, theme, done: Broken())
    ctx.ui.notify(f"BROKEN-RESULT {value}")


async def broken_box(args, ctx):
    def make(tui, theme, done):
        def text():
            raise ValueError("container exploded")

        return Window(FormattedTextControl(text, focusable=True))

    value = await ctx.ui.custom(make)
    ctx.ui.notify(f"BROKEN-BOX-RESULT {value}")


class Rows:
    def __init__(self, rows):
        self.rows = rows

    def render(self, width):
        return self.rows


class Footer:
    def __init__(self, data):
        self.data = data

    def render(self, width):
        return [f"MY-FOOTER statuses={sorted(self.data.statuses)}"]


async def paste(args, ctx):
    ctx.ui.paste_to_editor(args)


async def say(args, ctx):
    ctx.ui.notify("SAY " + args)


async def footer_off(args, ctx):
    ctx.ui.set_footer(None)


class Issues(Completer):
    def __init__(self, current):
        self.current = current

    def get_completions(self, document, event):
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("#"):
            yield Completion("#2983", start_position=-len(word), display_meta="autocomplete API")
        else:
            yield from self.current.get_completions(document, event)


def taps(data):
    if data == "~":
        return {"consume": True}
    if data == "%":
        return {"data": "PCT"}
    return None


@hookimpl
def session_start(event, ctx):
    ctx.ui.set_header(lambda tui, theme: Rows([theme.bold("MY-HEADER"), "second header row"]))
    ctx.ui.set_footer(lambda tui, theme, data: Footer(data))
    ctx.ui.add_autocomplete_provider(Issues)
    ctx.ui.on_terminal_input(taps)


@hookimpl
def register_commands(register):
    register("box", pick_box, description="a container")
    register("counter", counter, description="a pi-shaped component")
    register("broken", broken, description="raises while drawn")
    register("broken-box", broken_box, description="a container that raises")
    register("paste", paste, description="paste the arguments")
    register("say", say, description="say the arguments")
    register("footer-off", footer_off, description="built-in footer again")
"""


def _plugin(tmp_path: Path) -> str:
    path = tmp_path / "components.py"
    path.write_text(PLUGIN)
    return str(path)


MODES = [pytest.param(False, id="inline"), pytest.param(True, id="fullscreen")]


@pytest.mark.parametrize("fullscreen", MODES)
async def test_a_container_component_takes_the_editor_place_until_done(
    repl_factory: Callable[..., Any], tmp_path: Path, fullscreen: bool
) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=fullscreen)
    repl.mode.set_editor_text("kept draft")
    await repl.wait_idle_editor()
    repl.send("\x15/box\r")  # Ctrl+U: the draft goes, the command is typed
    await repl.in_component()
    repl.send("\r")
    await repl.wait_for("BOX-RESULT BOX-ENTER")
    await repl.submit("/box")
    await repl.in_component()
    repl.send(ESC)
    await repl.wait_for("BOX-RESULT None")
    assert await repl.quit() == 0


@pytest.mark.parametrize("fullscreen", MODES)
async def test_a_pi_shaped_component_gets_each_key_and_returns_its_value(
    repl_factory: Callable[..., Any], tmp_path: Path, fullscreen: bool
) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=fullscreen)
    await repl.submit("/counter")
    await repl.in_component()
    repl.send("abc\r")
    await repl.wait_for("COUNTER-RESULT abc")
    assert await repl.quit() == 0


@pytest.mark.parametrize("fullscreen", MODES)
@pytest.mark.parametrize("command", ["broken", "broken-box"])
async def test_a_component_that_raises_is_reported_and_the_repl_goes_on(
    repl_factory: Callable[..., Any], tmp_path: Path, fullscreen: bool, command: str
) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=fullscreen)
    await repl.submit(f"/{command}")
    await repl.wait_for(f"{command.upper()}-RESULT None")
    assert "exploded" in repl.output and "Extension error (components" in repl.output
    await repl.submit("/say still here")
    await repl.wait_for("SAY still here")
    assert await repl.quit() == 0


@pytest.mark.parametrize("fullscreen", MODES)
async def test_header_footer_autocomplete_and_terminal_input_from_session_start(
    repl_factory: Callable[..., Any], tmp_path: Path, fullscreen: bool
) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=fullscreen)
    await repl.wait_idle_editor()
    mode = repl.mode
    out = repl.output
    assert "MY-HEADER" in out and "second header row" in out
    assert "/help for commands" not in out  # the built-in header was replaced
    repl.mode.ui.set_status("zeta", "on")
    footer = mode._footer() if fullscreen else None  # type: ignore[attr-defined]
    shown = "".join(text for _, text, *_ in footer) if footer is not None else mode._toolbar() or ""
    assert "MY-FOOTER statuses=['zeta']" in shown
    # the plugin's completer first, the built-in one under it
    offered = [c.text for c in mode.completer.get_completions(Document("fix #29"), CompleteEvent())]
    assert offered == ["#2983"]
    offered = [c.text for c in mode.completer.get_completions(Document("/foot"), CompleteEvent())]
    assert offered == ["footer-off"]
    # ~ is swallowed, % becomes PCT before the editor sees them
    repl.send("/say a%~b\r")
    await repl.wait_for("SAY aPCTb")
    await repl.submit("/footer-off")
    await repl.until(lambda: mode.ui.footer is None)
    assert await repl.quit() == 0


@pytest.mark.parametrize("fullscreen", MODES)
async def test_paste_to_editor_inserts_at_the_cursor_without_submitting(
    repl_factory: Callable[..., Any], tmp_path: Path, fullscreen: bool
) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=fullscreen)
    await repl.submit("/paste one")
    await repl.until(lambda: repl.mode.get_editor_text() == "one")
    repl.mode.ui.paste_to_editor(" two\r\nthree")
    assert repl.mode.get_editor_text() == "one two\nthree"
    repl.mode.set_editor_text("")
    assert await repl.quit() == 0


async def test_without_a_terminal_the_component_calls_degrade() -> None:
    made: list[Any] = []
    headless = HeadlessUI()
    assert await headless.custom(lambda *a: made.append(a)) is None
    headless.set_header(lambda *a: made.append(a))
    headless.set_footer(lambda *a: made.append(a))
    headless.add_autocomplete_provider(lambda current: made.append(current))
    headless.on_terminal_input(lambda data: None)()
    headless.paste_to_editor("x")
    assert made == []  # no factory is ever called
    sent: list[Any] = []
    rpc = RpcExtensionUI(sent.append)
    assert await asyncio.wait_for(rpc.custom(lambda *a: made.append(a)), 1) is None
    rpc.set_header(lambda *a: None)
    rpc.set_footer(lambda *a: None)
    rpc.add_autocomplete_provider(lambda current: current)
    rpc.on_terminal_input(lambda data: None)()
    assert sent == []
    rpc.paste_to_editor("pasted")
    assert [(r.method, r.text) for r in sent] == [("set_editor_text", "pasted")]
    assert made == []
