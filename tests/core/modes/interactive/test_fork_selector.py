"""The /fork selector: pi's rows, the newest message first highlighted, keys through a pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from pi_core.modes.interactive.fork_selector import ForkSelector, fit
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

UP, DOWN, ENTER, ESC, PAGE_UP = "\x1b[A", "\x1b[B", "\r", "\x1b", "\x1b[5~"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


async def choose(pipe: PipeInput, keys: str, messages: list[str]) -> int | None:
    selector = ForkSelector(messages)
    task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
    await asyncio.sleep(0.05)
    pipe.send_text(keys)
    return await asyncio.wait_for(task, 5)


def test_rows_as_pi_draws_them() -> None:
    lines = "".join(text for _, text, *_ in ForkSelector(["first\nline", "second"]).fragments()).splitlines()
    assert lines[1:3] == [
        " Fork from Message",
        " Pick one of your messages: a new session starts with this branch up to it",
    ]
    assert lines[6:12] == ["  first line", "  Message 1 of 2", "", "› second", "  Message 2 of 2", ""]


def test_a_long_list_scrolls_and_shows_where_it_is() -> None:
    selector = ForkSelector([f"message {n}" for n in range(25)])
    lines = "".join(text for _, text, *_ in selector.fragments()).splitlines()
    assert "› message 24" in lines and "  message 14" not in lines and "  (25/25)" in lines


async def test_keys(pipe: PipeInput) -> None:
    messages = ["one", "two", "three"]
    assert await choose(pipe, ENTER, messages) == 2  # the newest first
    assert await choose(pipe, UP + UP + ENTER, messages) == 0
    assert await choose(pipe, DOWN + ENTER, messages) == 0  # wraps to the top
    assert await choose(pipe, PAGE_UP + ENTER, messages) == 0
    assert await choose(pipe, ESC, messages) is None


def test_fit() -> None:
    assert fit("short", 10) == "short"
    assert fit("a longer message", 10) == "a longe..."
