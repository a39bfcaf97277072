"""Ctrl+G: text edited in an external program, with the terminal handed over until it exits.

The program is the ``externalEditor`` setting, else ``$VISUAL``, else ``$EDITOR``, else ``nano``
(pi 1.6.0's order). Its command line is split as a shell would split it (``shlex``) and the
file's path goes last. The text is written to ``prompt.md`` in a fresh temporary directory, and
read back once the program exits with status 0 (a byte order mark and one final newline are
dropped, as pi does); any other outcome leaves the text as it was and says why.

The program runs in a process group of its own, made the terminal's foreground group before it
starts (a small launcher waits for that): Ctrl+C there reaches the editor, not pi, and pi takes
the terminal back afterwards. A
program that stops itself (Ctrl+Z in vim) is resumed at once, since pi, waiting for it, has no
shell prompt to go back to.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The program used when neither the setting nor ``$VISUAL`` / ``$EDITOR`` names one (pi's).
FALLBACK_EDITOR = "nano"
WINDOWS_FALLBACK_EDITOR = "notepad"


def editor_command(configured: str | None, env: Mapping[str, str] | None = None) -> str:
    """The command to run: ``configured`` (the ``externalEditor`` setting) unless blank, else
    ``$VISUAL``, else ``$EDITOR``, else :data:`FALLBACK_EDITOR` (Notepad on Windows)."""
    if configured is not None and configured.strip():
        return configured
    env = os.environ if env is None else env
    fallback = WINDOWS_FALLBACK_EDITOR if sys.platform == "win32" else FALLBACK_EDITOR
    return env.get("VISUAL") or env.get("EDITOR") or fallback


@dataclass(frozen=True)
class Edited:
    """What came of an edit: the new text, or ``None`` and why not."""

    text: str | None
    problem: str | None = None


@dataclass(frozen=True)
class ExternalEditor:
    """The external editor as a dialog offers it: the keys that open it, their names for the
    hint (``Ctrl+G``), and the edit itself (which hands the terminal over while it runs)."""

    keys: Sequence[tuple[str, ...]]
    label: str
    edit: Callable[[str], Awaitable[Edited]]


async def edit_externally(command: str, text: str) -> Edited:
    """``text`` edited in ``command``, run in the terminal of the application running now (its
    drawing is suspended and its input detached meanwhile), after a line naming the program —
    which stays in view when it opens a window of its own rather than taking the terminal."""
    from prompt_toolkit.application import get_app_or_none
    from prompt_toolkit.application.run_in_terminal import in_terminal

    try:
        argv = shlex.split(command)
    except ValueError as error:
        return Edited(None, f"External editor command cannot be split ({error}): {command}")
    if not argv:
        return Edited(None, "The external editor command is empty")
    async with in_terminal():
        app = get_app_or_none()
        if app is not None:
            app.output.write_raw(f"Opening {command}; pi resumes when it exits\n")
            app.output.flush()
        return await asyncio.to_thread(_edit, argv, command, text)


def _edit(argv: list[str], command: str, text: str) -> Edited:
    directory = Path(tempfile.mkdtemp(prefix="pi-editor-"))
    try:
        path = directory / "prompt.md"
        path.write_text(text, encoding="utf-8")
        try:
            status = _run_in_foreground([*argv, str(path)])
        except OSError as error:
            reason = error.strerror or str(error)
            return Edited(None, f"Failed to launch external editor: {command} ({reason})")
        if status != 0:
            how = f"code {status}" if status > 0 else _signal_name(-status)
            return Edited(None, f"External editor exited with {how}; prompt unchanged")
        try:
            edited = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return Edited(None, "The external editor left no file behind; prompt unchanged")
        edited = edited.removeprefix("\ufeff")
        return Edited(edited.removesuffix("\n"))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


#: Run in the editor's process before it becomes the editor: wait on the gate (a pipe) until pi
#: has made this process group the terminal's foreground one — a read of the terminal before that
#: fails where pi's parent ignores SIGTTIN, as tmux's does —, start with no signal blocked and the
#: job-control signals at their defaults (as a shell starts a job), then become the editor.
_LAUNCH = """
import os, signal, sys
os.read(int(sys.argv[1]), 1)
os.close(int(sys.argv[1]))
signal.pthread_sigmask(signal.SIG_SETMASK, [])
for number in (signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
    signal.signal(number, signal.SIG_DFL)
try:
    os.execvp(sys.argv[2], sys.argv[2:])
except OSError as error:
    sys.stderr.write(f"{sys.argv[2]}: {error.strerror}\\n")
    os._exit(127)
"""


def _run_in_foreground(argv: list[str]) -> int:
    """Run ``argv`` in a process group of its own that has the terminal meanwhile; its exit
    status (negative: the signal that ended it)."""
    if shutil.which(argv[0]) is None:
        raise FileNotFoundError(errno.ENOENT, "no such program", argv[0])
    if sys.platform == "win32":  # no process groups or terminal job control to hand over
        return subprocess.call(argv)
    gate, opening = os.pipe()
    try:
        launcher = [sys.executable, "-I", "-S", "-c", _LAUNCH, str(gate), *argv]
        process = subprocess.Popen(launcher, pass_fds=(gate,), process_group=0)
    except BaseException:
        os.close(opening)
        raise
    finally:
        os.close(gate)
    with _terminal_lent_to(process.pid):
        with contextlib.suppress(OSError):
            os.write(opening, b"go")
        os.close(opening)
        while True:
            _, status = os.waitpid(process.pid, os.WUNTRACED)
            if not os.WIFSTOPPED(status):
                break
            # Stopped by its own Ctrl+Z (vim's): pi has no shell prompt to go back to. Go on.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGCONT)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode


@contextlib.contextmanager
def _terminal_lent_to(group: int) -> Iterator[None]:
    """The controlling terminal's foreground group is ``group`` inside, pi's own again after —
    when pi is that terminal's foreground group to begin with (not under a pipe, in tests)."""
    fd = next((fd for fd in (0, 1, 2) if os.isatty(fd)), None)
    mine = os.getpgrp()
    try:
        lend = fd is not None and os.tcgetpgrp(fd) == mine
    except OSError:
        lend = False
    if lend:
        assert fd is not None
        with contextlib.suppress(OSError):
            os.tcsetpgrp(fd, group)
    try:
        yield
    finally:
        if lend:
            assert fd is not None
            # pi is in the background now: taking the terminal back would stop it with SIGTTOU
            # unless that signal is blocked.
            old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTTOU})
            try:
                with contextlib.suppress(OSError):
                    os.tcsetpgrp(fd, mine)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
