"""Colour values against what the real pi 1.6.0 computes for them (tests/fixtures/pi16_colors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_core.runtime import colors, themes

FIXTURES = Path(__file__).parents[2] / "fixtures" / "pi16_colors"
COLORS: dict[str, Any] = json.loads((FIXTURES / "colors.json").read_text(encoding="utf-8"))
BUILTIN: dict[str, Any] = json.loads((FIXTURES / "builtin_themes.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", COLORS["colors"], ids=lambda row: str(row["value"]))
def test_every_notation_gives_pis_colour_and_escapes(row: dict[str, Any]) -> None:
    colour = colors.parse(row["value"])
    assert colour.hex == row["hex"]
    assert colour.ansi("truecolor") == row["truecolor"]
    assert colour.ansi("256color") == row["256color"]


def test_the_256_colour_approximation_picks_pis_index() -> None:
    picked = [[*rgb, colors.nearest_256((rgb[0], rgb[1], rgb[2]))] for *rgb, _ in COLORS["nearest256"]]
    assert picked == COLORS["nearest256"]


@pytest.mark.parametrize("value", list(COLORS["invalid"]))
def test_values_pi_rejects_are_rejected(value: str) -> None:
    with pytest.raises(colors.ColorError):
        colors.parse(value)


@pytest.mark.parametrize("name", ["dark", "light"])
@pytest.mark.parametrize("mode", ["truecolor", "256color"])
def test_the_builtin_themes_draw_every_role_as_pi_does(name: str, mode: colors.ColorMode) -> None:
    theme = themes.Theme(name, mode=mode)
    expected = BUILTIN[name]
    assert theme.appearance == expected["appearance"]
    assert set(theme.values) == set(expected["tokens"]) == set(themes.TOKENS)
    for role, want in expected["tokens"].items():
        assert theme.slot(role) == want["slot"], role
        drawn = theme.bg(role, "x") if want["slot"] == "background" else theme.fg(role, "x")
        assert drawn.startswith(want[mode] + "x"), role
        assert theme.color(role) == want["hex"], role


@pytest.mark.parametrize(
    ("environ", "setting", "mode"),
    [
        ({"COLORTERM": "truecolor"}, None, "truecolor"),
        ({"COLORTERM": "24bit", "TERM": "xterm-256color"}, None, "truecolor"),
        ({"TERM": "xterm-256color"}, None, "256color"),
        ({"TERM": "xterm-direct"}, None, "truecolor"),
        ({"TMUX": "/tmp/x", "TERM_PROGRAM": "ghostty"}, None, "256color"),  # tmux: only COLORTERM
        ({"TERM": "tmux-256color", "COLORTERM": "truecolor"}, None, "truecolor"),
        ({"KITTY_WINDOW_ID": "1"}, None, "truecolor"),
        ({"COLORTERM": "truecolor", "PI_TRUE_COLOR": "0"}, None, "256color"),
        ({"PI_TRUE_COLOR": "1"}, None, "truecolor"),
        ({"PI_TRUE_COLOR": "1"}, False, "256color"),  # the setting wins
        ({}, True, "truecolor"),
        ({"COLORTERM": "truecolor"}, "auto", "truecolor"),
    ],
)
def test_the_colour_depth_follows_the_setting_then_the_environment(
    environ: dict[str, str], setting: bool | str | None, mode: str
) -> None:
    assert colors.color_mode(environ, setting) == mode
