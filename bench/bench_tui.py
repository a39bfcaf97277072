"""Our REPL against pi 1.6.0's TUI in tmux, as a person uses them, runs interleaved.

Each run starts the program in a tmux pane of its own (120x40, a private ``-L`` socket), with a
throwaway home whose ``models.json`` points at pi_core.testing's loopback server, and reads the
screen with ``capture-pane`` every few milliseconds:

* ``first-token``: Enter on a prompt until the answer's first word is on screen;
* ``esc-abort``: Esc while an answer streams until "Operation aborted" is on screen;
* ``echo``: while an answer streams at ~200 tokens/s, one key until it shows in the editor
  (median of several keys per run);
* ``rss-1000``: resident memory of the program once a session of 1,000 messages is resumed and
  drawn (``--session FILE``), summed over its processes.

Polling the screen costs a few milliseconds per look; the figures include it for both programs.

    uv run python bench/bench_tui.py --runs 5
    uv run python bench/bench_tui.py --tui-mode regular --rows first-token,esc-abort
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bytecode import compile_environment
from _tmux import start, throwaway_home
from bench_vs_pi16 import find_pi16, make_session
from pi_core.testing import LoopbackLLMServer, Text, Turn

OURS = str(Path(sys.executable).with_name("pi"))
ROWS = ("first-token", "esc-abort", "echo", "rss-1000")


def run_row(row: str, program: list[str], env: dict[str, str], cwd: Path, server: LoopbackLLMServer,
            session: Path) -> float:  # fmt: skip
    if row == "rss-1000":
        pane = start(program, env, cwd, "--session", str(session))
        try:
            pane.wait(lambda s: "module_996" in s or "Let me read" in s, timeout=120, poll=0.05)
            time.sleep(2)
            return pane.rss_mb()
        finally:
            pane.kill()
    words = "alpha " + "tok " * 1200
    server.add(Turn(blocks=[Text(words, chunks=1200)], delay=0.005))  # ~200 tokens/s
    pane = start(program, env, cwd)
    try:
        pane.tmux("send-keys", "-t", "b", "-l", "hello")
        sent = time.monotonic()
        pane.tmux("send-keys", "-t", "b", "Enter")
        if row == "first-token":
            return pane.wait(lambda s: "alpha" in s) - sent
        pane.wait(lambda s: s.count("tok tok") > 3)
        if row == "esc-abort":
            sent = time.monotonic()
            pane.tmux("send-keys", "-t", "b", "Escape")
            return pane.wait(lambda s: "Operation aborted" in s) - sent
        delays = []
        for key in "QWXYZ":
            sent = time.monotonic()
            pane.tmux("send-keys", "-t", "b", "-l", key)
            delays.append(pane.wait(lambda s, k=key: k in s) - sent)
            time.sleep(0.1)
        pane.tmux("send-keys", "-t", "b", "Escape")
        return statistics.median(delays)
    finally:
        pane.kill()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--pi16", help="launcher of pi 1.6.0 (default: $PI16 or bench/install_pi16.sh)")
    parser.add_argument("--tui-mode", default="fullscreen", choices=("fullscreen", "regular"))
    args = parser.parse_args()
    compile_environment()  # as an install would (see bench/_bytecode.py)
    programs = {"ours": [OURS, "--tui-mode", args.tui_mode], "pi 1.6.0": [find_pi16(args.pi16)]}
    with LoopbackLLMServer() as server, tempfile.TemporaryDirectory(prefix="pi-tui-bench-") as tmp:
        root = Path(tmp)
        made = throwaway_home(root, server)
        env, project = made.env, made.project
        session = root / "s1000.jsonl"
        make_session(session, 1000, str(project))
        print(
            f"| row | {' | '.join(programs)} | (medians of {args.runs} interleaved runs; tui {args.tui_mode})"
        )
        for row in args.rows.split(","):
            samples: dict[str, list[float]] = {name: [] for name in programs}
            for _ in range(args.runs):
                for name, program in programs.items():
                    if row == "rss-1000":
                        pristine = session.read_bytes()
                    try:
                        samples[name].append(run_row(row, program, env, project, server, session))
                    except TimeoutError as error:
                        print(f"  ({name} {row}: timed out; screen:\n{error})", file=sys.stderr)
                    if row == "rss-1000":
                        session.write_bytes(pristine)
            unit = "MB" if row == "rss-1000" else "ms"
            scale = 1 if row == "rss-1000" else 1000
            cells = [
                f"{statistics.median(v) * scale:.0f} {unit} (min {min(v) * scale:.0f}, max {max(v) * scale:.0f})"
                if v
                else "-"
                for v in samples.values()
            ]
            print(f"| {row} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
