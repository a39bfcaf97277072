"""pi's key names (``ctrl+x``, ``alt+enter``, ``shift+tab``, ``f5``) → prompt-toolkit key sequences."""

from __future__ import annotations

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
