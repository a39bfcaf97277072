"""The tmux harness of the terminal tests: ``pi`` in a tmux pane of its own, driven by keys.

``start_pane(pi_env, ...)`` starts ``pi`` in a new 120x40 tmux server (its own socket, so tests
running side by side never share one); the returned ``Pane`` types, sends keys, reads the screen
and waits for text on it. When ``pi`` exits the pane prints ``PI-EXITED=<status>`` and stays
open a little while, so a test can read what was left on the screen.
"""

from __future__ import annotations

import atexit
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conftest import PiEnv

PI = str(Path(sys.executable).with_name("pi"))

#: Sockets of the tmux servers this process started and has not killed yet. A test stopped before
#: its own clean-up (a timeout, an interrupted run) would otherwise leave its ``pi`` running.
_live_sockets: set[str] = set()


@atexit.register
def _kill_leftover_servers() -> None:
    for socket in list(_live_sockets):
        Pane(socket).kill()


class Pane:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False
        ).stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "pi", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "pi", "-l", text)

    def submit(self, text: str, shown: str | None = None, timeout: float = 10) -> None:
        """Type ``text``, wait until the screen shows it, then press Enter.

        What is waited for is the end of ``text``'s last line (``shown`` instead where the field
        draws something else, e.g. ``"*" * len(text)`` for a secret), one more time than it was on
        the screen before typing, so an earlier copy in the transcript does not count. When it does
        not appear within ``timeout`` the Enter goes anyway: the step after it then says what went
        wrong with the screen it saw.
        """
        expected = shown if shown is not None else (text.splitlines() or [""])[-1][-20:]
        before = self.visible().count(expected) if expected else 0
        self.type(text)
        if expected:
            deadline = time.monotonic() + timeout
            while self.visible().count(expected) <= before and time.monotonic() < deadline:
                time.sleep(0.02)
        self.keys("Enter")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", "pi", "-S", "-200")

    def visible(self) -> str:
        """Only what is on screen now (no scrollback)."""
        return self.tmux("capture-pane", "-p", "-J", "-t", "pi")

    def wait_for(self, check: str | Callable[[str], bool], timeout: float = 20, poll: float = 0.1) -> str:
        predicate = (lambda s: check in s) if isinstance(check, str) else check
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if predicate(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {check!r}; screen:\n{screen}")
            time.sleep(poll)

    def wait_for_editor(self) -> str:
        """Wait until the editor is drawn (an empty ``>`` line): keys typed before prompt-toolkit
        has the terminal in raw mode go through the tty's line discipline, which turns Enter into
        a newline inside the editor instead of a submit."""
        return self.wait_for(lambda screen: any(line.rstrip() == ">" for line in screen.splitlines()))

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)
        _live_sockets.discard(self.socket)

    def alive(self) -> bool:
        return "pi" in self.tmux("list-sessions", "-F", "#{session_name}").split()


def start_pane(
    pi_env: PiEnv,
    *args: str,
    tui: str | None = "regular",
    model: str | None = "loop/fake-model",
    prefix: Sequence[str] = (),
) -> Pane:
    """``pi --model MODEL --tui-mode TUI ARGS`` in a new 120x40 tmux session of its own, with the
    environment's ``PI_*``, ``HOME`` and ``PATH`` and what the test put in ``pi_env.extra_env``.

    ``model=None`` / ``tui=None`` leave that option off (a first run with no model chosen);
    ``prefix`` is a command pi runs under (such as a terminal of the test's own).
    """
    socket = f"pi-test-{uuid.uuid4().hex[:8]}"
    env = pi_env.env()
    options = [*(["--model", model] if model else []), *(["--tui-mode", tui] if tui else [])]
    command = " ".join(
        [
            "env",
            *(
                shlex.quote(f"{k}={v}")
                for k, v in env.items()
                if k.startswith(("PI_", "HOME", "PATH")) or k in pi_env.extra_env
            ),
            "TERM=xterm-256color",
            *(shlex.quote(part) for part in prefix),
            shlex.quote(PI),
            *options,
            *(shlex.quote(arg) for arg in args),
            "; echo PI-EXITED=$?; sleep 30",
        ]
    )
    subprocess.run(
        ["tmux", "-L", socket, "new-session", "-d", "-s", "pi", "-x", "120", "-y", "40", "-c",
         str(pi_env.project), command],
        check=True,
    )  # fmt: skip
    _live_sockets.add(socket)
    return Pane(socket)
