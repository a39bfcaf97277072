"""The ``system`` theme: pi's roles coloured from what the terminal says of its own colours.

The terminal is asked for its default foreground and background (OSC 10/11) and its 16 ANSI
colours (OSC 4); :func:`generate` turns the answers into a colour per role, the same colours
pi 1.6.0 makes of them (``tests/fixtures/pi16_colors/system_theme.json`` holds pi's):

- Each role belongs to a *family* with a hue, a saturation range and the ANSI slot it borrows
  its hue from (errors from red, links from blue, body text from bright black's neutral).
- Each role must stand out from the surfaces it is drawn on (the background, panels such as the
  user message's) by a *level*: a curve giving the OKLab lightness the role needs for the
  surface's lightness, one curve for dark and one for light terminals. The role takes the
  strictest of its surfaces; panels are solved before what is drawn on them.
- Hue and saturation come from the palette colour of the family's slot, fading toward grey near
  black and white and never gaining chroma, so pastel palettes stay pastel; without a palette,
  from the family's own hue. A background near mid-grey cannot meet every level: the levels are
  relaxed, by bisection, as little as makes them fit.
- Body text keeps the terminal's own foreground when it is clearly stronger than muted text,
  and always reaches a WCAG contrast of 4.5 on its surfaces.
- A terminal that says nothing gets ANSI indexes 0–15 and its default colours, which it draws
  with its own theme: no panel backgrounds, and secondary neutral text faint (SGR 2).

What the terminal reported lives here (:func:`report`), as pi keeps it for the whole process:
themes use it for roles left to the terminal's default colour, and the light/dark choice of a
``light/dark`` theme setting follows it (:func:`appearance_now`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pi_core.runtime import colors
from pi_core.runtime.colors import RGB

#: What follows ``syntax`` in the names of a theme's code-highlighting roles (``syntaxKeyword``).
SYNTAX_PARTS = (
    "Comment",
    "Keyword",
    "Function",
    "Variable",
    "String",
    "Number",
    "Type",
    "Operator",
    "Punctuation",
)

Appearance = Literal["dark", "light"]
NAME = "system"


@dataclass(frozen=True)
class Family:
    """A hue, the saturation range a role of it spans (``low`` at black and white, ``high`` at
    mid lightness) and the ANSI palette slot whose colour stands in for the hue."""

    hue: float
    low: float
    high: float
    slot: int


FAMILIES: dict[str, Family] = {
    "neutral": Family(231.49, 0.02, 0.08, 8),
    "blue": Family(231.49, 0.1, 0.68, 4),
    "green": Family(158.68, 0.1, 0.76, 2),
    "red": Family(20, 0.1, 0.92, 1),
    "yellow": Family(82.36, 0.5, 1, 3),
    "orange": Family(52, 0.12, 0.85, 3),
    "violet": Family(295, 0.2, 0.6, 5),
    "calamine": Family(202.43, 0.1, 0.74, 6),
    "thinkingSlate": Family(231.49, 0.08, 0.2, 4),
    "thinkingBlue": Family(231.49, 0.2, 0.45, 4),
    "thinkingPeriwinkle": Family(263.25, 0.3, 0.6, 6),
    "thinkingViolet": Family(295, 0.4, 0.75, 5),
    "thinkingMagenta": Family(337.5, 0.5, 0.85, 13),
    "thinkingRed": Family(20, 0.95, 1, 1),
}

_NEUTRAL = [
    "text",
    "userMessageText",
    "customMessageText",
    "toolTitle",
    "syntaxOperator",
    "syntaxPunctuation",
    "muted",
    "dim",
    "thinkingText",
    "toolOutput",
    "mdLinkUrl",
    "mdQuote",
    "mdQuoteBorder",
    "mdHr",
    "mdCodeBlockBorder",
    "toolDiffContext",
    "syntaxComment",
    "scrollbarTrack",
    "scrollbarThumb",
    "searchMatchText",
    "borderMuted",
]
#: Each role's family, in pi's order of the roles (the order the result lists them in).
ROLE_FAMILY: dict[str, str] = {
    "selectedBg": "blue",
    "searchMatchBg": "orange",
    "userMessageBg": "blue",
    "customMessageBg": "violet",
    "toolPendingBg": "neutral",
    "toolSuccessBg": "green",
    "toolErrorBg": "red",
    **dict.fromkeys(_NEUTRAL, "neutral"),
    **dict.fromkeys(
        ["accent", "borderAccent", "customMessageLabel", "mdCode", "mdListBullet", "syntaxType"], "violet"
    ),
    **dict.fromkeys(["border", "mdLink", "syntaxKeyword"], "blue"),
    "syntaxVariable": "calamine",
    **dict.fromkeys(["success", "mdCodeBlock", "toolDiffAdded", "bashMode", "syntaxNumber"], "green"),
    **dict.fromkeys(["error", "toolDiffRemoved"], "red"),
    **dict.fromkeys(["warning", "mdHeading", "syntaxFunction"], "yellow"),
    "syntaxString": "orange",
    "thinkingOff": "neutral",
    "thinkingMinimal": "thinkingSlate",
    "thinkingLow": "thinkingBlue",
    "thinkingMedium": "thinkingPeriwinkle",
    "thinkingHigh": "thinkingViolet",
    "thinkingXhigh": "thinkingMagenta",
    "thinkingMax": "thinkingRed",
}
#: Roles that take another slot than their family's, so that they differ from a similar role.
ROLE_SLOT = {"syntaxString": 2, "syntaxNumber": 5, "searchMatchBg": 3}

#: A level's curve on one kind of terminal: polynomial coefficients (constant term first) of the
#: OKLab lightness needed over the surface's lightness, and the surface lightnesses it covers.
Curve = tuple[tuple[float, ...], tuple[float, float]]
# fmt: off
LEVELS: dict[str, dict[Appearance, Curve]] = {
    "panel": {
        "dark": ((0.29131, -0.39746, 2.33185, -0.85524, -1.2076, 0.86276), (0, 0.979)),
        "light": ((-3.74073, 27.94549, -78.44258, 112.6798, -79.60015, 22.11277), (0.348, 1)),
    },
    "track": {
        "dark": ((0.39028, -0.23015, 0.83573, 2.43829, -4.38292, 2.01582), (0, 0.946)),
        "light": ((-5.24921, 38.37322, -107.28833, 152.10005, -106.17127, 29.18061), (0.368, 1)),
    },
    "thinking0": {
        "dark": ((0.52988, -0.05809, -0.30924, 4.63567, -6.52933, 2.89108), (0, 0.873)),
        "light": ((-28.27749, 182.85284, -469.62416, 603.15916, -384.59976, 97.35147), (0.51, 1)),
    },
    "thinking1": {
        "dark": ((0.55278, -0.03667, -0.45659, 4.95347, -6.90265, 3.0706), (0, 0.858)),
        "light": ((-37.10484, 235.86282, -596.62344, 754.3633, -474.00763, 118.3551), (0.535, 1)),
    },
    "thinking2": {
        "dark": ((0.57486, -0.01765, -0.58987, 5.25227, -7.27175, 3.25532), (0, 0.842)),
        "light": ((-59.89653, 377.05024, -945.07843, 1182.03145, -734.96375, 181.68658), (0.556, 1)),
    },
    "thinking3": {
        "dark": ((0.59621, -0.00062, -0.71148, 5.53588, -7.6392, 3.44606), (0, 0.827)),
        "light": ((-72.07122, 445.84082, -1099.57352, 1353.88793, -829.53392, 202.26164), (0.58, 1)),
    },
    "thinking4": {
        "dark": ((0.61691, 0.01462, -0.82288, 5.80651, -8.00641, 3.64333), (0, 0.811)),
        "light": ((-110.14338, 674.21488, -1645.75941, 2004.32367, -1215.15899, 293.3183), (0.6, 1)),
    },
    "thinking5": {
        "dark": ((0.63702, 0.02826, -0.92498, 6.06465, -8.37246, 3.84651), (0, 0.795)),
        "light": ((-175.47701, 1063.54495, -2570.70594, 3098.80776, -1860.15527, 444.76392), (0.62, 1)),
    },
    "thinking6": {
        "dark": ((0.65658, 0.04044, -1.01835, 6.30989, -8.73529, 4.05439), (0, 0.779)),
        "light": ((-183.81712, 1094.70055, -2602.68539, 3088.71276, -1826.91131, 430.75931), (0.643, 1)),
    },
    "subtle": {
        "dark": ((0.56762, -0.02475, -0.5383, 5.12628, -7.10931, 3.17324), (0, 0.848)),
        "light": ((-232.85459, 1376.54473, -3249.11801, 3827.91186, -2248.29472, 526.55751), (0.657, 1)),
    },
    "thumb": {
        "dark": ((0.60323, 0.00278, -0.73328, 5.57157, -7.68067, 3.46933), (0, 0.823)),
        "light": ((-82.89897, 511.01355, -1255.98095, 1540.76821, -940.68087, 228.58523), (0.586, 1)),
    },
    "readable": {
        "dark": ((0.66937, 0.04704, -1.06871, 6.43941, -8.9332, 4.17229), (0, 0.77)),
        "light": ((-1554.52576, 8733.56817, -19604.93507, 21977.72696, -12300.99599, 2749.81288), (0.751, 1)),
    },
    "emphasis": {
        "dark": ((0.7303, 0.07695, -1.31626, 7.1681, -10.14436, 4.92846), (0, 0.712)),
        "light": ((-4948.31942, 26870.91986, -58334.48399, 63280.17197, -34298.01053, 7430.30146), (0.811, 1)),  # noqa: E501
    },
    "textOnPanel": {
        "dark": ((0.86713, 0.05232, -0.89428, 4.79014, -5.5432, 1.75023), (0, 0.542)),
        "light": ((-8570.89457, 43954.60805, -90084.00702, 92220.6791, -47152.15802, 9632.27113), (0.867, 1)),
    },
    "text": {
        "dark": ((0.89242, 0.02311, -0.44862, 2.34417, -0.06084, -2.63844), (0, 0.5)),
        "light": ((-2004.67048, 6664.47299, -6060.70202, -1792.61209, 5133.82359, -1939.85583), (0.894, 1)),
    },
}
# fmt: on

TOOL_PANELS = ("toolPendingBg", "toolSuccessBg", "toolErrorBg")
MESSAGE_PANELS = ("userMessageBg", "customMessageBg")
PANELS = ("userMessageBg", *TOOL_PANELS, "selectedBg", "searchMatchBg", "customMessageBg")
THINKING = tuple(f"thinking{level}" for level in ("Off", "Minimal", "Low", "Medium", "High", "Xhigh", "Max"))

#: (role, the surfaces it is drawn on, the level it needs on each).
Rule = tuple[str, tuple[str, ...], str]
_BG = "background"
_ON_PANELS = (_BG, *MESSAGE_PANELS, *TOOL_PANELS)


def _rules() -> list[Rule]:
    rules: list[Rule] = [(panel, (_BG,), "panel") for panel in PANELS]
    rules += [
        ("text", (_BG,), "text"),
        ("text", ("selectedBg",), "textOnPanel"),
        ("userMessageText", ("userMessageBg",), "textOnPanel"),
        ("toolTitle", TOOL_PANELS, "textOnPanel"),
    ]
    rules += [
        (role, (_BG, "selectedBg", *TOOL_PANELS), "readable")
        for role in ("accent", "success", "error", "warning")
    ]
    rules += [
        ("muted", (_BG, "selectedBg", "customMessageBg", *TOOL_PANELS), "readable"),
        ("dim", (_BG, "selectedBg", "customMessageBg", *TOOL_PANELS), "subtle"),
        ("thinkingText", (_BG,), "readable"),
        ("customMessageText", ("customMessageBg", *TOOL_PANELS), "readable"),
        ("customMessageLabel", (_BG, "customMessageBg", "selectedBg", *TOOL_PANELS), "readable"),
        ("toolOutput", (_BG, *TOOL_PANELS), "readable"),
    ]
    markdown = ("mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdQuote", "mdCodeBlockBorder", "mdListBullet")
    rules += [(role, (_BG, *MESSAGE_PANELS), "readable") for role in markdown]
    rules.append(("mdCodeBlock", _ON_PANELS, "readable"))
    rules += [
        (role, (_BG, *TOOL_PANELS), "readable")
        for role in ("toolDiffAdded", "toolDiffRemoved", "toolDiffContext")
    ]
    rules += [(f"syntax{part}", _ON_PANELS, "readable") for part in SYNTAX_PARTS]
    rules.append(("searchMatchText", ("searchMatchBg",), "readable"))
    rules += [(role, (_BG,), "readable") for role in ("bashMode", "border", "borderAccent")]
    rules.append(("borderMuted", (_BG,), "subtle"))
    rules += [(role, _ON_PANELS, "readable") for role in ("mdQuoteBorder", "mdHr")]
    rules += [("scrollbarTrack", (_BG,), "track"), ("scrollbarThumb", ("scrollbarTrack",), "thumb")]
    rules += [(role, (_BG,), f"thinking{index}") for index, role in enumerate(THINKING)]
    return rules


RULES = _rules()
#: Each role's rules, and the roles in an order where every surface comes before what is on it.
_RULES_OF: dict[str, list[Rule]] = {}
for _rule in RULES:
    _RULES_OF.setdefault(_rule[0], []).append(_rule)


def _solve_order() -> list[str]:
    order: list[str] = []

    def visit(role: str) -> None:
        if role in order:
            return
        for _, surfaces, _level in _RULES_OF.get(role, []):
            for surface in surfaces:
                if surface != _BG:
                    visit(surface)
        order.append(role)

    for role, _, _level in RULES:
        visit(role)
    return order


SOLVE_ORDER = _solve_order()
#: Levels stronger than this are squeezed toward it first when a background needs relaxing.
READABLE_FLOOR: dict[Appearance, str] = {"dark": "readable", "light": "subtle"}
#: Body text keeps the terminal's foreground when that reaches this level.
FOREGROUND_LEVEL = "emphasis"
FOREGROUND_ROLES = ("text", "userMessageText", "toolTitle")
#: The WCAG 2 contrast body text keeps on every surface it is drawn on.
TEXT_CONTRAST = 4.5
_WHITE: RGB = (255, 255, 255)
_BLACK: RGB = (0, 0, 0)


# --- measures -------------------------------------------------------------------------------------


def lab_lightness(rgb: RGB) -> float:
    """OKLab lightness, 0–1."""
    return colors.rgb_to_oklab(rgb)[0]


def relative_luminance(rgb: RGB) -> float:
    """WCAG 2 relative luminance."""

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2])


def contrast(first: RGB, second: RGB) -> float:
    """WCAG 2 contrast ratio, 1–21."""
    a, b = relative_luminance(first), relative_luminance(second)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def terminal_appearance(background: RGB, foreground: RGB | None = None) -> Appearance:
    """Dark or light, from the terminal's colours: the way its foreground departs from the
    background when text that way can be readable, otherwise whichever of white and black text
    has more contrast on the background."""
    on_white, on_black = contrast(_WHITE, background), contrast(_BLACK, background)
    if foreground is not None:
        fg_l, bg_l = lab_lightness(foreground), lab_lightness(background)
        if abs(fg_l - bg_l) > 0.05:
            guess: Appearance = "dark" if fg_l > bg_l else "light"
            if (on_white if guess == "dark" else on_black) >= TEXT_CONTRAST:
                return guess
    return "dark" if on_white >= on_black else "light"


# --- generation -----------------------------------------------------------------------------------


def _bell(lightness: float) -> float:
    """0 at black and white, 1 at mid lightness: a Gaussian (sigma 0.25) rescaled to that."""

    def gaussian(x: float) -> float:
        return math.exp(-((x - 0.5) ** 2) / (2 * 0.25**2))

    return (gaussian(lightness) - gaussian(0)) / (1 - gaussian(0))


def _saturation_curve(family: Family, lightness: float) -> float:
    """A family's saturation at a lightness relative to its most: 1 mid-way, low/high at the ends."""
    floor = family.low / family.high if family.high > 0 else 1
    return floor + (1 - floor) * _bell(lightness)


