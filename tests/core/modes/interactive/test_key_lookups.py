"""The printable keys' bindings are looked up once the editor is up, before anyone presses them:
a key's first press while an answer streams then finds its bindings cached."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pi_core.modes.interactive.custom import PRINTABLE_KEYS, TappedKeyProcessor


def _cached(processor: TappedKeyProcessor) -> set[tuple[str, ...]]:
    merged = processor._bindings._key_bindings  # the focused window's bindings, merged
    return set(merged._bindings2._get_bindings_for_keys_cache._data)


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_printable_keys_are_looked_up_ahead(repl_factory: Callable[..., Any], fullscreen: bool) -> None:
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    processor = repl.mode._editor_app().key_processor
    assert isinstance(processor, TappedKeyProcessor)
    await repl.until(lambda: {(key,) for key in PRINTABLE_KEYS} <= _cached(processor))
    # A key found so is the key as pressed: it types.
    repl.send("Qz")
    await repl.until(lambda: repl.mode.get_editor_text() == "Qz")
    repl.mode.set_editor_text("")
    assert await repl.quit() == 0
