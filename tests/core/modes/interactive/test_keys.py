from __future__ import annotations

from typing import Any

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


@pytest.mark.parametrize(
    ("key", "reports", "plain"),
    [
        ("shift+ctrl+o", ("\x1b[111;6u", "\x1b[27;6;79~", "\x1b[27;6;111~"), "\x0f"),
        ("shift+enter", ("\x1b[13;2u", "\x1b[27;2;13~"), "\r"),
        ("super+k", ("\x1b[107;9u",), "k"),
        ("ctrl+1", ("\x1b[49;5u",), "1"),
    ],
)
def test_extended_key_reports_reach_keys_a_plain_terminal_cannot_send(
    key: str, reports: tuple[str, ...], plain: str
) -> None:
    """The kitty protocol's and xterm's modifyOtherKeys reports of the key trigger its binding;
    what a plain terminal sends for it does not."""
    from pi_core.modes.interactive.keys import extended_sequence, key_sequence
    from prompt_toolkit.input.vt100_parser import Vt100Parser
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.key_binding.key_processor import KeyPress

    assert key_sequence(key) is None
    sequence = extended_sequence(key)
    assert sequence is not None and extended_sequence(key) == sequence  # one spare key per key
    bindings = KeyBindings()
    bindings.add(*sequence)(lambda event: None)

    def parsed(typed: str) -> tuple[Any, ...]:
        presses: list[KeyPress] = []
        parser = Vt100Parser(presses.append)
        parser.feed(typed)
        parser.flush()
        return tuple(press.key for press in presses)

    for typed in reports:
        assert bindings.get_bindings_for_keys(parsed(typed)), typed
    assert not bindings.get_bindings_for_keys(parsed(plain))
    assert extended_sequence("ctrl+o") is None and extended_sequence("shift+up") is None
