"""A plugin's select dialog opened while an answer streams: a key in it until the highlight has
moved on screen, ours (fullscreen) against pi 1.6.0 in tmux, runs interleaved.

Each run starts the program in a tmux pane (bench/_tmux.py's), sends a prompt whose answer streams
at ~200 tokens/s, types ``/colour`` (a plugin command, in each program's own plugin language, that
calls ``ctx.ui.select``), then presses Down and Up in turn, timing each until the highlighted row
shows on screen (the median of ten keys per run). The keys are pressed early in the answer: a
redraw costs more the longer the block being streamed is, in both programs.

    uv run python bench/bench_tui_dialog.py --runs 5
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
from _tmux import Pane, start, throwaway_home
from bench_tui import OURS
from bench_vs_pi16 import find_pi16
from pi_core.testing import LoopbackLLMServer, Text, Turn

OUR_PLUGIN = """
from pi_core import hookimpl


async def colour(args, ctx):
    await ctx.ui.select("Pick a colour", ["red", "green", "blue"])


@hookimpl
def register_commands(register):
    register("colour", colour, description="pick a colour")
"""

PI_PLUGIN = """
export default function (pi: any) {
  pi.registerCommand("colour", {
    description: "pick a colour",
    handler: async (_args: string, ctx: any) => {
      await ctx.ui.select("Pick a colour", ["red", "green", "blue"]);
    },
  });
}
"""

#: How each program draws the highlighted row of the list.
HIGHLIGHT = {"ours": ("› 1. red", "› 2. green"), "pi 1.6.0": ("→ red", "→ green")}


def run(pane_start: list[str], env: dict[str, str], cwd: Path, server: LoopbackLLMServer, name: str) -> float:
    words = " ".join(f"word{i:04d}" for i in range(3000))
    server.add(Turn(blocks=[Text(words, chunks=3000)], delay=0.005))  # ~200 tokens/s
    pane: Pane = start(pane_start, env, cwd)
    first, second = HIGHLIGHT[name]
    try:
        pane.tmux("send-keys", "-t", "b", "-l", "talk")
        pane.tmux("send-keys", "-t", "b", "Enter")
        pane.wait(lambda s: "word0050" in s)
        pane.tmux("send-keys", "-t", "b", "-l", "/colour")
        time.sleep(0.3)
        pane.tmux("send-keys", "-t", "b", "Enter")
        pane.wait(lambda s: first in s)
        delays = []
        for press in range(10):
            key, shown = ("Down", second) if press % 2 == 0 else ("Up", first)
            sent = time.monotonic()
            pane.tmux("send-keys", "-t", "b", key)
            delays.append(pane.wait(lambda s, shown=shown: shown in s, timeout=5) - sent)
            time.sleep(0.05)
        if "word2999" in pane.screen():
            print(f"  ({name}: the answer ended before the keys did)", file=sys.stderr)
        return statistics.median(delays)
    finally:
        pane.kill()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pi16", help="launcher of pi 1.6.0 (default: $PI16 or bench/install_pi16.sh)")
    args = parser.parse_args()
    compile_environment()
    programs = {"ours": [OURS, "--tui-mode", "fullscreen"], "pi 1.6.0": [find_pi16(args.pi16)]}
    with LoopbackLLMServer() as server, tempfile.TemporaryDirectory(prefix="pi-dialog-bench-") as tmp:
        root = Path(tmp)
        homes = {
            name: throwaway_home(root / name.replace(" ", "-"), server, (file, plugin))
            for name, plugin, file in (
                ("ours", OUR_PLUGIN, "colour.py"),
                ("pi 1.6.0", PI_PLUGIN, "colour.ts"),
            )
        }
        samples: dict[str, list[float]] = {name: [] for name in programs}
        for _ in range(args.runs):
            for name, program in programs.items():
                try:
                    home = homes[name]
                    samples[name].append(run(program, home.env, home.project, server, name))
                except TimeoutError as error:
                    print(f"  ({name}: timed out; screen:\n{error})", file=sys.stderr)
        print(f"| row | {' | '.join(programs)} | (medians of {args.runs} interleaved runs)")
        cells = [
            f"{statistics.median(v) * 1000:.0f} ms (min {min(v) * 1000:.0f}, max {max(v) * 1000:.0f})"
            if v
            else "-"
            for v in samples.values()
        ]
        print(f"| key in a select while streaming | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
