"""/settings → Theme's list: pi's rows (names, what system and automatic mean), the preview as
the highlight moves, keys through a pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from pi_core.modes.interactive.theme_picker import ThemeList
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

UP, DOWN, ENTER, ESC = "\x1b[A", "\x1b[B", "\r", "\x1b"
NAMES = ["system", "automatic", "dark", "light"]


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


def test_rows_as_pis_theme_list_draws_them() -> None:
    selector = ThemeList("Theme", "What it is for.", NAMES, "dark", lambda name: None)
    assert "".join(text for _, text, *_ in selector.fragments()).splitlines() == [
        "─" * 80,
        "Theme",
        "",
        "What it is for.",
        "",
        "    system     Colours taken from the terminal's own",
        "    automatic  One theme while the terminal is light, another while it is dark",
        "→ ✓ dark",
        "    light",
        "",
        "  Enter picks · Esc goes back",
        "─" * 80,
    ]


async def test_moving_previews_each_theme_and_enter_or_esc_answers(pipe: PipeInput) -> None:
    seen: list[str] = []

    async def run(keys: str) -> str | None:
        selector = ThemeList("Theme", "", NAMES, "dark", seen.append)
        task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
        await asyncio.sleep(0.05)
        pipe.send_text(keys)
        return await asyncio.wait_for(task, 5)

    assert await run(DOWN + ENTER) == "light"
    assert await run(DOWN + DOWN + ENTER) == "system"  # wraps to the top, as pi's list
    assert await run(UP + ESC) is None
    assert seen == ["light", "light", "system", "automatic"]