def _level(level: str, appearance: Appearance, surface: float) -> float | None:
    coefficients, (lowest, highest) = LEVELS[level][appearance]
    if surface < lowest or surface > highest:
        return None
    return sum(coefficient * surface**power for power, coefficient in enumerate(coefficients))


@dataclass(frozen=True)
class _Source:
    """A palette colour as the roles borrowing it need it: OKHSL, plus its OKLCH chroma."""

    hue: float
    saturation: float
    lightness: float
    chroma: float


def _source(rgb: RGB) -> _Source:
    hue, saturation, lightness = colors.rgb_to_okhsl(rgb)
    return _Source(hue, saturation, lightness, colors.rgb_to_oklch(rgb)[1])


def _okhsl(hue: float, saturation: float, lightness: float) -> RGB:
    return colors.okhsl_to_rgb(hue, saturation, min(1.0, max(0.0, lightness)))


def _anchored(source: _Source, family: Family, lightness: float, saturation: float) -> RGB:
    """``source``'s hue at another OKHSL lightness: its saturation holds at its own lightness and
    fades toward black and white along the family's curve, and its chroma never grows past the
    source's (a pastel pink would otherwise turn vivid at the lightness a role needs)."""
    anchor = _saturation_curve(family, source.lightness)
    falloff = min(1.0, _saturation_curve(family, lightness) / anchor) if anchor > 0 else 1.0
    rgb = _okhsl(source.hue, source.saturation * falloff * saturation, lightness)
    cap = source.chroma * falloff * saturation
    lab_l, chroma, _ = colors.rgb_to_oklch(rgb)
    return rgb if chroma <= cap else colors.oklch_to_rgb(lab_l, cap, source.hue)


