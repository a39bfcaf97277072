from __future__ import annotations

import pytest
from pi_core.modes.interactive.keys import to_prompt_toolkit


@pytest.mark.parametrize(
    ("key", "sequence"),
    [
        ("ctrl+x", ("c-x",)),
        ("Ctrl+K", ("c-k",)),
        ("alt+x", ("escape", "x")),
        ("alt+up", ("escape", "up")),
        ("shift+tab", ("s-tab",)),
        ("ctrl+shift+left", ("c-s-left",)),
        ("f5", ("f5",)),
        ("ctrl+space", ("c-space",)),
    ],
)
def test_usable_keys(key: str, sequence: tuple[str, ...]) -> None:
    assert to_prompt_toolkit(key) == sequence


@pytest.mark.parametrize(
    "key",
    ["ctrl+shift+p", "x", "hyper+x", "", "ctrl+c", "enter", "alt+enter", "escape", "ctrl+f5", "shift+a"],
)
def test_unusable_or_reserved_keys(key: str) -> None:
    assert to_prompt_toolkit(key) is None
