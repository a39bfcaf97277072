"""The ``system`` theme against what the real pi 1.6.0 makes of the same terminal colours
(tests/fixtures/pi16_colors/system_theme.json, written by make_system_theme.mjs)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pi_core.runtime import system_theme, themes

FIXTURE: dict[str, Any] = json.loads(
    (Path(__file__).parents[2] / "fixtures" / "pi16_colors" / "system_theme.json").read_text(encoding="utf-8")
)
CASES = {case["name"]: case for case in FIXTURE["cases"]}


@pytest.fixture(autouse=True)
def _forget_the_terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("COLORFGBG", raising=False)
    system_theme.reset()
    yield
    system_theme.reset()


def _rgb(value: dict[str, int] | None) -> tuple[int, int, int] | None:
    return None if value is None else (value["r"], value["g"], value["b"])


def _hex(value: str | None) -> tuple[int, int, int] | None:
    return None if value is None else (int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16))


def _reported(given: dict[str, Any]) -> system_theme.Reported:
    palette = given.get("palette")
    return system_theme.Reported(
        _rgb(given.get("foreground")),
        _rgb(given.get("background")),
        tuple(rgb for rgb in map(_rgb, palette) if rgb is not None) if palette else None,
    )


@pytest.mark.parametrize("name", list(CASES))
def test_every_role_gets_the_colour_pi_makes_of_the_terminal(name: str) -> None:
    given, want = CASES[name]["input"], CASES[name]["output"]
    reported = _reported(given)
    made = system_theme.generate(
        reported.background,
        reported.foreground,
        reported.palette,
        saturation=given.get("saturation", 1),
        appearance_hint=given.get("appearanceHint", "dark"),
    )
    assert made.colors == want["colors"]
    assert list(made.colors) == list(want["colors"])
    assert list(made.dim) == want["dim"] and made.appearance == want["appearance"]


@pytest.mark.parametrize(("background", "foreground", "appearance"), FIXTURE["appearance"])
def test_dark_or_light_is_judged_as_pi_judges_it(
    background: str, foreground: str | None, appearance: str
) -> None:
    judged = system_theme.terminal_appearance(_hex(background) or (0, 0, 0), _hex(foreground))
    assert judged == appearance


@pytest.mark.parametrize("name", list(FIXTURE["drawn"]))
def test_the_theme_draws_each_role_with_pis_escape_and_exports_pis_colour(name: str) -> None:
    given, want = CASES[name]["input"], FIXTURE["drawn"][name]
    system_theme.report(_reported(given))
    if "appearanceHint" in given:
        system_theme.report_scheme(given["appearanceHint"])
    theme = themes.load("system", [], "truecolor")
    assert theme.name == "system" and theme.appearance == want["appearance"]
    for role, escape in want["escapes"].items():
        drawn = theme.bg(role, "x") if theme.slot(role) == "background" else theme.fg(role, "x")
        assert drawn.startswith(escape + "x"), role
        assert theme.color(role) == want["hex"][role], role


def test_the_theme_is_grey_while_the_answer_is_awaited_and_made_once_per_answer() -> None:
    system_theme.mark_pending()
    waiting = themes.load("system", [], "truecolor")
    assert waiting.values["accent"] is None and waiting.values["error"] is None  # grey: no indexes
    assert themes.load("system", [], "truecolor") is waiting
    frappe = _reported(CASES["catppuccinFrappe"]["input"])
    assert system_theme.report(frappe)
    answered = themes.load("system", [], "truecolor")
    assert (
        answered is not waiting
        and answered.color("accent") == CASES["catppuccinFrappe"]["output"]["colors"]["accent"]
    )
    assert not system_theme.report(system_theme.Reported())  # a later silence keeps the answer
    assert themes.load("system", [], "truecolor") is answered


def test_a_pair_follows_the_reported_background_before_colorfgbg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLORFGBG", "15;0")  # says dark
    assert themes.resolve_setting("sun/moon") == "moon"
    system_theme.report_scheme("light")  # the terminal's notification outranks COLORFGBG
    assert themes.resolve_setting("sun/moon") == "sun"
    system_theme.report(system_theme.Reported((0, 0, 0), (250, 250, 250)))
    assert themes.resolve_setting("sun/moon") == "sun"
    system_theme.report(system_theme.Reported((240, 240, 240), (10, 10, 10)))
    assert themes.resolve_setting("sun/moon") == "moon"  # the background outranks both
    assert themes.resolve_setting(None) == themes.resolve_setting("system") == "system"