def _with_text_contrast(rgb: RGB, surfaces: Sequence[RGB], lighter: bool) -> RGB:
    """``rgb`` moved toward white (or black) until it reaches :data:`TEXT_CONTRAST` everywhere."""

    def meets(candidate: RGB) -> bool:
        return all(contrast(candidate, surface) >= TEXT_CONTRAST for surface in surfaces)

    if meets(rgb):
        return rgb
    hue, saturation, lightness = colors.rgb_to_okhsl(rgb)
    extreme = 1.0 if lighter else 0.0
    if not meets(_okhsl(hue, saturation, extreme)):
        return _okhsl(hue, saturation, extreme)
    low, high = lightness, extreme
    for _ in range(20):
        middle = (low + high) / 2
        if meets(_okhsl(hue, saturation, middle)):
            high = middle
        else:
            low = middle
    return _okhsl(hue, saturation, high)


@dataclass(frozen=True)
class Generated:
    """The theme's colours by role (``#rrggbb``, an ANSI index, or ``""`` for the terminal's
    default colour), the roles drawn faint, and whether it is a dark or a light theme."""

    colors: dict[str, str | int]
    dim: tuple[str, ...]
    appearance: Appearance


def generate(
    background: RGB | None = None,
    foreground: RGB | None = None,
    palette: Sequence[RGB] | None = None,
    *,
    saturation: float = 1.0,
    appearance_hint: Appearance = "dark",
) -> Generated:
    """The ``system`` theme for what the terminal reported. ``saturation`` 0 makes it grey (pi
    draws it so while the terminal's answer is awaited); ``appearance_hint`` is the light/dark
    guess used when the terminal reported no background."""
    saturation = min(1.0, max(0.0, saturation))
    if background is None:
        return _indexed(saturation, appearance_hint)
    sources = [_source(rgb) for rgb in palette] if palette is not None and len(palette) == 16 else None
    appearance = terminal_appearance(background, foreground)
    lighter = appearance == "dark"
    extreme = 1.0 if lighter else 0.0
    background_l = lab_lightness(background)

    def paint(role: str, lab_l: float) -> RGB:
        lightness = colors.okhsl_lightness(lab_l)
        family = FAMILIES[ROLE_FAMILY[role]]
        if sources is None:
            spread = family.low + (family.high - family.low) * _bell(lightness)
            return _okhsl(family.hue, spread * saturation, lightness)
        return _anchored(sources[ROLE_SLOT.get(role, family.slot)], family, lightness, saturation)

    def target(level: str, surface: float, relax: float) -> float | None:
        """The lightness ``level`` needs on ``surface``, relaxed by ``relax``: from 0 to 1 the
        levels above the readable floor sink to it, from 1 to 2 every level sinks to the surface."""
        reached = _level(level, appearance, surface)
        if reached is None and relax == 0:
            return None
        distance = (reached if reached is not None else extreme) - surface
        floor_l = _level(READABLE_FLOOR[appearance], appearance, surface)
        floor = (floor_l if floor_l is not None else extreme) - surface
        if abs(distance) > abs(floor):
            distance -= (distance - floor) * min(relax, 1)
        return surface + distance * (1 - max(0.0, relax - 1))

    extreme_text = _WHITE if lighter else _BLACK

    def readable(rgb: RGB) -> bool:
        return contrast(extreme_text, rgb) >= TEXT_CONTRAST

    def panel(role: str, lab_l: float) -> RGB:
        """Near mid-grey: the panel kept where white (or black) text still reads on it."""
        rgb = paint(role, lab_l)
        if readable(rgb):
            return rgb
        low, high = background_l, lab_l
        for _ in range(20):
            middle = (low + high) / 2
            if readable(paint(role, middle)):
                low = middle
            else:
                high = middle
        return paint(role, low)

    def solve(relax: float) -> dict[str, RGB] | None:
        solved: dict[str, RGB] = {_BG: background}
        for role in SOLVE_ORDER:
            targets: list[float] = []
            for _, surfaces, level in _RULES_OF[role]:
                for surface in surfaces:
                    value = target(level, lab_lightness(solved.get(surface, background)), relax)
                    if value is None or value < 0 or value > 1:
                        return None
                    targets.append(value)
            lab_l = max(targets) if lighter else min(targets)
            solved[role] = panel(role, lab_l) if role in PANELS else paint(role, lab_l)
        return solved

    relaxation = 0.0
    found = solve(0)
    if found is None:
        low, high = 0.0, 2.0
        found = solve(high)
        for _ in range(20):
            middle = (low + high) / 2
            attempt = solve(middle)
            if attempt is not None:
                high, found = middle, attempt
            else:
                low = middle
        relaxation = high
    solved = found or {}

    def surfaces_of(role: str) -> list[RGB]:
        return [
            solved.get(surface, background) for _, surfaces, _level in _RULES_OF[role] for surface in surfaces
        ]

    result: dict[str, str | int] = {}
    for role in ROLE_FAMILY:
        rgb = solved.get(role)
        result[role] = _hex(rgb) if rgb is not None else ""
    for role in FOREGROUND_ROLES:
        surfaces = surfaces_of(role)
        text = solved.get(role)
        if foreground is not None:
            needs = [target(FOREGROUND_LEVEL, lab_lightness(surface), relaxation) for surface in surfaces]
            if all(value is not None and 0 <= value <= 1 for value in needs):
                known = [value for value in needs if value is not None]
                needed = max(known) if lighter else min(known)
                foreground_l = lab_lightness(foreground)
                if foreground_l >= needed if lighter else foreground_l <= needed:
                    result[role] = ""
                    continue
                lightness = colors.okhsl_lightness(needed)
                text = _anchored(_source(foreground), FAMILIES["neutral"], lightness, saturation)
        if text is not None:
            result[role] = _hex(_with_text_contrast(text, surfaces, lighter))
    return Generated(result, (), appearance)


