"""The /settings list: pi's two columns, the description and keys, values changed in place."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from pi_core.modes.interactive.settings_menu import Setting, SettingsSelector
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

UP, DOWN, ENTER, ESC, BACKSPACE = "\x1b[A", "\x1b[B", "\r", "\x1b", "\x7f"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


async def no_dialog() -> None:
    return None


def settings(store: dict[str, Any]) -> list[Setting]:
    def writer(key: str) -> Any:
        return lambda value: store.__setitem__(key, value)

    return [
        Setting("Auto-compact", lambda: store["compact"], None, writer("compact"), description="Shrinks it"),
        Setting("Steering mode", lambda: store["steer"], lambda: ("one-at-a-time", "all"), writer("steer")),
        Setting("Theme", lambda: store["theme"], None, writer("theme"), no_dialog, description="Colours"),
    ]


def screen(selector: SettingsSelector) -> list[str]:
    return "".join(text for _, text, *_ in selector.fragments()).splitlines()


def test_rows_as_pis_settings_list_draws_them() -> None:
    store = {"compact": True, "steer": "all", "theme": "dark"}
    assert screen(SettingsSelector(settings(store))) == [
        "─" * 80,
        ">  ",  # the cursor: a reversed space
        "",
        "→ Auto-compact   true",
        "  Steering mode  all",
        "  Theme          dark",
        "",
        "  Shrinks it",
        "",
        "  Type to search · Enter/Space changes it · Esc closes",
        "─" * 80,
    ]


def test_ten_rows_show_with_the_position_and_a_search_that_matches_nothing() -> None:
    store: dict[str, Any] = {}
    items = [Setting(f"Setting {n}", lambda: False, None, lambda value: None) for n in range(1, 14)]
    lines = screen(SettingsSelector(items, row=12))
    assert "→ Setting 13  false" in lines and "  Setting 3   false" not in lines
    assert "  (13/13)" in lines
    lines = screen(SettingsSelector(settings(store), query="zzz"))
    assert lines[1].startswith("> zzz") and "  No setting matches" in lines


async def run(pipe: PipeInput, keys: str, store: dict[str, Any], **options: Any) -> int | None:
    selector = SettingsSelector(settings(store), **options)
    task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
    await asyncio.sleep(0.05)
    pipe.send_text(keys)
    return await asyncio.wait_for(task, 5)


async def test_enter_and_space_change_a_setting_in_place(pipe: PipeInput) -> None:
    store = {"compact": True, "steer": "one-at-a-time", "theme": "dark"}
    assert await run(pipe, ENTER + DOWN + " " + ESC, store) is None
    assert store == {"compact": False, "steer": "all", "theme": "dark"}
    assert await run(pipe, DOWN + ENTER + ENTER + ENTER + ESC, store) is None  # around and on
    assert store["steer"] == "one-at-a-time"


async def test_typing_searches_and_a_row_with_a_dialog_finishes_the_list(pipe: PipeInput) -> None:
    store = {"compact": True, "steer": "all", "theme": "dark"}
    assert await run(pipe, "them" + ENTER, store) == 2
    assert await run(pipe, UP + " ", store) == 2  # Up wraps to the last row
    # A space typed into the search is text, not a change.
    assert await run(pipe, "st" + " " + BACKSPACE + ESC, store) is None
    assert store["steer"] == "all"
    assert await run(pipe, ENTER, store, row=2) == 2  # opened again on the row it left
