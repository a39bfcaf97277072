"""``fullscreenCopyOnSelect``: on (pi's default) a drag is copied as it ends; off, the selection
stays drawn, scrolls with its lines, and Ctrl+X copies it instead of the last answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.modes.interactive import clipboard
from pi_core.modes.interactive.fullscreen import FullscreenMode
from pi_core.testing import LoopbackLLMServer, text_turn


@pytest.fixture
def copied(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    texts: list[str] = []

    async def copy(text: str, terminal: Any = None) -> bool:
        texts.append(text)
        return True

    monkeypatch.setattr(clipboard, "copy_to_clipboard", copy)
    return texts


ANSWER = "\n\n".join(
    [*(f"filler {index}" for index in range(40)), "first row of the answer", "second row ends here"]
)


async def _drag_over_the_answer(repl: Any) -> tuple[FullscreenMode, int, int, str]:
    mode = repl.mode
    assert isinstance(mode, FullscreenMode)
    await repl.submit("select me")
    await repl.wait_for("second row ends here")
    await repl.idle()

    def shown() -> list[str]:
        return [row.rstrip() for row in mode.transcript.plain_rows(mode._shown_rows)]

    await repl.until(lambda: "second row ends here" in shown())
    rows = shown()
    top, bottom = rows.index("first row of the answer"), rows.index("second row ends here")
    expected = "\n".join(["row of the answer", *rows[top + 1 : bottom], "second row"])
    repl.send(f"\x1b[<0;7;{top + 1}M\x1b[<32;10;{bottom + 1}M")
    await repl.until(lambda: mode._select_to == (bottom, 9))
    repl.send(f"\x1b[<0;10;{bottom + 1}m")
    await repl.until(lambda: mode._select_from is None)
    return mode, top, bottom, expected


async def test_a_drag_is_copied_as_it_ends_by_default(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, copied: list[str]
) -> None:
    pi_llm_server.add(text_turn(ANSWER))
    repl = await repl_factory(fullscreen=True)
    mode, top, _, expected = await _drag_over_the_answer(repl)
    await repl.until(lambda: bool(copied))
    assert copied == [expected]
    assert mode.selected_span(top) is None  # nothing stays selected
    assert await repl.quit() == 0


async def test_with_copy_on_select_off_the_selection_stays_for_ctrl_x(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, copied: list[str], tmp_path: Path
) -> None:
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"fullscreenCopyOnSelect": False}))
    pi_llm_server.add(text_turn(ANSWER))
    repl = await repl_factory(fullscreen=True)
    mode, top, bottom, expected = await _drag_over_the_answer(repl)
    assert not copied
    assert mode.selected_span(top) == (6, None) and mode.selected_span(bottom) == (0, 10)
    line = mode._shown_rows[top]
    mode.scroll(1)  # the selection goes with its lines
    await repl.until(lambda: line not in mode._shown_rows[top : top + 1])
    moved = next(index for index, shown in enumerate(mode._shown_rows) if shown is line)
    assert mode.selected_span(moved) == (6, None)
    repl.send("\x18")  # Ctrl+X
    await repl.until(lambda: bool(copied))
    assert copied == [expected]
    lines = bottom - top + 1
    assert (
        mode._flash is not None
        and f"Copied {len(expected)} character(s) from {lines} line(s)" in mode._flash[1]
    )
    repl.send("\x1b[<0;3;2M\x1b[<0;3;2m")  # a click ends the selection
    await repl.until(lambda: mode._kept is None)
    assert mode.selected_span(moved) is None
    repl.send("\x18")  # now the last answer, as /copy
    await repl.until(lambda: len(copied) == 2)
    assert copied[1] == ANSWER
    assert await repl.quit() == 0
