"""A terminal between tmux and a program that answers its colour questions itself.

tmux answers OSC 10/11/4 only with what its outer terminal told it, and a detached test server
has none, so the ``system`` theme's e2e tests run pi through this: a pty of its own, everything
copied both ways, except that OSC 10/11/4 questions and DA1 (``ESC [ c``) are answered here with
the colours given and not passed on. Each question is logged (one line) to ``--log``.

    python answering_terminal.py --background 1e1e2e --foreground cdd6f4 --palette HEX,…(16)
        [--delay SECONDS] [--chunk N] [--log FILE] -- command args…

``--delay`` holds the answers back (past pi's wait: they arrive late); ``--chunk`` writes them
N bytes at a time, so that an answer arrives cut in pieces. ``--switch BACKGROUND,FOREGROUND``:
Ctrl+] (not passed on) turns the terminal to those colours and, while the program has asked for
light/dark reports (DEC mode 2031, each change logged as ``MODE 2031 on|off``), reports the
switch (``CSI ? 997 ; 1|2 n``). ``--program-status`` makes it a terminal that takes OSC 7501
program status: the support query is answered, and each report is logged decoded
(``STATUS state=… kind=… msg=…``) and not passed on. ``--keys`` logs the program's key-report
requests (``KEYS push 7``, ``KEYS pop``, ``KEYS query``, ``KEYS modifyOtherKeys 2``) and its
child's pid (``PID n``); with ``--kitty`` it is a terminal that knows the kitty keyboard protocol:
it keeps the pushed flags, answers ``CSI ? u`` with those in force and passes none of it on, and
while flags are in force Ctrl+^ (not passed on) sends Shift+Enter's press and release reports.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import os
import pty
import re
import select
import signal
import sys
import termios
import time
import tty

_QUESTION = re.compile(rb"\x1b\](10|11|4;(\d+));\?(?:\x07|\x1b\\)|\x1b\[0?c")
_MODE = re.compile(rb"\x1b\[\?2031([hl])")
_STATUS = re.compile(rb"\x1b\]7501;([^\x07\x1b]*)(?:\x07|\x1b\\)")
_KEYS = re.compile(rb"\x1b\[(?:>(\d*)u|<(\d*)u|\?u|>4;(\d*)m)")


def _status_line(body: bytes) -> str:
    pairs = []
    for pair in body.decode("latin-1").split(":"):
        key, _, value = pair.partition("=")
        if key == "msg":
            value = base64.b64decode(value).decode()
        pairs.append(f"{key}={value}")
    return "STATUS " + " ".join(pairs)


def _x11(hex_colour: str) -> bytes:
    red, green, blue = (hex_colour[index : index + 2] for index in (0, 2, 4))
    return f"rgb:{red}{red}/{green}{green}/{blue}{blue}".encode()


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[0:2], 16), int(hex_colour[2:4], 16), int(hex_colour[4:6], 16)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--background")
    parser.add_argument("--foreground")
    parser.add_argument("--palette", default="")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--chunk", type=int, default=0)
    parser.add_argument("--log")
    parser.add_argument("--switch")
    parser.add_argument("--program-status", action="store_true")
    parser.add_argument("--keys", action="store_true")
    parser.add_argument("--kitty", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    palette = [colour for colour in options.palette.split(",") if colour]

    def answer(match: re.Match[bytes]) -> bytes:
        if match[0].endswith(b"c"):
            return b"\x1b[?62;22c"
        what = match[1]
        if what == b"10" and options.foreground:
            return b"\x1b]10;" + _x11(options.foreground) + b"\x1b\\"
        if what == b"11" and options.background:
            return b"\x1b]11;" + _x11(options.background) + b"\x1b\\"
        if match[2] is not None and int(match[2]) < len(palette):
            return b"\x1b]4;" + match[2] + b";" + _x11(palette[int(match[2])]) + b"\x07"
        return b""

    pid, child = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)

    def resize(*_: object) -> None:
        size = fcntl.ioctl(sys.stdout.fileno(), termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(child, termios.TIOCSWINSZ, size)

    resize()
    signal.signal(signal.SIGWINCH, resize)
    saved = termios.tcgetattr(sys.stdin.fileno())
    tty.setraw(sys.stdin.fileno())
    log = open(options.log, "a", encoding="utf-8") if options.log else None  # noqa: SIM115
    if log is not None and options.keys:
        log.write(f"PID {pid}\n")
        log.flush()
    flags: list[int] = []  # the kitty flags stack

    def keys(match: re.Match[bytes]) -> bytes:
        """Log one key-report request; as a kitty terminal, keep and answer it."""
        if match[0].endswith(b"m"):
            line, keep = f"modifyOtherKeys {match[3].decode() or 0}", True
        elif match[1] is not None:
            line, keep = f"push {match[1].decode() or 0}", not options.kitty
            flags.append(int(match[1] or 0))
        elif match[2] is not None:
            line, keep = "pop", not options.kitty
            del flags[len(flags) - int(match[2] or 1) :]
        else:
            line, keep = "query", not options.kitty
            if options.kitty:
                pending.append((time.monotonic(), f"\x1b[?{flags[-1] if flags else 0}u".encode()))
        if log is not None:
            log.write(f"KEYS {line}\n")
            log.flush()
        return match[0] if keep else b""

    pending: list[tuple[float, bytes]] = []
    carry = b""
    reports = False
    try:
        while True:
            now = time.monotonic()
            wait = max(0.0, min((due for due, _ in pending), default=now + 0.5) - now)
            try:
                ready, _, _ = select.select([sys.stdin.fileno(), child], [], [], wait)
            except InterruptedError:
                continue
            if child in ready:
                try:
                    data = carry + os.read(child, 65536)
                except OSError:
                    break
                if not data:
                    break
                carry = b""
                status_answer = b""
                if options.program_status:
                    for match in _STATUS.finditer(data):
                        if match[1] == b"?":
                            status_answer += b"\x1b]7501;?\x1b\\"
                        elif log is not None:
                            log.write(_status_line(match[1]) + "\n")
                            log.flush()
                    data = _STATUS.sub(b"", data)
                    start = data.rfind(b"\x1b]7501;")
                    if start != -1:  # a report cut by the read: the rest comes next
                        data, carry = data[:start], data[start:]
                cut = data.rfind(b"\x1b")
                whole = any(pattern.match(data, cut) for pattern in (_QUESTION, _KEYS, _MODE))
                if not carry and cut != -1 and len(data) - cut < 16 and not whole:
                    data, carry = data[:cut], data[cut:]  # perhaps a question cut in two
                for mode in _MODE.finditer(data):
                    reports = mode[1] == b"h"
                    if log is not None:
                        log.write(f"MODE 2031 {'on' if reports else 'off'}\n")
                        log.flush()
                if options.keys:
                    data = _KEYS.sub(keys, data)
                answers = status_answer
                for match in _QUESTION.finditer(data):
                    answers += answer(match)
                    if log is not None:
                        log.write(match[0].decode("latin-1").replace("\x1b", "ESC") + "\n")
                        log.flush()
                os.write(sys.stdout.fileno(), _QUESTION.sub(b"", data))
                if answers:
                    pending.append((time.monotonic() + options.delay, answers))
            if sys.stdin.fileno() in ready:
                data = os.read(sys.stdin.fileno(), 65536)
                if not data:
                    break
                if options.switch and b"\x1d" in data:
                    data = data.replace(b"\x1d", b"")
                    options.background, options.foreground = options.switch.split(",")
                    if reports:
                        light = sum(_rgb(options.background)) > sum(_rgb(options.foreground))
                        os.write(child, b"\x1b[?997;2n" if light else b"\x1b[?997;1n")
                if options.kitty and b"\x1e" in data:
                    shift_enter = b"\x1b[13;2u\x1b[13;2:3u" if flags and flags[-1] else b""
                    data = data.replace(b"\x1e", shift_enter)
                if data:
                    os.write(child, data)
            now = time.monotonic()
            for entry in [entry for entry in pending if entry[0] <= now]:
                pending.remove(entry)
                step = options.chunk or len(entry[1])
                for start in range(0, len(entry[1]), step):
                    os.write(child, entry[1][start : start + step])
                    if options.chunk:
                        time.sleep(0.005)
    finally:
        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
