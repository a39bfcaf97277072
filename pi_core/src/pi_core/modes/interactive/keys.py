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
    """The prompt-toolkit key sequence for ``key`` (pi's names), or ``None`` when a terminal
    cannot report that combination. Bare named keys (``escape``, ``tab``, ``f5``) are allowed."""
    parts = [part.strip().lower() for part in key.split("+") if part.strip()]
    if not parts:
        return None
    *modifiers, base = parts
    mods = set(modifiers)
    if not mods <= {"ctrl", "alt", "shift"}:
        return None
    base = _NAMED.get(base, base)
    if len(base) > 1 and base not in _NAMED.values() and not (base[0] == "f" and base[1:].isdigit()):
        return None
    if "shift" in mods:
        # Terminals report shift only with tab and the arrows (plus ctrl+shift+arrows).
        if base == "tab" and mods == {"shift"}:
            return ("s-tab",)
        if base in ("up", "down", "left", "right", "home", "end"):
            name = ("c-s-" if "ctrl" in mods else "s-") + base
            return ("escape", name) if "alt" in mods else (name,)
        return None
    if "ctrl" in mods:
        if (len(base) == 1 and base.isalpha()) or base in ("up", "down", "left", "right", "home", "end"):
            name = f"c-{base}"
        elif base == "space":
            name = "c-space"
        else:
            return None
    elif "alt" in mods or (base[0] == "f" and base[1:].isdigit()) or base in _NAMED.values():
        name = base
    else:
        return None  # a bare character: typing needs it
    return ("escape", name) if "alt" in mods else (name,)


#: Keys the REPL itself needs (send, abort, quit, follow-up).
RESERVED = {("enter",), ("c-c",), ("c-d",), ("escape",), ("escape", "enter"), ("c-j",)}
