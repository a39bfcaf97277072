"""Themes by name: the built-in ``dark`` and ``light`` themes and theme files, in pi's JSON format.

A theme file has a ``name`` (no ``/``; ``system`` is reserved), an optional ``appearance``
(``dark``/``light``; otherwise judged from the lightness of its colours), optional ``vars``
(colours several roles share; they may name other vars), ``colors`` by role (every role of
:data:`TOKENS`; the five with a fallback may be left out) and optional ``export`` colours for
HTML export. A colour is anything :func:`pi_core.runtime.colors.parse` reads, a var's name, or
``""`` for the terminal's default colour. Any other key is an error, as in pi.

The ``theme`` setting names one theme, or a ``light/dark`` pair chosen by whether the terminal
is light or dark (:func:`pi_core.runtime.system_theme.appearance_now`: its reported background,
else its light/dark notification, else ``COLORFGBG``, else dark). ``system``, the default, is
made from the terminal's own colours (:mod:`pi_core.runtime.system_theme`).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pi_core.runtime import colors, system_theme
from pi_core.runtime.colors import Color, ColorError, ColorMode, color_mode

#: Theme names that need no file.
BUILTIN = ("dark", "light")
SYSTEM = system_theme.NAME
BUILTIN_DIR = Path(__file__).with_name("builtin_themes")

Slot = Literal["foreground", "background"]

#: pi's colour roles in its order: the slot each colours and, for the optional ones, the role
#: whose colour they take when a theme leaves them out.
TOKENS: dict[str, tuple[Slot, str | None]] = {
    **{name: ("foreground", None) for name in ("accent", "border", "borderAccent", "borderMuted")},
    **{name: ("foreground", None) for name in ("success", "error", "warning", "muted", "dim", "text")},
    "thinkingText": ("foreground", None),
    "scrollbarTrack": ("foreground", "muted"),
    "scrollbarThumb": ("foreground", "text"),
    "selectedBg": ("background", None),
    "searchMatchBg": ("background", "selectedBg"),
    "searchMatchText": ("foreground", "text"),
    "userMessageBg": ("background", None),
    "userMessageText": ("foreground", None),
    "customMessageBg": ("background", None),
    "customMessageText": ("foreground", None),
    "customMessageLabel": ("foreground", None),
    **{name: ("background", None) for name in ("toolPendingBg", "toolSuccessBg", "toolErrorBg")},
    "toolTitle": ("foreground", None),
    "toolOutput": ("foreground", None),
    **{
        f"md{part}": ("foreground", None)
        for part in (
            "Heading",
            "Link",
            "LinkUrl",
            "Code",
            "CodeBlock",
            "CodeBlockBorder",
            "Quote",
            "QuoteBorder",
            "Hr",
            "ListBullet",
        )
    },
    **{f"toolDiff{part}": ("foreground", None) for part in ("Added", "Removed", "Context")},
    **{f"syntax{part}": ("foreground", None) for part in system_theme.SYNTAX_PARTS},
    **{
        f"thinking{level}": ("foreground", None)
        for level in ("Off", "Minimal", "Low", "Medium", "High", "Xhigh")
    },
    "thinkingMax": ("foreground", "thinkingXhigh"),
    "bashMode": ("foreground", None),
}
_DEFAULT_BG = "\x1b[49m"
_EXPORT_KEYS = ("pageBg", "cardBg", "infoBg")
_TOP_LEVEL = ("$schema", "name", "appearance", "vars", "colors", "export")
#: The terminal's default colours where a concrete value is needed and the terminal did not say.
_GUESSED_DEFAULT = {
    "dark": (Color((0xE5, 0xE5, 0xE7)), Color((0, 0, 0))),
    "light": (Color((0, 0, 0)), Color((0xFF, 0xFF, 0xFF))),
}


class ThemeError(ValueError):
    """A theme that cannot be used (the message names the file and the problem)."""


@dataclass(frozen=True)
class ThemeInfo:
    """One theme ``get_all_themes`` lists: its name and its file (``None`` for a built-in one)."""

    name: str
    path: str | None = None


class Theme:
    """``ctx.ui.theme``: pi's colour roles as terminal escapes (``fg``/``bg``, made once per
    theme, so drawing with them is a lookup) and as ``#rrggbb`` (``color``).

    ``Theme(name)`` is a built-in theme (``dark`` for a name it does not know). With ``colors``
    (role → a colour value, ``""``/``None`` for the terminal's default) it is a theme of that name;
    roles it leaves out take the built-in dark theme's colour. ``mode`` is the terminal's colour
    depth (by default what :func:`pi_core.runtime.colors.color_mode` finds); roles in ``dim``
    are drawn faint (SGR 2) over their colour."""

    def __init__(
        self,
        name: str | None = None,
        colors: Mapping[str, Color | str | int | None] | None = None,
        *,
        path: str | None = None,
        appearance: str | None = None,
        mode: ColorMode | None = None,
        dim: Iterable[str] = (),
        export: Mapping[str, str] | None = None,
    ) -> None:
        if colors is None:
            self.name = name if name in BUILTIN else "dark"
            values, declared, export = _builtin_values(self.name)
        else:
            self.name = name or "custom"
            base, _, _ = _builtin_values("dark")
            values = {**base, **{role: _value(value) for role, value in colors.items()}}
            declared = appearance if appearance in ("dark", "light") else None
        self.path = path
        self.mode: ColorMode = mode or color_mode()
        #: Role → its colour (``None``: the terminal's default colour).
        self.values: dict[str, Color | None] = dict(values)
        self.appearance = declared or _detect_appearance(self.values) or system_theme.appearance_now()
        self.dim = frozenset(dim)
        #: The file's ``export`` colours for HTML export, as CSS values (``pageBg``, …; a role
        #: left out, or set to ``""``, is not here).
        self.export: dict[str, str] = dict(export or {})
        self._fg = {role: _escape(value, self.mode, background=False) for role, value in self.values.items()}
        for role in self.dim & self._fg.keys():
            self._fg[role] += "\x1b[2m"
        self._bg = {role: _escape(value, self.mode, background=True) for role, value in self.values.items()}

    def __repr__(self) -> str:
        return f"Theme({self.name!r}, mode={self.mode!r})"

    def shown(self, name: str) -> Color | None:
        """The colour the terminal shows for ``name`` (its palette entry on a 256-colour one;
        ``None``: the terminal's default)."""
        value = self.values.get(name, self.values.get("text"))
        return None if value is None else value.for_mode(self.mode)

    def slot(self, name: str) -> Slot:
        return TOKENS.get(name, ("foreground", None))[0]

    def color(self, name: str) -> str:
        """The colour ``name`` as ``#rrggbb`` (the theme's ``text`` for an unknown name). A role
        left to the terminal gets the default colour the terminal reported, or the usual one for
        the theme's appearance; a faint role, its colour 40% of the way to the background."""
        if name not in self.values:
            name = "text"
        value = self.values[name]
        foreground, background = self._defaults()
        if value is None:
            value = background if self.slot(name) == "background" else foreground
        if name in self.dim:
            return colors.mix(value.rgb, background.rgb, 0.4).hex
        return value.hex

    def _defaults(self) -> tuple[Color, Color]:
        """The terminal's default foreground and background, as reported or guessed."""
        guessed_fg, guessed_bg = _GUESSED_DEFAULT[self.appearance]
        reported = system_theme.reported()
        foreground = Color(reported.foreground) if reported.foreground else guessed_fg
        background = Color(reported.background) if reported.background else guessed_bg
        return foreground, background

    def fg(self, name: str, text: str) -> str:
        if name in self.dim:
            return f"{self._fg[name]}{text}\x1b[22;39m"
        return f"{self._fg.get(name) or self._fg['text']}{text}\x1b[39m"

    def bg(self, name: str, text: str) -> str:
        return f"{self._bg.get(name, _DEFAULT_BG)}{text}{_DEFAULT_BG}"

    def bold(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[22m"

    def italic(self, text: str) -> str:
        return f"\x1b[3m{text}\x1b[23m"

    def underline(self, text: str) -> str:
        return f"\x1b[4m{text}\x1b[24m"

    def inverse(self, text: str) -> str:
        return f"\x1b[7m{text}\x1b[27m"

    def strikethrough(self, text: str) -> str:
        return f"\x1b[9m{text}\x1b[29m"


def _value(value: Color | str | int | None) -> Color | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, Color) else colors.parse(value)


def _escape(value: Color | None, mode: ColorMode, *, background: bool) -> str:
    if value is None:
        return "\x1b[49m" if background else "\x1b[39m"
    return value.ansi(mode, background=background)


def _detect_appearance(values: Mapping[str, Color | None]) -> str | None:
    """Dark or light from the theme's own colours: backgrounds darker than the text make a dark
    theme (palette colours 0–15 are left out: the terminal chooses them)."""

    def lightness(slot: Slot) -> float | None:
        fixed = [
            colors.rgb_to_oklab(value.rgb)[0]
            for role, value in values.items()
            if value is not None and TOKENS.get(role, ("foreground", None))[0] == slot
            and (value.index is None or value.index >= 16)
        ]  # fmt: skip
        return sum(fixed) / len(fixed) if fixed else None

    foreground, background = lightness("foreground"), lightness("background")
    if foreground is not None and background is not None:
        return "dark" if background < foreground else "light"
    if background is not None:
        return "dark" if background < 0.5 else "light"
    if foreground is not None:
        return "dark" if foreground > 0.5 else "light"
    return None


@functools.cache
def _builtin_values(name: str) -> tuple[dict[str, Color | None], str | None, dict[str, str]]:
    path = BUILTIN_DIR / f"{name}.json"
    spec = _validated(json.loads(path.read_text(encoding="utf-8")), str(path))
    return _resolve(spec, str(path)), spec.get("appearance"), export_colours(spec)


def export_colours(spec: Mapping[str, Any]) -> dict[str, str]:
    """A theme file's ``export`` colours as CSS takes them, as pi hands them to its HTML export:
    vars followed, a palette index and ``okhsl(…)`` (which CSS lacks) as ``#rrggbb``, ``#…`` and
    ``oklch(…)`` as written, ``""`` left out. A var that is missing (or refers back to itself) or
    a colour that does not read: none at all."""
    variables: Mapping[str, Any] = spec.get("vars") or {}
    found: dict[str, str] = {}
    for key in _EXPORT_KEYS:
        value = (spec.get("export") or {}).get(key)
        seen: list[str] = []
        while isinstance(value, str) and value and not value.startswith("#") and not _is_function(value):
            if value in seen or value not in variables:
                return {}
            seen.append(value)
            value = variables[value]
        if value is None or value == "":
            continue
        try:
            if isinstance(value, int) or _is_function(value, "okhsl("):
                found[key] = colors.parse(value).hex
            else:
                found[key] = str(value)
        except ColorError:
            return {}
    return found


def _is_function(value: str, *names: str) -> bool:
    return value[:6].lower().startswith(names or ("oklch(", "okhsl("))


# --- the setting ----------------------------------------------------------------------------------


def terminal_is_light(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the terminal is light (:func:`pi_core.runtime.system_theme.appearance_now`)."""
    return system_theme.appearance_now(environ) == "light"


def parse_pair(setting: str | None) -> tuple[str, str] | None:
    """``light/dark`` as its two names (``None`` for anything else)."""
    if not setting or setting.count("/") != 1:
        return None
    light, dark = (part.strip() for part in setting.split("/"))
    return (light, dark) if light and dark else None


def resolve_setting(setting: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The theme name the ``theme`` setting asks for now (``light/dark`` picks one of the pair
    by the terminal; nothing or a malformed pair: ``system``)."""
    pair = parse_pair(setting)
    if pair is not None:
        return pair[0] if terminal_is_light(environ) else pair[1]
    if not setting or "/" in setting:
        return SYSTEM
    return setting


def setting_theme(
    setting: str | None, agent_dir: str | os.PathLike[str], mode: ColorMode | None = None
) -> Theme:
    """The theme the ``theme`` setting names, looked up as pi 1.6.0's print, JSON and RPC modes
    look it up — they load no theme resources: ``system``, a built-in theme, or the file
    ``<agent dir>/themes/NAME.json`` (found by its file name; the theme keeps the name inside
    it). Anything else gives ``system``: a ``light/dark`` pair, a theme only a project, a
    package, the ``themes`` setting or ``--theme`` has, a file that does not load. This is
    ``ctx.ui.theme`` there and the colours of RPC's ``export_html`` (the terminal is never asked)."""
    if setting and "/" not in setting:
        try:
            if setting == SYSTEM or setting in BUILTIN:
                return load(setting, (), mode)
            path = Path(agent_dir) / "themes" / f"{setting}.json"
            if path.is_file():
                return read_file(str(path), mode)
        except ThemeError:
            pass
    return system(mode)


def system(mode: ColorMode | None = None) -> Theme:
    """The ``system`` theme for what the terminal has reported so far (one object per answer,
    so that what is made from a theme once — its styles — is made once)."""
    generated = system_theme.current()
    depth = mode or color_mode()
    made = _SYSTEM_MADE.get((id(generated), depth))
    if made is None or made[0] is not generated:
        if len(_SYSTEM_MADE) > 8:
            _SYSTEM_MADE.clear()
        values = {role: value for role, value in generated.colors.items() if role in TOKENS}
        theme = Theme(SYSTEM, values, appearance=generated.appearance, mode=depth, dim=generated.dim)
        made = _SYSTEM_MADE[(id(generated), depth)] = (generated, theme)
    return made[1]


_SYSTEM_MADE: dict[tuple[int, ColorMode], tuple[system_theme.Generated, Theme]] = {}


# --- files ----------------------------------------------------------------------------------------


def _read(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except OSError as error:
        raise ThemeError(f"{path}: cannot read the theme: {error.strerror or error}") from None
    except ValueError as error:
        raise ThemeError(f"{path}: the theme is not valid JSON: {error}") from None
    return _validated(data, path)


def _validated(data: Any, path: str) -> dict[str, Any]:
    """``data`` when it is a theme pi accepts; otherwise :class:`ThemeError` with every problem."""
    if not isinstance(data, dict):
        raise ThemeError(f"{path}: a theme is a JSON object")
    problems: list[str] = []
    name = data.get("name")
    if not isinstance(name, str) or not name:
        problems.append("name must be a non-empty string")
    elif "/" in name:
        problems.append(f'the name "{name}" contains "/", which the light/dark setting reserves')
    if extra := [key for key in data if key not in _TOP_LEVEL]:
        problems.append(f"unknown keys: {', '.join(extra)}")
    if data.get("appearance", "dark") not in ("dark", "light"):
        problems.append('appearance must be "dark" or "light"')
    for section, allowed in (("vars", None), ("colors", TOKENS), ("export", _EXPORT_KEYS)):
        value = data.get(section, {} if section != "colors" else None)
        if not isinstance(value, dict):
            problems.append(f"{section} must be an object")
            continue
        if allowed is not None and (unknown := [key for key in value if key not in allowed]):
            problems.append(f"unknown {section}: {', '.join(unknown)}")
        for key, entry in value.items():
            if isinstance(entry, bool) or not isinstance(entry, (str, int)):
                problems.append(f"{section}.{key}: {entry!r} is not a colour")
    if isinstance(data.get("colors"), dict):
        required = [role for role, (_, fallback) in TOKENS.items() if fallback is None]
        if missing := [role for role in required if role not in data["colors"]]:
            problems.append(f"missing colors: {', '.join(missing)}")
    if problems:
        raise ThemeError(f"{path}: invalid theme: {'; '.join(problems)}")
    return data


def _resolve(spec: dict[str, Any], path: str) -> dict[str, Color | None]:
    """Every role's colour: vars followed, fallbacks filled, values parsed."""
    variables: dict[str, Any] = spec.get("vars", {})
    raw: dict[str, Any] = dict(spec["colors"])
    for role, (_, fallback) in TOKENS.items():
        if role not in raw and fallback is not None:
            raw[role] = raw[fallback]
    resolved: dict[str, Color | None] = {}
    for role, value in raw.items():
        resolved[role] = _colour(value, variables, path, role)
    return resolved


@functools.lru_cache(maxsize=512)
def _parse(value: str | int) -> Color:
    return colors.parse(value)


def _colour(value: str | int, variables: Mapping[str, Any], path: str, role: str) -> Color | None:
    seen: list[str] = []
    while (
        isinstance(value, str)
        and value
        and not value.startswith("#")
        and not value[:6].lower().startswith(("oklch(", "okhsl("))
    ):
        if value in seen:
            raise ThemeError(f"{path}: {role}: the var {value} refers back to itself")
        if value not in variables:
            raise ThemeError(f"{path}: {role}: {value!r} is neither a colour nor one of the vars")
        seen.append(value)
        value = variables[value]
    if value == "":
        return None
    try:
        return _parse(value)
    except ColorError as error:
        raise ThemeError(f"{path}: {role}: {error}") from None


def read_file(path: str, mode: ColorMode | None = None) -> Theme:
    """A theme file as a :class:`Theme`. Raises :class:`ThemeError` naming what is wrong."""
    spec = _read(path)
    name, values, appearance = str(spec["name"]), _resolve(spec, path), spec.get("appearance")
    return Theme(name, values, path=path, appearance=appearance, mode=mode, export=export_colours(spec))


#: The name older callers use.
load_file = read_file


def theme_file_paths(paths: Sequence[str]) -> list[str]:
    """``paths`` with each directory replaced by the ``.json`` files under it (sorted)."""
    files: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            files += sorted(str(found) for found in Path(path).rglob("*.json") if found.is_file())
        else:
            files.append(path)
    return files


@dataclass
class Scan:
    """What :func:`scan` found: the usable theme files by name (the first of a name wins; a
    built-in name stays the built-in theme's), one message per file that cannot be used, and
    (name, kept, dropped) for names two files take."""

    files: dict[str, str]
    problems: list[str]
    duplicates: list[tuple[str, str, str]]


def scan(paths: Sequence[str]) -> Scan:
    """Read every theme file among ``paths`` (directories: the files in them)."""
    result = Scan({}, [], [])
    for path in theme_file_paths(paths):
        try:
            name = read_file(path).name
        except ThemeError as error:
            result.problems.append(str(error))
            continue
        if name in (*BUILTIN, SYSTEM):
            continue  # the built-in theme of that name comes first, as in pi
        if name in result.files:
            result.duplicates.append((name, result.files[name], path))
        else:
            result.files[name] = path
    return result


def theme_files(paths: Sequence[str]) -> dict[str, str]:
    """The usable theme files among ``paths`` by the name inside each (see :func:`scan`)."""
    return scan(paths).files


def problems(paths: Sequence[str]) -> list[str]:
    """One message per theme file that cannot be used (for the start-up report)."""
    return scan(paths).problems


def available(paths: Sequence[str]) -> list[ThemeInfo]:
    """Every theme by name, as ``get_all_themes`` lists them: ``system`` first, then by name."""
    infos = [ThemeInfo(name) for name in BUILTIN]
    infos += [ThemeInfo(name, path) for name, path in theme_files(paths).items()]
    return [ThemeInfo(SYSTEM), *sorted(infos, key=lambda info: info.name)]


def load(name: str, paths: Sequence[str], mode: ColorMode | None = None) -> Theme:
    """The theme called ``name``. Raises :class:`ThemeError` when there is none or it is broken."""
    if name == SYSTEM:
        return system(mode)
    if name in BUILTIN:
        return Theme(name, mode=mode)
    path = theme_files(paths).get(name)
    if path is None:
        for candidate in theme_file_paths(paths):  # a broken file of that name: say what is wrong
            if Path(candidate).stem == name:
                read_file(candidate, mode)
        raise ThemeError(f"Theme not found: {name}")
    return read_file(path, mode)
