"""From launch to the header, and to the editor, of the REPL in tmux — with a terminal that
answers the colour question (``tests/e2e/answering_terminal.py``, Catppuccin Frappé) and with
tmux alone (a detached tmux answers only DA1), for this checkout's ``pi`` and, given
``--before PI``, another one (e.g. an older checkout's), run by run interleaved.

The REPL asks the terminal for its colours as it starts and the header waits for the answer (at
most 100 ms); these rows show what that costs. The answering terminal is a Python program of its
own between tmux and pi, so its rows include its start-up: compare rows of one terminal only.
The screen is polled every 10 ms. No model is configured (a throwaway home): the REPL starts
without one.

    uv run python bench/bench_tui_startup.py --runs 8 [--before /other/checkout/.venv/bin/pi]
"""

from __future__ import annotations

import argparse
import math
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _tmux import Pane, with_env

ROOT = Path(__file__).resolve().parents[1]
PI = str(Path(sys.executable).with_name("pi"))
ANSWERING = ROOT / "tests" / "e2e" / "answering_terminal.py"
PALETTE = "51576d,e78284,a6d189,e5c890,8caaee,f4b8e4,81c8be,b5bfe2,626880,e78284,a6d189,e5c890,8caaee,f4b8e4,81c8be,a5adce"


def _answering(pi: str) -> str:
    terminal = [sys.executable, str(ANSWERING), "--background", "303446", "--foreground", "c6d0f5"]
    return shlex.join([*terminal, "--palette", PALETTE, "--", pi])


def _one(command: str, home: str, mode: str) -> tuple[float, float]:
    env = {"HOME": home, "PI_CODING_AGENT_DIR": f"{home}/agent", "PI_TRUE_COLOR": "1"}
    started = time.monotonic()
    pane = Pane(with_env(env, f"{command} --tui-mode {mode}"), Path(home), height=30, linger=30)
    header = editor = math.nan
    try:
        while time.monotonic() - started < 30:
            screen = pane.screen()
            now = time.monotonic() - started
            if math.isnan(header) and "/help for commands" in screen:
                header = now
            if any(line.rstrip() == ">" for line in screen.splitlines()):
                editor = now
                break
            time.sleep(0.01)
    finally:
        pane.kill()
    return header, editor


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--before", help="another pi executable to compare with")
    parser.add_argument("--tui-mode", default="regular", choices=["regular", "fullscreen"])
    options = parser.parse_args()
    programs = {"this checkout": PI, **({"--before": options.before} if options.before else {})}
    variants = {}
    for label, pi in programs.items():
        variants[f"{label}, tmux alone"] = shlex.quote(pi)
        variants[f"{label}, answering terminal"] = _answering(pi)
    figures: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in variants}
    with tempfile.TemporaryDirectory() as home:
        for _ in range(options.runs):
            for name, command in variants.items():
                header, editor = _one(command, home, options.tui_mode)
                figures[name][0].append(header)
                figures[name][1].append(editor)
    print(f"{'':36} {'header (ms)':>12} {'editor (ms)':>12}   medians of {options.runs}, {options.tui_mode}")
    for name, (headers, editors) in figures.items():
        print(
            f"{name:36} {statistics.median(headers) * 1000:12.0f} {statistics.median(editors) * 1000:12.0f}"
        )


if __name__ == "__main__":
    main()
