"""A one-line question in the regular REPL, through a prompt-toolkit pipe: a paste loses its line
breaks (its lines run together, tabs become four spaces), as in pi's input dialog, so it can
neither submit early nor grow the question; Ctrl+J answers, as Enter does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


async def test_a_pasted_paragraph_joins_into_one_line_of_an_input(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    await repl.wait_idle_editor()
    typed = asyncio.ensure_future(repl.mode.ui.input("Your name"))
    await repl.in_dialog()
    repl.send("\x1b[200~first line\r\nsecond\tline\rthird\x1b[201~ end\n")
    assert await asyncio.wait_for(typed, 5) == "first linesecond    linethird end"
    key = asyncio.ensure_future(repl.mode.ui.input("API key", secret=True))
    await repl.in_dialog()
    repl.send("\x1b[200~sk-123\n\x1b[201~\r")  # a key copied with its newline
    assert await asyncio.wait_for(key, 5) == "sk-123"
    await repl.quit()
