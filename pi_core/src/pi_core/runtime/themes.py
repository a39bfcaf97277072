"""Themes by name: the built-in ``dark`` and ``light`` palettes and theme files (pi's JSON format).

A theme file has a ``name``, optional ``vars`` (colours several roles share; they may name other
vars) and ``colors`` by role (``accent``, ``error``, ``toolTitle``, …). A colour is ``#rgb`` or
``#rrggbb``, a 256-colour index, a var's name, or ``""`` for the terminal's default — here the
built-in palette's colour of that role for the file's ``appearance``. pi's perceptual forms
(``oklch(…)``, ``okhsl(…)``) are not read yet: a file using them is reported with its colour.

The ``theme`` setting names one theme, or a ``light/dark`` pair chosen by the terminal's
background as ``COLORFGBG`` reports it (dark when it says nothing); ``system`` is the same choice
between the built-in palettes, since the terminal's own colours are not queried.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pi_core.runtime.ui import THEMES, Theme, ThemeInfo

#: Theme names that need no file.
BUILTIN = ("dark", "light")
SYSTEM = "system"

_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


class ThemeError(ValueError):
    """A theme file that cannot be used (the message names the file and the problem)."""


def terminal_is_light(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``COLORFGBG`` (``fg;bg``) reports a light background (7 or 9–15)."""
    value = (environ if environ is not None else os.environ).get("COLORFGBG", "")
    background = value.split(";")[-1].strip()
    return background.isdigit() and (int(background) == 7 or 9 <= int(background) <= 15)


def resolve_setting(setting: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The theme name the ``theme`` setting asks for now (``light/dark`` picks one of the pair)."""
    if not setting or setting == SYSTEM:
        return "light" if terminal_is_light(environ) else "dark"
    if setting.count("/") == 1:
        light, dark = (part.strip() for part in setting.split("/"))
        return light if terminal_is_light(environ) else dark
    return setting


def theme_files(paths: Sequence[str]) -> dict[str, str]:
    """The theme files among ``paths`` by the name inside each (the first file of a name wins;
    files that cannot be read or named are left out)."""
    found: dict[str, str] = {}
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
        except (OSError, ValueError):
            continue
        name = data.get("name") if isinstance(data, dict) else None
        if isinstance(name, str) and name and name not in found and name not in (*BUILTIN, SYSTEM):
            found[name] = path
    return found


def available(paths: Sequence[str]) -> list[ThemeInfo]:
    """Every theme by name, as ``get_all_themes`` lists them: ``system`` first, then by name."""
    infos = [ThemeInfo(SYSTEM), *(ThemeInfo(name) for name in BUILTIN)]
    infos += [ThemeInfo(name, path) for name, path in theme_files(paths).items()]
    return [infos[0], *sorted(infos[1:], key=lambda info: info.name)]


def load(name: str, paths: Sequence[str]) -> Theme:
    """The theme called ``name``. Raises :class:`ThemeError` when there is none or it is broken."""
    if name == SYSTEM:
        return Theme(resolve_setting(SYSTEM))
    if name in BUILTIN:
        return Theme(name)
    path = theme_files(paths).get(name)
    if path is None:
        raise ThemeError(f"Theme not found: {name}")
    return load_file(path)


def load_file(path: str) -> Theme:
    """A theme file as a :class:`Theme`. Raises :class:`ThemeError` naming what is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as error:
        raise ThemeError(f"{path}: cannot read the theme: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ThemeError(f"{path}: a theme is an object with a name")
    colors, variables = data.get("colors"), data.get("vars", {})
    if not isinstance(colors, dict) or not isinstance(variables, dict):
        raise ThemeError(f"{path}: colors (and vars, if given) must be objects")
    appearance = data.get("appearance", "dark")
    base = THEMES["light" if appearance == "light" else "dark"]
    resolved = dict(base)
    for role, value in colors.items():
        colour = _colour(value, variables, path, role, set())
        resolved[role] = colour if colour is not None else base.get(role, base["text"])
    return Theme(str(data["name"]), resolved, path=path)


def _colour(value: Any, variables: dict[str, Any], path: str, role: str, seen: set[str]) -> str | None:
    """One colour as ``#rrggbb`` (``None``: the terminal's default)."""
    if isinstance(value, bool):
        raise ThemeError(f"{path}: {role}: {value!r} is not a colour")
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ThemeError(f"{path}: {role}: {value} is not a 256-colour index")
        return _xterm(value)
    if not isinstance(value, str):
        raise ThemeError(f"{path}: {role}: {value!r} is not a colour")
    if value == "":
        return None
    if _HEX.fullmatch(value):
        digits = value[1:]
        return "#" + ("".join(d * 2 for d in digits) if len(digits) == 3 else digits).lower()
    if value in variables:
        if value in seen:
            raise ThemeError(f"{path}: {role}: the var {value} refers back to itself")
        return _colour(variables[value], variables, path, role, {*seen, value})
    raise ThemeError(
        f"{path}: {role}: {value!r} is not a colour this version reads (#rrggbb, 0-255 or a var)"
    )


def _xterm(index: int) -> str:
    """The usual xterm colour of a 256-colour index."""
    basic = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
        (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
        (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]  # fmt: skip
    if index < 16:
        red, green, blue = basic[index]
    elif index < 232:
        steps = (0, 95, 135, 175, 215, 255)
        cube = index - 16
        red, green, blue = steps[cube // 36], steps[(cube // 6) % 6], steps[cube % 6]
    else:
        red = green = blue = 8 + (index - 232) * 10
    return f"#{red:02x}{green:02x}{blue:02x}"
