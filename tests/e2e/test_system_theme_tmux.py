"""The real ``pi`` in tmux, under a terminal that answers the colour question
(``answering_terminal.py``: tmux itself answers only with what an outer terminal told it): the
``system`` theme takes the terminal's colours — promptly answered or late and cut in pieces —
and not one byte of the answers reaches the editor. Colours are read from the screen with their
escapes (``capture-pane -e``)."""

from __future__ import annotations

import re
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pi_core.runtime import system_theme
from pi_core.runtime.themes import Theme

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

ANSWERING = str(Path(__file__).with_name("answering_terminal.py"))
#: Catppuccin Frappé: background, foreground, the 16 ANSI colours.
BACKGROUND, FOREGROUND = "303446", "c6d0f5"
PALETTE = [
    "51576d",
    "e78284",
    "a6d189",
    "e5c890",
    "8caaee",
    "f4b8e4",
    "81c8be",
    "b5bfe2",
    "626880",
    "e78284",
    "a6d189",
    "e5c890",
    "8caaee",
    "f4b8e4",
    "81c8be",
    "a5adce",
]


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    hex_colour = hex_colour.lstrip("#")
    return int(hex_colour[0:2], 16), int(hex_colour[2:4], 16), int(hex_colour[4:6], 16)


def _expected(role: str, background: str = BACKGROUND, foreground: str = FOREGROUND) -> str:
    """The SGR parameters of ``role``'s foreground in the theme made of this terminal's colours."""
    made = system_theme.generate(_rgb(background), _rgb(foreground), [_rgb(colour) for colour in PALETTE])
    red, green, blue = _rgb(str(made.colors[role]))
    return f"38;2;{red};{green};{blue}"


def _start(
    pi_env: PiEnv,
    tui: str,
    log: Path,
    *terminal: str,
    background: str = BACKGROUND,
    foreground: str = FOREGROUND,
) -> Pane:
    pi_env.extra_env["PI_TRUE_COLOR"] = "1"
    wrapper = [sys.executable, ANSWERING, "--background", background, "--foreground", foreground]
    wrapper += ["--palette", ",".join(PALETTE), "--log", str(log), *terminal, "--"]
    return start_pane(pi_env, tui=tui, prefix=wrapper)


def coloured(pane: Pane) -> str:
    return pane.tmux("capture-pane", "-p", "-e", "-t", "pi")


def _no_answer_on_screen(pane: Pane) -> None:
    screen = pane.screen()
    assert "rgb:" not in screen and "]11;" not in screen and "?62;" not in screen, screen


