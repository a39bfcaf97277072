"""The /thinking selector: pi's rows and hints, fuzzy search, keys through a pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pi_core.modes.interactive.completion import SlashCompleter
from pi_core.modes.interactive.thinking_selector import ThinkingList, ThinkingSelector, meaning
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

UP, DOWN, ENTER, ESC, BACKSPACE, CTRL_C, CTRL_S = "\x1b[A", "\x1b[B", "\r", "\x1b", "\x7f", "\x03", "\x13"
LEVELS = ["off", "minimal", "low", "medium", "high"]


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


def screen(selector: ThinkingSelector) -> list[str]:
    return "".join(text for _, text, *_ in selector.fragments()).splitlines()


async def run(selector: ThinkingSelector, pipe: PipeInput, keys: str) -> str | None:
    task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
    await asyncio.sleep(0.05)
    pipe.send_text(keys)
    result: str | None = await asyncio.wait_for(task, 5)
    return result


def test_rows_mark_the_level_in_use_and_the_default() -> None:
    selector = ThinkingSelector(ThinkingList(LEVELS, current="low", default="high"))
    lines = screen(selector)
    assert lines[0] == "─" * 80 and lines[-1] == "─" * 80
    assert lines[1:7] == ["", "Thinking Level", "", "Shift+Tab cycles thinking levels in-session", "", ">  "]
    rows = lines[8:13]
    assert rows[0] == "    off       " + meaning("off")
    assert rows[2] == "→ ✓ low       " + meaning("low")  # the level in use is highlighted first
    assert rows[4] == "    high      " + meaning("high") + " · default"
    assert "(~8k tokens)" in rows[3] and "(~16k tokens)" in rows[4]  # the default budgets
    assert lines[-2] == "  Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel"


def test_levels_without_a_budget_and_a_narrow_terminal() -> None:
    listed = ThinkingList(["off", "low", "medium", "high", "xhigh", "max"], current="max")
    assert listed.selected == "max"
    assert meaning("xhigh") and "tokens" not in meaning("max")
    selector = ThinkingSelector(listed)
    selector.width = lambda: 30  # type: ignore[method-assign]
    assert "→ ✓ max" in screen(selector) and "    medium" in screen(selector)  # no meanings


def test_search_keeps_the_highlight_while_it_is_shown() -> None:
    listed = ThinkingList(LEVELS, current="medium")
    listed.query = "16k"
    listed.refilter()
    assert listed.shown == ["high"] and listed.selected == "high"
    listed.query = "i"
    listed.refilter()
    assert "high" in listed.shown and listed.selected == "high"  # still shown: still highlighted
    listed.query = "nothing like it"
    listed.refilter()
    assert listed.shown == [] and listed.selected is None
    assert "  No matching levels" in screen(ThinkingSelector(listed))


async def test_enter_applies_and_ctrl_s_saves(pipe: PipeInput) -> None:
    for keys, level, as_default in ((DOWN + ENTER, "high", False), (UP + CTRL_S, "low", True)):
        selector = ThinkingSelector(ThinkingList(LEVELS, current="medium"))
        assert await run(selector, pipe, keys) == level
        assert selector.as_default is as_default


async def test_keys_wrap_search_and_cancel(pipe: PipeInput) -> None:
    selector = ThinkingSelector(ThinkingList(LEVELS, current="high"))
    assert await run(selector, pipe, DOWN + ENTER) == "off"  # Down from the last wraps
    selector = ThinkingSelector(ThinkingList(LEVELS, current="off"))
    assert await run(selector, pipe, "minx" + BACKSPACE + ENTER) == "minimal"
    for cancel in (ESC, CTRL_C):
        selector = ThinkingSelector(ThinkingList(LEVELS, current="off"))
        assert await run(selector, pipe, DOWN + cancel) is None
    selector = ThinkingSelector(ThinkingList(LEVELS, current="off"))
    task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
    await asyncio.sleep(0.05)
    pipe.send_text("zzz" + ENTER)  # nothing matches: Enter chooses nothing
    await asyncio.sleep(0.05)
    assert not task.done()
    pipe.send_text(ESC)
    assert await asyncio.wait_for(task, 5) is None


async def test_keybindings_json_rebinds_the_keys(pipe: PipeInput) -> None:
    keymap = {"app.thinking.save": ["ctrl+w"], "app.thinking.cycle": ["ctrl+t"]}
    keymap["tui.select.down"] = ["ctrl+j"]
    selector = ThinkingSelector(ThinkingList(LEVELS, current="off"), keymap=keymap)
    lines = screen(selector)
    assert "Ctrl+T cycles thinking levels in-session" in lines
    assert "  Enter to select · Ctrl+W to set as default · Escape/Ctrl+C to cancel" in lines
    assert await run(selector, pipe, "\x0a\x17") == "minimal"  # Ctrl+J: down; Ctrl+W: save
    assert selector.as_default


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_the_thinking_command(repl_factory: Callable[..., Any], fullscreen: bool) -> None:
    """``/thinking`` opens the selector on the model's levels; Enter applies for this session,
    Ctrl+S also saves ``defaultThinkingLevel``, Esc changes nothing; ``/thinking LEVEL`` takes
    one of the model's levels (any case) and completes them."""
    repl = await repl_factory(fullscreen=fullscreen)
    session = repl.mode.host.session
    await repl.submit("/thinking")  # fake-model has no reasoning: "off" alone, which Ctrl+S saves
    await repl.in_dialog()
    repl.send(CTRL_S)
    await repl.wait_for("Default thinking level: off")
    assert session.settings.settings.default_thinking_level == "off"
    await repl.submit("/model loop/other-model")
    await repl.wait_for("Model: loop/other-model")
    await repl.submit("/thinking")
    await repl.in_dialog()
    repl.send(DOWN + ENTER)
    await repl.wait_for("Thinking level: minimal")
    assert session.thinking_level == "minimal"
    assert session.settings.settings.default_thinking_level == "off"  # Enter: this session only
    await repl.submit("/thinking")
    await repl.in_dialog()
    repl.send(DOWN + ESC)
    await repl.wait_idle_editor()
    assert session.thinking_level == "minimal"
    await repl.submit("/thinking HIGH")
    await repl.wait_for("Thinking level: high")
    await repl.submit("/thinking xhigh")
    await repl.wait_for('Unknown thinking level "xhigh". Available levels: off, minimal, low, medium, high.')
    assert session.thinking_level == "high"
    completer = SlashCompleter(repl.mode)

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("/thinking ") == LEVELS
    assert complete("/thinking mi")[0] == "minimal" and "xhigh" not in complete("/thinking h")
    assert await repl.quit() == 0
