"""Colour values as pi's theme files write them, turned into sRGB and terminal escapes.

A value is ``#rgb``/``#rrggbb``, ``oklch(L C H)`` (``L`` a fraction or a percentage, ``H`` in
degrees), ``okhsl(H S L)`` (``S`` and ``L`` fractions or percentages) or a 256-colour index.
OKLab, OKLCH and OKHSL are Björn Ottosson's perceptual spaces (bottosson.github.io/posts/oklab,
/posts/colorpicker); the conversions below follow his published derivation. OKHSL is in the sRGB
gamut by construction; an OKLCH colour outside it keeps its lightness and hue and loses chroma
until it fits, as pi maps it. On a terminal without 24-bit colour a colour becomes the nearest
entry of the xterm 6×6×6 cube or grey ramp, by pi's rule (a grey only for near-neutral colours).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

ColorMode = Literal["truecolor", "256color"]
RGB = tuple[int, int, int]

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?"
_OKLCH = re.compile(rf"oklch\(\s*({_NUMBER})(%)?\s+({_NUMBER})\s+({_NUMBER})(?:deg)?\s*\)", re.IGNORECASE)
_OKHSL = re.compile(rf"okhsl\(\s*({_NUMBER})(?:deg)?\s+({_NUMBER})(%)?\s+({_NUMBER})(%)?\s*\)", re.IGNORECASE)
_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


class ColorError(ValueError):
    """A colour value that cannot be read (the message says which and why)."""


@dataclass(frozen=True)
class Color:
    """A concrete colour: its sRGB channels, and the palette index when it was given as one (an
    index is sent to the terminal as the index, so the terminal's own palette draws it)."""

    rgb: RGB
    index: int | None = None

    @property
    def hex(self) -> str:
        return "#{:02x}{:02x}{:02x}".format(*self.rgb)

    def ansi(self, mode: ColorMode, *, background: bool = False) -> str:
        """The SGR sequence that selects this colour as the foreground (or background)."""
        layer = 48 if background else 38
        if self.index is not None:
            return f"\x1b[{layer};5;{self.index}m"
        if mode == "truecolor":
            return f"\x1b[{layer};2;{self.rgb[0]};{self.rgb[1]};{self.rgb[2]}m"
        return f"\x1b[{layer};5;{nearest_256(self.rgb)}m"

    def for_mode(self, mode: ColorMode) -> Color:
        """The colour the terminal shows in ``mode``: on a 256-colour terminal, its palette entry."""
        if mode == "truecolor" or self.index is not None:
            return self
        index = nearest_256(self.rgb)
        return Color(xterm_rgb(index), index)


def parse(value: str | int) -> Color:
    """A theme file's colour value (not a var name, not ``""``). Raises :class:`ColorError`."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ColorError(f"Invalid color value: {value!r}")
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ColorError(f"ANSI color index must be an integer from 0 to 255: {value}")
        return Color(xterm_rgb(value), value)
    text = value.strip()
    if hexed := _HEX.fullmatch(text):
        digits = hexed[1] if len(hexed[1]) == 6 else "".join(digit * 2 for digit in hexed[1])
        return Color((int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)))
    if lch := _OKLCH.fullmatch(text):
        lightness = float(lch[1]) / (100 if lch[2] else 1)
        chroma, hue = float(lch[3]), float(lch[4])
        _check_finite(lightness, chroma, hue)
        if not 0 <= lightness <= 1:
            raise ColorError(f"oklch lightness must be between 0 and 1: {value}")
        if chroma < 0:
            raise ColorError(f"oklch chroma must not be negative: {value}")
        return Color(oklch_to_rgb(lightness, chroma, hue))
    if hsl := _OKHSL.fullmatch(text):
        hue = float(hsl[1])
        saturation = float(hsl[2]) / (100 if hsl[3] else 1)
        lightness = float(hsl[4]) / (100 if hsl[5] else 1)
        _check_finite(hue, saturation, lightness)
        if not 0 <= saturation <= 1:
            raise ColorError(f"okhsl saturation must be between 0 and 1: {value}")
        if not 0 <= lightness <= 1:
            raise ColorError(f"okhsl lightness must be between 0 and 1: {value}")
        return Color(okhsl_to_rgb(hue, saturation, lightness))
    raise ColorError(f"Invalid color value: {value}")


def _check_finite(*numbers: float) -> None:
    if not all(math.isfinite(number) for number in numbers):
        raise ColorError("color channels must be finite numbers")


# --- OKLab ----------------------------------------------------------------------------------------

# Ottosson's matrices: linear sRGB → cone responses (LMS), cube roots of LMS → Lab, and back.
_RGB_TO_LMS = (
    (0.4122214694707629, 0.5363325372617349, 0.0514459932675022),
    (0.2119034958178251, 0.6806995506452344, 0.1073969535369405),
    (0.0883024591900564, 0.2817188391361215, 0.6299787016738222),
)
_LMS_TO_LAB = (
    (0.210454268309314, 0.793617774702305, -0.0040720430116193),
    (1.9779985324311684, -2.42859224204858, 0.450593709617411),
    (0.0259040424655478, 0.7827717124575296, -0.8086757549230774),
)
# Lab → cube roots of LMS: L plus these weights of a and b.
_LAB_A = (0.3963377773761749, -0.1055613458156586, -0.0894841775298119)
_LAB_B = (0.2158037573099136, -0.0638541728258133, -1.2914855480194092)
_LMS_TO_RGB = (
    (4.0767416360759583, -3.3077115392580629, 0.2309699031821043),
    (-1.2684379732850315, 2.6097573492876882, -0.341319376002657),
    (-0.0041960761386756, -0.7034186179359362, 1.7076146940746117),
)

Vector = tuple[float, float, float]


def _dot(row: Vector, values: Vector) -> float:
    return row[0] * values[0] + row[1] * values[1] + row[2] * values[2]


def oklab_to_linear(lightness: float, a: float, b: float) -> Vector:
    """Linear sRGB (0–1 inside the gamut, beyond it outside)."""
    lms = tuple((lightness + wa * a + wb * b) ** 3 for wa, wb in zip(_LAB_A, _LAB_B, strict=True))
    return _dot(_LMS_TO_RGB[0], lms), _dot(_LMS_TO_RGB[1], lms), _dot(_LMS_TO_RGB[2], lms)  # type: ignore[arg-type]


def rgb_to_oklab(rgb: RGB) -> Vector:
    linear = tuple(_decode(channel / 255) for channel in rgb)
    lms = tuple(math.copysign(abs(_dot(row, linear)) ** (1 / 3), _dot(row, linear)) for row in _RGB_TO_LMS)  # type: ignore[arg-type]
    return _dot(_LMS_TO_LAB[0], lms), _dot(_LMS_TO_LAB[1], lms), _dot(_LMS_TO_LAB[2], lms)  # type: ignore[arg-type]


def _encode(linear: float) -> float:
    """The sRGB transfer curve: a linear channel to its encoded value (both 0–1)."""
    return 1.055 * linear ** (1 / 2.4) - 0.055 if linear > 0.0031308 else 12.92 * linear


def _decode(encoded: float) -> float:
    return ((encoded + 0.055) / 1.055) ** 2.4 if encoded > 0.04045 else encoded / 12.92


def linear_to_rgb(linear: Vector) -> RGB:
    """Linear sRGB to 0–255 channels, each clipped into the gamut and rounded."""
    red, green, blue = (_round(min(1.0, max(0.0, _encode(channel))) * 255) for channel in linear)
    return red, green, blue


def _round(value: float) -> int:
    """Halves round up, as the colour values pi computes do (Python's ``round`` goes to even)."""
    return math.floor(value + 0.5)


def _in_gamut(linear: Vector) -> bool:
    slack = 1e-7
    return all(-slack <= channel <= 1 + slack for channel in linear)


def oklch_to_rgb(lightness: float, chroma: float, hue: float) -> RGB:
    """OKLCH to sRGB; outside the gamut, the most chroma that fits at this lightness and hue
    (found by halving the interval twenty times; the grey of that lightness always fits)."""
    angle = math.radians(hue % 360)
    cos, sin = math.cos(angle), math.sin(angle)
    exact = oklab_to_linear(lightness, chroma * cos, chroma * sin)
    if _in_gamut(exact):
        return linear_to_rgb(exact)
    best = oklab_to_linear(lightness, 0.0, 0.0)
    inside, outside = 0.0, chroma
    for _ in range(20):
        middle = (inside + outside) / 2
        candidate = oklab_to_linear(lightness, middle * cos, middle * sin)
        if _in_gamut(candidate):
            inside, best = middle, candidate
        else:
            outside = middle
    return linear_to_rgb(best)


# --- OKHSL ----------------------------------------------------------------------------------------

# OKHSL's lightness is a "toe" of OKLab's L that spaces light and dark greys more evenly.
_TOE_K1, _TOE_K2 = 0.206, 0.03
_TOE_K3 = (1 + _TOE_K1) / (1 + _TOE_K2)


def _toe_inverse(lightness: float) -> float:
    return (lightness * lightness + _TOE_K1 * lightness) / (_TOE_K3 * (lightness + _TOE_K2))


def okhsl_lightness(oklab_lightness: float) -> float:
    """OKHSL's lightness for an OKLab lightness (the "toe"; :func:`_toe_inverse` undoes it)."""
    scaled = _TOE_K3 * oklab_lightness - _TOE_K1
    return 0.5 * (scaled + math.sqrt(scaled * scaled + 4 * _TOE_K2 * _TOE_K3 * oklab_lightness))


def _max_saturation(a: float, b: float) -> float:
    """The largest chroma/lightness ratio inside the gamut for the unit hue vector (a, b): a fitted
    polynomial for the channel that leaves [0, 1] first, sharpened by one Halley iteration."""
    if -1.88170328 * a - 0.80936493 * b > 1:  # red reaches zero first
        k = (1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245)
        weights = _LMS_TO_RGB[0]
    elif 1.81444104 * a - 1.19445276 * b > 1:  # green
        # The last term's sign is pi's (Ottosson's C reference has +): the Halley step hides
        # the difference except for 1/255 near the violet edge, where we give pi's colour.
        k = (0.73956515, -0.45954404, 0.08285427, 0.12541070, -0.14503204)
        weights = _LMS_TO_RGB[1]
    else:  # blue
        k = (1.35733652, -0.00915799, -1.15130210, -0.50559606, 0.00692167)
        weights = _LMS_TO_RGB[2]
    saturation = k[0] + k[1] * a + k[2] * b + k[3] * a * a + k[4] * a * b
    slopes = [wa * a + wb * b for wa, wb in zip(_LAB_A, _LAB_B, strict=True)]
    roots = [1 + saturation * slope for slope in slopes]
    value = sum(w * r**3 for w, r in zip(weights, roots, strict=True))
    first = sum(w * 3 * s * r**2 for w, s, r in zip(weights, slopes, roots, strict=True))
    second = sum(w * 6 * s * s * r for w, s, r in zip(weights, slopes, roots, strict=True))
    return saturation - value * first / (first * first - 0.5 * value * second)


def _cusp(a: float, b: float) -> tuple[float, float]:
    """Lightness and chroma of the most colourful sRGB colour of this hue."""
    saturation = _max_saturation(a, b)
    brightest = max(oklab_to_linear(1, saturation * a, saturation * b))
    lightness = (1 / brightest) ** (1 / 3)
    return lightness, lightness * saturation


def _gamut_chroma(a: float, b: float, lightness: float, cusp: tuple[float, float]) -> float:
    """How much chroma fits at ``lightness`` along the hue (a, b): below the cusp the gamut's edge
    is the straight line to black; above it, the line to white refined by one Halley step per
    channel toward the point where that channel reaches 1."""
    cusp_l, cusp_c = cusp
    if lightness <= cusp_l:
        return cusp_c * lightness / cusp_l
    t = cusp_c * (lightness - 1) / (cusp_l - 1)
    slopes = [wa * a + wb * b for wa, wb in zip(_LAB_A, _LAB_B, strict=True)]
    roots = [lightness + t * slope for slope in slopes]
    cubes = (roots[0] ** 3, roots[1] ** 3, roots[2] ** 3)
    firsts = tuple(3 * s * r * r for s, r in zip(slopes, roots, strict=True))
    seconds = tuple(6 * s * s * r for s, r in zip(slopes, roots, strict=True))
    steps = []
    for row in _LMS_TO_RGB:
        value = _dot(row, cubes) - 1
        first, second = _dot(row, firsts), _dot(row, seconds)  # type: ignore[arg-type]
        u = first / (first * first - 0.5 * value * second)
        steps.append(-value * u if u >= 0 else math.inf)
    return t + min(steps)


def _chroma_stops(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    """OKHSL's three reference chromas at this lightness and hue: near grey, the middle
    (saturation 0.8) and the gamut's edge (saturation 1)."""
    cusp = _cusp(a, b)
    edge = _gamut_chroma(a, b, lightness, cusp)
    cusp_l, cusp_c = cusp
    scale = edge / min(lightness * cusp_c / cusp_l, (1 - lightness) * cusp_c / (1 - cusp_l))
    # Ottosson's fitted (S, T) of a smooth shape inside the gamut, by hue.
    mid_s = 0.11516993 + 1 / (
        7.44778970
        + 4.15901240 * b
        + a
        * (
            -2.19557347
            + 1.75198401 * b
            + a * (-2.13704948 - 10.02301043 * b + a * (-4.24894561 + 5.38770819 * b + 4.69891013 * a))
        )
    )
    mid_t = 0.11239642 + 1 / (
        1.61320320
        - 0.68124379 * b
        + a
        * (
            0.40370612
            + 0.90148123 * b
            + a * (-0.27087943 + 0.61223990 * b + a * (0.00299215 - 0.45399568 * b - 0.14661872 * a))
        )
    )
    along_s, along_t = lightness * mid_s, (1 - lightness) * mid_t
    middle = 0.9 * scale * math.sqrt(math.sqrt(1 / (1 / along_s**4 + 1 / along_t**4)))
    near_s, near_t = lightness * 0.4, (1 - lightness) * 0.8
    grey_side = math.sqrt(1 / (1 / near_s**2 + 1 / near_t**2))
    return grey_side, middle, edge


def okhsl_to_rgb(hue: float, saturation: float, lightness: float) -> RGB:
    """OKHSL (hue in degrees, saturation and lightness 0–1) to sRGB channels."""
    oklab_l = _toe_inverse(lightness)
    a = b = 0.0
    if 0 < oklab_l < 1 and saturation > 0:
        angle = math.radians(hue % 360)
        unit_a, unit_b = math.cos(angle), math.sin(angle)
        grey_side, middle, edge = _chroma_stops(oklab_l, unit_a, unit_b)
        # Chroma grows along two rational curves that meet at saturation 0.8 (the middle stop).
        if saturation < 0.8:
            t = 1.25 * saturation
            k1 = 0.8 * grey_side
            chroma = t * k1 / (1 - (1 - k1 / middle) * t)
        else:
            t = 5 * (saturation - 0.8)
            k1 = 0.2 * middle * middle * 1.25 * 1.25 / grey_side
            chroma = middle + t * k1 / (1 - (1 - k1 / (edge - middle)) * t)
        a, b = chroma * unit_a, chroma * unit_b
    return linear_to_rgb(oklab_to_linear(oklab_l, a, b))


def rgb_to_okhsl(rgb: RGB) -> tuple[float, float, float]:
    """sRGB channels to OKHSL: hue in degrees (0 for greys), saturation and lightness 0–1."""
    oklab_l, a, b = rgb_to_oklab(rgb)
    chroma = math.hypot(a, b)
    lightness = okhsl_lightness(oklab_l)
    if chroma < 1e-9 or lightness <= 0 or lightness >= 1:
        return 0.0, 0.0, lightness
    hue = (math.atan2(b, a) * 180 / math.pi + 360) % 360
    grey_side, middle, edge = _chroma_stops(oklab_l, a / chroma, b / chroma)
    # The inverse of the two curves okhsl_to_rgb grows chroma along.
    if chroma < middle:
        k1 = 0.8 * grey_side
        saturation = 0.8 * (chroma / (k1 + (1 - k1 / middle) * chroma))
    else:
        k1 = 0.2 * middle * middle * 1.25 * 1.25 / grey_side
        beyond = chroma - middle
        saturation = 0.8 + 0.2 * (beyond / (k1 + (1 - k1 / (edge - middle)) * beyond))
    return hue, min(1.0, max(0.0, saturation)), lightness


def rgb_to_oklch(rgb: RGB) -> tuple[float, float, float]:
    """sRGB channels to OKLCH: lightness 0–1, chroma, hue in degrees."""
    lightness, a, b = rgb_to_oklab(rgb)
    return lightness, math.hypot(a, b), (math.atan2(b, a) * 180 / math.pi + 360) % 360


def mix(first: RGB, second: RGB, amount: float) -> Color:
    """``first`` moved ``amount`` (0–1) of the way to ``second`` in OKLCH, the hue the short way
    round (a grey takes the other colour's hue)."""
    l1, c1, h1 = rgb_to_oklch(first)
    l2, c2, h2 = rgb_to_oklch(second)
    start = h2 if c1 < 1e-7 else h1
    end = start if c2 < 1e-7 else h2
    turn = (end - start + 540) % 360 - 180
    return Color(oklch_to_rgb(l1 + (l2 - l1) * amount, c1 + (c2 - c1) * amount, start + turn * amount))


# --- terminals ------------------------------------------------------------------------------------

_BASIC = (
    (0, 0, 0), (128, 0, 0), (0, 128, 0), (128, 128, 0), (0, 0, 128), (128, 0, 128), (0, 128, 128),
    (192, 192, 192), (128, 128, 128), (255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 0, 255),
    (255, 0, 255), (0, 255, 255), (255, 255, 255),
)  # fmt: skip
_CUBE = (0, 95, 135, 175, 215, 255)
_GREYS = tuple(8 + 10 * step for step in range(24))


def xterm_rgb(index: int) -> RGB:
    """The sRGB value pi assumes for a 256-colour palette index."""
    if index < 16:
        return _BASIC[index]
    if index < 232:
        cube = index - 16
        return _CUBE[cube // 36], _CUBE[(cube // 6) % 6], _CUBE[cube % 6]
    grey = 8 + (index - 232) * 10
    return grey, grey, grey


def _closest(levels: tuple[int, ...], value: float) -> int:
    return min(range(len(levels)), key=lambda position: (abs(value - levels[position]), position))


def _distance(first: RGB, second: RGB) -> float:
    """Squared distance with the channels weighted by their share of luma."""
    dr, dg, db = (first[0] - second[0]), (first[1] - second[1]), (first[2] - second[2])
    return dr * dr * 0.299 + dg * dg * 0.587 + db * db * 0.114


def nearest_256(rgb: RGB) -> int:
    """The 256-colour index for an sRGB colour: the nearest cube entry, or the nearest grey when
    the colour is nearly neutral (channels within 10 of each other) and the grey is closer."""
    levels = [_closest(_CUBE, channel) for channel in rgb]
    cube_rgb = (_CUBE[levels[0]], _CUBE[levels[1]], _CUBE[levels[2]])
    luma = _round(0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2])
    grey_step = _closest(_GREYS, luma)
    grey = _GREYS[grey_step]
    if max(rgb) - min(rgb) < 10 and _distance(rgb, (grey, grey, grey)) < _distance(rgb, cube_rgb):
        return 232 + grey_step
    return 16 + 36 * levels[0] + 6 * levels[1] + levels[2]


def color_mode(environ: Mapping[str, str] | None = None, setting: bool | str | None = None) -> ColorMode:
    """Whether the terminal takes 24-bit colour: the ``terminal.trueColor`` setting when it is a
    boolean, else ``PI_TRUE_COLOR`` (``1``/``0``), else what the environment says of the terminal
    (``COLORTERM=truecolor``/``24bit``, a ``*-direct`` ``TERM``, or a terminal known to have it;
    inside tmux or screen only ``COLORTERM`` counts)."""
    if isinstance(setting, bool):
        return "truecolor" if setting else "256color"
    env = os.environ if environ is None else environ
    forced = env.get("PI_TRUE_COLOR")
    if forced in ("1", "0"):
        return "truecolor" if forced == "1" else "256color"
    return "truecolor" if _terminal_has_truecolor(env) else "256color"


#: Terminals that take 24-bit colour, known by ``TERM_PROGRAM`` or by a variable they set.
_TRUECOLOR_PROGRAMS = (
    "rex",
    "kitty",
    "ghostty",
    "wezterm",
    "warpterminal",
    "iterm.app",
    "alacritty",
    "vscode",
    "zed",
)
_TRUECOLOR_VARIABLES = (
    "KITTY_WINDOW_ID",
    "GHOSTTY_RESOURCES_DIR",
    "WEZTERM_PANE",
    "WARP_SESSION_ID",
    "WARP_TERMINAL_SESSION_UUID",
    "ITERM_SESSION_ID",
    "WT_SESSION",
    "ALACRITTY_WINDOW_ID",
)


def _terminal_has_truecolor(env: Mapping[str, str]) -> bool:
    term = env.get("TERM", "").lower()
    program = env.get("TERM_PROGRAM", "").lower()
    hinted = env.get("COLORTERM", "").lower() in ("truecolor", "24bit") or term.endswith("-direct")
    if env.get("TMUX") or term.startswith(("tmux", "screen")) or program == "herdr":
        return hinted  # a multiplexer passes 24-bit colour on only when it says so
    return (
        hinted
        or program in _TRUECOLOR_PROGRAMS
        or (program == "orca" and env.get("ORCA_IMAGE_PROTOCOL") == "kitty")
        or "ghostty" in term
        or term.startswith("alacritty")
        or env.get("TERMINAL_EMULATOR", "").lower() == "jetbrains-jediterm"
        or any(env.get(name) for name in _TRUECOLOR_VARIABLES)
        or os.name == "nt"
    )
