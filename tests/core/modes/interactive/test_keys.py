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


@pytest.mark.parametrize(
    ("key", "typed"),
    [
        ("alt+p", "\x1bp"),
        ("ctrl+alt+p", "\x1b\x10"),
        ("alt+up", "\x1b\x1b[A"),
        ("ctrl+shift+left", "\x1b[1;6D"),
    ],
)
def test_shortcuts_fire_on_the_bytes_a_terminal_sends(key: str, typed: str) -> None:
    """What xterm-like terminals send for the combination reaches the plugin's binding."""
    from prompt_toolkit.input.vt100_parser import Vt100Parser
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.key_binding.key_processor import KeyPress

    sequence = to_prompt_toolkit(key)
    assert sequence is not None
    bindings = KeyBindings()
    bindings.add(*sequence)(lambda event: None)
    presses: list[KeyPress] = []
    parser = Vt100Parser(presses.append)
    parser.feed(typed)
    parser.flush()
    assert bindings.get_bindings_for_keys(tuple(press.key for press in presses)), presses
