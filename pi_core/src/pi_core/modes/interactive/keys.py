"""pi's key names (``ctrl+x``, ``alt+enter``, ``shift+tab``, ``f5``) → prompt-toolkit key sequences.

A plain terminal cannot report some combinations (Shift+Enter, Ctrl+Shift+O, Super+K): it sends
Enter and Ctrl+O for the first two and nothing for the third. Terminals with extended key reports
do — the kitty keyboard protocol's ``CSI code ; modifiers u`` and xterm's modifyOtherKeys
``CSI 27 ; modifiers ; code ~`` — and :func:`extended_sequence` teaches prompt-toolkit's input
parser those reports of a key, as one of prompt-toolkit's keys that stand for nothing else here.
The REPL asks the terminal to switch them on (:mod:`.keyboard_protocol`).
"""

from __future__ import annotations

from prompt_toolkit.input import ansi_escape_sequences, vt100_parser
from prompt_toolkit.keys import Keys

_NAMED = {
    "enter": "enter",
    "return": "enter",
    "tab": "tab",
    "escape": "escape",
    "esc": "escape",
    "space": "space",
    "backspace": "backspace",
    "delete": "delete",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    "home": "home",
    "end": "end",
    "pageup": "pageup",
    "pagedown": "pagedown",
    "insert": "insert",
}


def to_prompt_toolkit(key: str) -> tuple[str, ...] | None:
    """A plugin shortcut's key sequence; ``None`` when a terminal cannot report it, when it is a
    bare key (it would take a character away from typing) or one the REPL itself needs."""
    sequence = key_sequence(key)
    if sequence is None or sequence in RESERVED:
        return None
    if len(sequence) == 1 and sequence[0] in _NAMED.values():
        return None  # a bare Tab, arrow or Backspace belongs to editing
    return sequence


def key_sequence(key: str) -> tuple[str, ...] | None:
    """The prompt-toolkit key sequence for ``key`` (pi's names), or ``None`` when a plain terminal
    cannot report that combination. Bare named keys (``escape``, ``tab``, ``f5``) are allowed."""
    text = key.strip().lower()
    if text.endswith("++"):
        parts = [*text[:-2].split("+"), "+"]
    else:
        parts = [part.strip() for part in text.split("+") if part.strip()]
    if not parts:
        return None
    *modifiers, base = parts
    mods = set(modifiers)
    if not mods <= {"ctrl", "alt", "shift"}:
        return None  # super, or not a modifier at all
    base = _NAMED.get(base, base)
    if len(base) > 1 and base not in _NAMED.values() and not (base[0] == "f" and base[1:].isdigit()):
        return None
    if "shift" in mods:
        # Terminals report shift only with tab, the arrows, Home/End, Delete and the page keys
        # (plus those with ctrl).
        if base == "tab" and mods == {"shift"}:
            return ("s-tab",)
        if base in _SHIFTABLE:
            name = ("c-s-" if "ctrl" in mods else "s-") + base
            # prompt-toolkit 3.0.53 names xterm's Ctrl+Shift+Up (ESC [1;6A) c-s-down and the
            # other way round.
            name = {"c-s-up": "c-s-down", "c-s-down": "c-s-up"}.get(name, name)
            return ("escape", name) if "alt" in mods else (name,)
        return None
    if "ctrl" in mods:
        if (len(base) == 1 and base.isascii() and base.isalpha()) or base in _CTRL_NAMED:
            name = f"c-{base}"
        elif base in _CTRL_SYMBOLS:
            name = _CTRL_SYMBOLS[base]
        else:
            return None
    elif "alt" in mods or (base[0] == "f" and base[1:].isdigit()) or base in _NAMED.values():
        name = base
    else:
        return None  # a bare character: typing needs it
    return ("escape", name) if "alt" in mods else (name,)


_SHIFTABLE = ("up", "down", "left", "right", "home", "end", "delete", "pageup", "pagedown")
_CTRL_NAMED = ("up", "down", "left", "right", "home", "end", "delete", "pageup", "pagedown", "space")
#: The control characters a terminal sends for ctrl with a symbol (xterm: Ctrl+- is 0x1f).
_CTRL_SYMBOLS = {"]": "c-]", "\\": "c-\\", "-": "c-_", "_": "c-_", "^": "c-^", "@": "c-@"}


#: Keys the REPL itself needs (send, abort, quit, follow-up).
RESERVED = {("enter",), ("c-c",), ("c-d",), ("escape",), ("escape", "enter"), ("c-j",)}


#: prompt-toolkit's Ctrl+Shift+F1…F12 (xterm's ``ESC [1;6P`` …), which pi's key names cannot
#: express: each stands for one combination only extended key reports carry (its own reports then
#: do nothing).
_SPARE_KEYS = [getattr(Keys, f"ControlF{number}") for number in range(13, 25)]
_EXTENDED: dict[tuple[frozenset[str], str], Keys] = {}
_CODES = {"enter": 13, "tab": 9, "space": 32, "backspace": 127, "escape": 27}
_MODIFIER_BITS = {"shift": 1, "alt": 2, "ctrl": 4, "super": 8}


def extended_sequence(key: str) -> tuple[str, ...] | None:
    """The key sequence the extended reports of ``key`` are parsed into, for a key a plain
    terminal cannot report (a letter, digit, symbol, Enter, Tab, Space, Backspace or Esc with
    Shift, Super or Ctrl+Shift); ``None`` for other keys, or when the spare keys are all taken."""
    if key_sequence(key) is not None:
        return None
    text = key.strip().lower()
    parts = [*text[:-2].split("+"), "+"] if text.endswith("++") else text.split("+")
    *modifiers, base = parts
    mods = frozenset(modifiers)
    if not mods or len(mods) != len(modifiers) or not mods <= set(_MODIFIER_BITS):
        return None
    base = {"esc": "escape", "return": "enter"}.get(base, base)
    if base in _CODES:
        codes = {_CODES[base]}
    elif len(base) == 1 and base.isascii() and base.isprintable() and base != " ":
        codes = {ord(base), ord(base.upper())}  # kitty sends the key's own code, xterm the shifted one
    else:
        return None
    spare = _EXTENDED.get((mods, base))
    if spare is None:
        if not _SPARE_KEYS:
            return None
        spare = _SPARE_KEYS.pop(0)
        table = ansi_escape_sequences.ANSI_SEQUENCES
        for sequence, meaning in list(table.items()):
            if meaning == spare:
                table[sequence] = Keys.Ignore
        flags = 1 + sum(_MODIFIER_BITS[name] for name in mods)
        for code in codes:
            table[f"\x1b[{code};{flags}u"] = spare
            table[f"\x1b[27;{flags};{code}~"] = spare
        vt100_parser._IS_PREFIX_OF_LONGER_MATCH_CACHE.clear()  # prefixes of the new reports
        _EXTENDED[(mods, base)] = spare
    return (spare.value,)
