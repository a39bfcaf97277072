"""The /scoped-models selector: pi's toggles, bulk keys, reordering and footer, through a pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from pi_core.ai.provider import Model
from pi_core.modes.interactive.scoped_models_selector import ScopedModelsSelector, toggled, with_all, without
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

UP, DOWN, ENTER, ESC, ALT_UP = "\x1b[A", "\x1b[B", "\r", "\x1b", "\x1b\x1b[A"
CTRL_A, CTRL_C, CTRL_P, CTRL_S, CTRL_X = "\x01", "\x03", "\x10", "\x13", "\x18"
EVERY = ["a/one", "a/two", "b/three"]


def model(full: str) -> Model:
    provider, model_id = full.split("/")
    return Model(id=model_id, provider=provider, api="openai-completions", base_url="http://x")


def test_the_enabled_list_rules() -> None:
    assert toggled(None, EVERY, "a/two") == ["a/one", "b/three"]
    assert toggled(["a/one", "b/three"], EVERY, "a/two") is None  # every model again: all
    assert without(None, EVERY) == [] and without(None, EVERY, ["a/one"]) == ["a/two", "b/three"]
    assert with_all(["b/three"], EVERY, ["a/one"]) == ["b/three", "a/one"]


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


async def test_keys_change_the_cycle_at_once_and_ctrl_s_saves(pipe: PipeInput) -> None:
    changes: list[list[str] | None] = []
    saves: list[list[str] | None] = []
    selector = ScopedModelsSelector(
        [model(full) for full in EVERY], ["b/three", "a/one"], on_change=changes.append, on_save=saves.append
    )
    lines = "".join(text for _, text, *_ in selector.fragments()).splitlines()
    assert lines[2:4] == ["Model Configuration", "Session-only. Ctrl+S to save to settings."]
    assert lines[7:10] == ["→ ✓ three [b]", "  ✓ one [a]", "    two [a]"]  # the cycle's order first
    assert "2/3 enabled" in lines[-2]
    task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
    await asyncio.sleep(0.05)
    for keys in (DOWN + ALT_UP, ENTER, CTRL_P, CTRL_X, CTRL_A, "two" + CTRL_X, CTRL_C, CTRL_S, ESC):
        pipe.send_text(keys)
        await asyncio.sleep(0.05)
    assert await asyncio.wait_for(task, 5) is None
    assert changes == [
        ["a/one", "b/three"],  # Alt+Up: one before three
        ["b/three"],  # Enter on "one": out of the cycle (the highlight stays on the top row, three)
        [],  # Ctrl+P on "three": its provider's models are all in, so out they go
        [],  # Ctrl+X: none
        None,  # Ctrl+A: all
        ["a/one", "b/three"],  # Ctrl+X on what "two" finds
    ]
    assert saves == [["a/one", "b/three"]]


async def test_the_search_field_edits_and_ctrl_a_still_enables_all(pipe: PipeInput) -> None:
    changes: list[list[str] | None] = []
    selector = ScopedModelsSelector(
        [model(full) for full in EVERY], ["a/one"], on_change=changes.append, on_save=lambda ids: None
    )
    task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
    await asyncio.sleep(0.05)
    for keys in ("tw", "\x1b[D", "x", "\x1b[3~", "\x1bb", "\x1b[3~"):  # Left, Delete, Alt+B
        pipe.send_text(keys)
        await asyncio.sleep(0.05)
    assert selector.query == "x" and selector.search.cursor == 0
    pipe.send_text("\x7f\x05" + "\x7fo")  # Backspace at the start: nothing; End; Backspace; "o"
    await asyncio.sleep(0.05)
    assert selector.query == "o" and selector.shown == ["a/one", "a/two"]
    pipe.send_text(CTRL_A)  # the selector's key (enable what the search shows), not the field's Home
    await asyncio.sleep(0.05)
    assert changes == [["a/one", "a/two"]]
    pipe.send_text(CTRL_C)  # clears the search, then closes
    await asyncio.sleep(0.05)
    assert selector.query == "" and selector.search.text == "" and not task.done()
    pipe.send_text(CTRL_C)
    assert await asyncio.wait_for(task, 5) is None
