"""Keystroke echo with a plugin's own editor, ours against pi 1.6.0, runs interleaved.

What a person waits for when a plugin has replaced the editor (``set_editor_component``): one
key, typed while an answer streams at ~200 tokens/s, until it shows in the editor. Each program
runs with its vim-like modal editor example — ours from docs/extensions.md, pi's
``examples/extensions/modal-editor.ts`` from the installed pi 1.6.0 — and without it, so the
table shows what routing every key through the plugin costs. The measuring is bench_tui.py's
``echo`` row (tmux, ``capture-pane`` polling; median of five keys per run).

    uv run python bench/bench_tui_editor.py --runs 5
    uv run python bench/bench_tui_editor.py --tui-mode regular
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bytecode import compile_environment
from _tmux import throwaway_home
from bench_tui import OURS, run_row
from bench_vs_pi16 import find_pi16
from pi_core.testing import LoopbackLLMServer

ROOT = Path(__file__).resolve().parents[1]


def modal_plugin() -> str:
    """The modal editor of docs/extensions.md (the block that subclasses ``CustomEditor``)."""
    text = (ROOT / "docs" / "extensions.md").read_text(encoding="utf-8")
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        if "class Modal(CustomEditor)" in block:
            return str(block)
    raise SystemExit("docs/extensions.md has no modal editor example")


def pi16_modal_example(launcher: str) -> Path:
    base = Path(os.environ.get("PI16_DIR") or Path(launcher).resolve().parent)
    example = base / "node_modules/@earendil-works/pi-coding-agent/examples/extensions/modal-editor.ts"
    if not example.is_file():
        raise SystemExit(f"pi 1.6.0's modal-editor.ts example is not at {example}")
    return example


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pi16", help="launcher of pi 1.6.0 (default: $PI16 or bench/install_pi16.sh)")
    parser.add_argument("--tui-mode", default="fullscreen", choices=("fullscreen", "regular"))
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is needed")
    compile_environment()
    pi16 = find_pi16(args.pi16)
    example = pi16_modal_example(pi16)
    with LoopbackLLMServer() as server, tempfile.TemporaryDirectory(prefix="pi-editor-bench-") as tmp:
        root = Path(tmp)
        configs = {
            "ours": ([OURS, "--tui-mode", args.tui_mode], throwaway_home(root / "a", server)),
            "ours + modal editor": (
                [OURS, "--tui-mode", args.tui_mode],
                throwaway_home(root / "b", server, ("modal.py", modal_plugin())),
            ),
            "pi 1.6.0": ([pi16], throwaway_home(root / "c", server)),
            "pi 1.6.0 + modal editor": (
                [pi16],
                throwaway_home(root / "d", server, ("modal-editor.ts", example.read_text(encoding="utf-8"))),
            ),
        }
        samples: dict[str, list[float]] = {name: [] for name in configs}
        for _ in range(args.runs):
            for name, (program, home) in configs.items():
                session = home.project / "unused.jsonl"
                try:
                    samples[name].append(run_row("echo", program, home.env, home.project, server, session))
                except TimeoutError as error:
                    print(f"  ({name}: timed out; screen:\n{error})", file=sys.stderr)
        print(f"| echo while streaming ({args.tui_mode}) | median ms (min, max) of {args.runs} runs |")
        print("| --- | --- |")
        for name, values in samples.items():
            cell = (
                f"{statistics.median(values) * 1000:.0f} ({min(values) * 1000:.0f}, {max(values) * 1000:.0f})"
                if values
                else "-"
            )
            print(f"| {name} | {cell} |")
        ours, theirs = samples["ours + modal editor"], samples["pi 1.6.0 + modal editor"]
        if ours and theirs:
            print(
                f"ratio ours/pi 1.6.0 with the modal editor: {statistics.median(ours) / statistics.median(theirs):.2f}"
            )


if __name__ == "__main__":
    main()
