"""The real ``pi`` asks its terminal for extended key reports, as pi 1.6.0 does, in both TUI modes:
under tmux with ``extended-keys`` on (modifyOtherKeys) Shift+Enter adds a line to the message;
under a terminal that knows the kitty protocol (``answering_terminal.py --kitty``) it does too; and
every way the terminal is handed back — an external editor, Ctrl+Z, quitting, SIGTERM — undoes
what was switched on (``answering_terminal.py --keys`` logs each request)."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import Text, Turn

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

ANSWERING = str(Path(__file__).with_name("answering_terminal.py"))


def _sent(pi_env: PiEnv) -> str:
    message = pi_env.server.requests[-1].body["messages"][-1]
    content = message["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def _two_lines_in_editor(screen: str) -> bool:
    lines = [line.rstrip() for line in screen.splitlines()]
    return any(
        line.endswith("> first") and following.endswith(" second") and ">" not in following
        for line, following in itertools.pairwise(lines)
    )


@pytest.mark.parametrize("tui", ["regular", "fullscreen"])
def test_shift_enter_adds_a_line_under_tmux_extended_keys(
    tui: str, pi_env: PiEnv, request: pytest.FixtureRequest
) -> None:
    pane = start_pane(pi_env, tui=tui)
    request.addfinalizer(pane.kill)
    pane.tmux("set", "-s", "extended-keys", "on")
    pi_env.server.add(Turn(blocks=[Text("TWO-LINES-RECEIVED")]))
    pane.wait_for_editor()
    pane.type("first")
    pane.wait_for("> first")
    pane.keys("S-Enter")
    pane.type("second")
    pane.wait_for(_two_lines_in_editor, timeout=10)
    assert not pi_env.server.requests  # Shift+Enter did not send
    pane.keys("Enter")
    pane.wait_for("TWO-LINES-RECEIVED")
    assert _sent(pi_env) == "first\nsecond"


def _requests(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [line for line in log.read_text().splitlines() if line.startswith(("KEYS ", "EDITOR"))]


def _left_as_found(lines: list[str]) -> bool:
    """Every push popped and modifyOtherKeys back at 0 at the end of ``lines``."""
    depth, modify = 0, "0"
    for line in lines:
        if line.startswith("KEYS push"):
            depth += 1
        elif line == "KEYS pop":
            depth -= 1
        elif line.startswith("KEYS modifyOtherKeys"):
            modify = line.split()[-1]
    return depth == 0 and modify == "0"


@pytest.mark.parametrize(("tui", "kitty"), [("regular", True), ("fullscreen", True), ("fullscreen", False)])
def test_every_hand_over_leaves_the_terminal_as_found(
    tui: str, kitty: bool, pi_env: PiEnv, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    log = tmp_path / "terminal.log"
    editor = tmp_path / "editor.sh"
    editor.write_text(f'#!/bin/sh\necho EDITOR >> {log}\nprintf "edited\\n" > "$1"\n')
    editor.chmod(0o755)
    pi_env.extra_env["VISUAL"] = str(editor)
    wrapper = [sys.executable, ANSWERING, "--keys", *(["--kitty"] if kitty else []), "--log", str(log), "--"]
    pane = start_pane(pi_env, tui=tui, prefix=wrapper)
    request.addfinalizer(pane.kill)
    pane.wait_for_editor()
    on = "KEYS push 7" if kitty else "KEYS modifyOtherKeys 2"
    pane.wait_for(lambda _: on in _requests(log), timeout=10)
    assert _requests(log)[:2] == ["KEYS push 7", "KEYS query"]
    assert ("KEYS modifyOtherKeys 2" in _requests(log)) is not kitty  # the kitty answer came first
    if kitty:  # kitty's reports of Shift+Enter (and its release) add a line
        pane.type("first")
        pane.wait_for("> first")
        pane.keys("C-^")
        pane.type("second")
        pane.wait_for(_two_lines_in_editor, timeout=10)
        pane.keys("C-c")

    # the external editor
    pane.keys("C-g")
    pane.wait_for("> edited", timeout=10)
    lines = _requests(log)
    assert _left_as_found(lines[: lines.index("EDITOR")])
    pane.wait_for(lambda _: _requests(log).count("KEYS push 7") == 2, timeout=10)

    # Ctrl+Z: the terminal is put back before pi stops and asked again once it runs (pi is
    # alone in its session here, so the kernel lets it go on at once)
    pane.keys("C-z")
    pane.wait_for(lambda _: _requests(log).count("KEYS push 7") == 3, timeout=10)
    lines = _requests(log)
    assert _left_as_found(lines[: len(lines) - lines[::-1].index("KEYS push 7") - 1])

    # a crash: SIGTERM ends pi with its terminal put back
    pid = int(next(line for line in log.read_text().splitlines() if line.startswith("PID "))[4:])

    os.kill(pid, signal.SIGTERM)
    pane.wait_for("PI-EXITED=", timeout=15)
    assert _left_as_found(_requests(log))
    assert "[?u" not in pane.screen() and "4;2m" not in pane.screen()


def test_quitting_undoes_modify_other_keys(
    pi_env: PiEnv, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    log = tmp_path / "terminal.log"
    pane: Pane = start_pane(
        pi_env, tui="regular", prefix=[sys.executable, ANSWERING, "--keys", "--log", str(log), "--"]
    )
    request.addfinalizer(pane.kill)
    pane.wait_for_editor()
    pane.wait_for(lambda _: "KEYS modifyOtherKeys 2" in _requests(log), timeout=10)
    pane.keys("C-d")
    pane.wait_for("PI-EXITED=0", timeout=15)
    assert _requests(log)[-2:] == ["KEYS pop", "KEYS modifyOtherKeys 0"]
    assert _left_as_found(_requests(log))