def _indexed(saturation: float, appearance: Appearance) -> Generated:
    """For a terminal that reported nothing: its palette's indexes and default colours."""
    result: dict[str, str | int] = {}
    dim: list[str] = []
    for role, family in ROLE_FAMILY.items():
        if role in PANELS:
            result[role] = ""
            continue
        neutral = family == "neutral"
        result[role] = ROLE_SLOT.get(role, FAMILIES[family].slot) if not neutral and saturation > 0 else ""
        if neutral and role not in FOREGROUND_ROLES:
            dim.append(role)
    return Generated(result, tuple(dim), appearance)


def _hex(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


# --- what the terminal reported -------------------------------------------------------------------


@dataclass(frozen=True)
class Reported:
    """The terminal's answers: its default colours and, when all 16 came, its palette."""

    foreground: RGB | None = None
    background: RGB | None = None
    palette: tuple[RGB, ...] | None = None

    def merged(self, later: Reported) -> Reported:
        """These answers updated by ``later`` (what ``later`` lacks is kept)."""
        return Reported(
            later.foreground or self.foreground,
            later.background or self.background,
            later.palette or self.palette,
        )


_reported = Reported()
_pending = False
_scheme: Appearance | None = None


def reported() -> Reported:
    return _reported


def pending() -> bool:
    """Whether the terminal has been asked and not answered yet (the theme is grey meanwhile)."""
    return _pending


def report(answers: Reported) -> bool:
    """The terminal answered (or the wait ran out): keep what it said, end the grey wait.
    Whether anything changed."""
    global _reported, _pending
    merged = _reported.merged(answers)
    changed = merged != _reported or _pending
    _reported, _pending = merged, False
    return changed


def mark_pending() -> None:
    global _pending
    _pending = True


def report_scheme(scheme: Appearance) -> None:
    """The terminal's light/dark notification (DEC mode 2031)."""
    global _scheme
    _scheme = scheme


def reset() -> None:
    """Forget every answer (tests; a process that starts over)."""
    global _reported, _pending, _scheme
    _reported, _pending, _scheme = Reported(), False, None


def colorfgbg_appearance(environ: Mapping[str, str] | None = None) -> Appearance | None:
    """Dark or light from ``COLORFGBG`` (``fg;bg`` or ``fg;xpm;bg``): a background index 0–6 or 8
    is dark, 7 or 9–15 light; anything else says nothing."""
    value = (environ if environ is not None else os.environ).get("COLORFGBG", "")
    background = value.split(";")[-1].strip()
    if not (background.isdigit() and len(background) <= 2 and int(background) <= 15):
        return None
    index = int(background)
    return "dark" if index <= 6 or index == 8 else "light"


def appearance_now(environ: Mapping[str, str] | None = None) -> Appearance:
    """Whether the terminal is dark or light: by its reported background (as :func:`generate`
    judges it), else its light/dark notification, else ``COLORFGBG``, else dark."""
    if _reported.background is not None:
        return terminal_appearance(_reported.background, _reported.foreground)
    return _scheme or colorfgbg_appearance(environ) or "dark"


def current(environ: Mapping[str, str] | None = None) -> Generated:
    """The ``system`` theme's colours for what the terminal has said so far."""
    state = _reported
    return _generate_cached(
        state.background, state.foreground, state.palette, 0.0 if _pending else 1.0, appearance_now(environ)
    )


_CACHE: dict[tuple[object, ...], Generated] = {}


def _generate_cached(
    background: RGB | None,
    foreground: RGB | None,
    palette: tuple[RGB, ...] | None,
    saturation: float,
    hint: Appearance,
) -> Generated:
    key = (background, foreground, palette, saturation, hint if background is None else None)
    made = _CACHE.get(key)
    if made is None:
        if len(_CACHE) > 16:
            _CACHE.clear()
        made = _CACHE[key] = generate(
            background, foreground, palette, saturation=saturation, appearance_hint=hint
        )
    return made


# --- the terminal's answers -----------------------------------------------------------------------


def parse_channel(text: str) -> int | None:
    """One channel of an X11 colour (1–4 hex digits, scaled to 0–255)."""
    if not text or any(char not in "0123456789abcdefABCDEF" for char in text):
        return None
    top = 16 ** len(text) - 1
    return colors._round(int(text, 16) / top * 255)


def parse_colour(value: str) -> RGB | None:
    """A colour as terminals report it: ``rgb:RRRR/GGGG/BBBB`` (1–4 digits a channel, also
    ``rgba:``) or ``#rrggbb`` / ``#rrrrggggbbbb``."""
    value = value.strip()
    if value.startswith("#"):
        digits = value[1:]
        if len(digits) not in (6, 12) or any(char not in "0123456789abcdefABCDEF" for char in digits):
            return None
        width = len(digits) // 3
        parts = [digits[index * width : (index + 1) * width] for index in range(3)]
    else:
        lowered = value.lower()
        for prefix in ("rgba:", "rgb:"):
            if lowered.startswith(prefix):
                value = value[len(prefix) :]
                break
        parts = value.split("/")
        if len(parts) < 3:
            return None
    channels = [parse_channel(part) for part in parts[:3]]
    if channels[0] is None or channels[1] is None or channels[2] is None:
        return None
    return channels[0], channels[1], channels[2]