@pytest.mark.parametrize("tui", ["regular", "fullscreen"])
def test_the_system_theme_takes_the_colours_the_terminal_answers(
    tui: str, pi_env: PiEnv, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    log = tmp_path / "questions.log"
    pane = _start(pi_env, tui, log)
    request.addfinalizer(pane.kill)
    pane.wait_for_editor()
    dim = _expected("dim")
    pane.wait_for(lambda _: dim in coloured(pane), timeout=20)  # the footer's dim text
    pane.type("hello")
    pane.wait_for("hello")
    _no_answer_on_screen(pane)
    assert log.read_text(encoding="utf-8").count("ESC]11;?") == 1  # asked once at start-up


def test_late_answers_cut_in_pieces_still_count_and_stay_out_of_the_editor(
    pi_env: PiEnv, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    log = tmp_path / "questions.log"
    pane = _start(pi_env, "regular", log, "--delay", "0.4", "--chunk", "5")
    request.addfinalizer(pane.kill)
    time.sleep(1)
    pane.type("abc")  # while pi starts: kept for the editor, once
    pane.wait_for(lambda screen: any(line.rstrip() == "> abc" for line in screen.splitlines()))
    dim = _expected("dim")
    pane.wait_for(lambda _: dim in coloured(pane), timeout=20)  # after pi's 100 ms wait
    _no_answer_on_screen(pane)
    pane.keys("C-u")
    pane.submit("/reload")
    pane.wait_for("Reloaded")
    pane.wait_for(lambda _: log.read_text(encoding="utf-8").count("ESC]11;?") == 2, timeout=10)
    pane.type("xyz")
    pane.wait_for(lambda screen: any(line.rstrip().endswith("> xyz") for line in screen.splitlines()))
    _no_answer_on_screen(pane)


def test_the_theme_follows_the_terminal_turning_light_and_reports_stop_while_it_is_lent(
    pi_env: PiEnv, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    log = tmp_path / "questions.log"
    pi_env.extra_env.update(VISUAL="true", EDITOR="true")  # an external editor that returns at once
    pane = _start(pi_env, "regular", log, "--switch", "fdf6e3,657b83")  # to Solarized Light
    request.addfinalizer(pane.kill)
    pane.wait_for_editor()
    pane.wait_for(lambda _: _expected("dim") in coloured(pane), timeout=20)
    assert "MODE 2031 on" in log.read_text(encoding="utf-8")  # the system theme follows the terminal
    pane.keys("C-]")  # the terminal turns light and says so
    pane.wait_for(lambda _: log.read_text(encoding="utf-8").count("ESC]11;?") == 2, timeout=10)
    light = _expected("dim", "fdf6e3", "657b83")
    pane.wait_for(lambda _: light in coloured(pane), timeout=10)
    _no_answer_on_screen(pane)
    pane.type("note")
    pane.wait_for("note")
    pane.keys("C-g")  # the external editor has the terminal: no reports meanwhile
    lent = ["MODE 2031 off", "MODE 2031 on"]

    def modes() -> list[str]:  # the key reports' question (its DA1) is logged too
        return [line for line in log.read_text(encoding="utf-8").splitlines() if line.startswith("MODE")]

    pane.wait_for(lambda _: modes()[-2:] == lent)
    pane.wait_for(lambda screen: any(line.rstrip().endswith("> note") for line in screen.splitlines()))


def test_a_mid_grey_terminal_gets_its_relaxed_theme(
    pi_env: PiEnv, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Near mid-grey every level cannot be met and the generator relaxes them (the slow case:
    the theme is made in a thread); the REPL still comes up in it."""
    pane = _start(pi_env, "regular", tmp_path / "questions.log", background="777777", foreground="000000")
    request.addfinalizer(pane.kill)
    pane.wait_for_editor()
    dim = _expected("dim", "777777", "000000")
    assert dim != _expected("dim")
    pane.wait_for(lambda _: dim in coloured(pane), timeout=20)
    _no_answer_on_screen(pane)


def test_a_light_dark_pair_takes_the_one_the_reported_background_asks_for(
    pi_env: PiEnv, request: pytest.FixtureRequest
) -> None:
    """COLORFGBG says dark, the terminal's background is light: the background decides."""
    assert Theme("light").color("dim") != Theme("dark").color("dim")
    pi_env.extra_env.update(COLORFGBG="15;0", PI_TRUE_COLOR="1")
    pane = start_pane(
        pi_env,
        "--use-theme",
        "light/dark",
        tui="regular",
        prefix=[sys.executable, ANSWERING, "--background", "fdf6e3", "--foreground", "657b83", "--"],
    )
    request.addfinalizer(pane.kill)
    pane.wait_for_editor()
    red, green, blue = _rgb(Theme("light").color("dim"))
    pane.wait_for(lambda _: f"38;2;{red};{green};{blue}" in coloured(pane), timeout=20)


def test_fullscreen_is_grey_then_ansi_after_the_wait_then_in_the_late_colours(
    pi_env: PiEnv, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The application is up before the answer: grey while it is awaited (the unit tests look
    at that), pi's ANSI fallback once the 100 ms wait is over, the terminal's colours when they
    come, seconds later. A ``!`` command's prompt shows which: uncoloured while grey."""
    pane = _start(pi_env, "fullscreen", tmp_path / "questions.log", "--delay", "3")
    request.addfinalizer(pane.kill)
    started = time.monotonic()

    def prompt_row() -> str:
        rows = coloured(pane).splitlines()
        return next((row for row in rows if re.sub(r"\x1b\[[\d;]*m", "", row).startswith("> !")), "")

    pane.wait_for_editor()
    pane.type("!")
    pane.wait_for(lambda _: re.search(r"\x1b\[(3[1-7]|38;5;\d+)m", prompt_row()) is not None, timeout=20)
    assert _expected("dim") not in coloured(pane)  # the answer is still held back
    pane.wait_for(lambda _: "38;2;" in prompt_row(), timeout=20)  # the bash prompt in the real colours
    assert _expected("dim") in coloured(pane) and time.monotonic() - started > 3
    _no_answer_on_screen(pane)
