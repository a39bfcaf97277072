"""Session storage benchmark: open + build context, append latency, peak memory; TS pi alongside.

    uv run python bench/bench_session.py [--sizes 1000,10000,100000] [--no-ts]

Each open+context measurement runs in a fresh subprocess so its peak RSS is its own
(reported as the process peak and as the growth over the interpreter with pi_core imported).
"py cpu" is the CPU time of open + context in that process: on a shared machine the wall
times rise with the load average (printed at start and end), the CPU time much less.
Two shapes per size: ``linear`` (no compaction: every message goes to the context, the worst
case) and ``compacted`` (a compaction near the end keeps the last 50 entries, the usual shape
of a long session). The TypeScript pi 0.73.1's SessionManager is timed on the same files: it is
found through ``--pi073 DIR`` or ``$PI073_DIR`` (a folder where ``npm install
@mariozechner/pi-coding-agent@0.73.1`` ran); without it the bench stops and says so, unless
``--no-ts`` leaves that side out.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from session_files import write_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's root
from tests.fixtures.real_pi import PI073_MISSING, RealPi, pi073


def make_file(path: Path, count: int, compacted: bool) -> None:
    write_session(path, count, compacted=compacted)


def measure_open(path: str) -> None:
    """(child) open + build context, then get_branch; print seconds and memory as JSON.

    Works on a copy of the file: it appends one entry (get_branch after an append)."""
    from pi_core.ai.messages import UserMessage
    from pi_core.session.manager import SessionManager

    path = shutil.copyfile(path, path + ".child.jsonl")
    baseline = peak_rss_mb()
    cpu_start = time.process_time()
    start = time.perf_counter()
    sm = SessionManager.open(path)
    opened = time.perf_counter()
    ctx = sm.build_session_context()
    done = time.perf_counter()
    cpu = time.process_time() - cpu_start
    peak = peak_rss_mb()
    # What the runtime does after every agent run: read the branch (compaction check, usage).
    branch_cpu = []
    for _ in range(2):
        start_cpu = time.process_time()
        branch = sm.get_branch()
        branch_cpu.append(time.process_time() - start_cpu)
    sm.append_message(UserMessage(content="one more"))
    start_cpu = time.process_time()
    branch = sm.get_branch()
    branch_cpu.append(time.process_time() - start_cpu)
    del branch
    print(
        json.dumps(
            {
                "open_s": opened - start,
                "context_s": done - opened,
                "total_s": done - start,
                "cpu_s": cpu,
                "messages": len(ctx.messages),
                "peak_mb": peak,
                "growth_mb": peak - baseline,
                "branch_cpu_s": branch_cpu,
                "peak_with_branch_mb": peak_rss_mb(),
            }
        )
    )


def peak_rss_mb() -> float:
    """Peak RSS of this process image (VmHWM; unlike ru_maxrss it is not inherited across exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


TS_SCRIPT = r"""
import { SessionManager } from "%s";
import { readFileSync } from "fs";
const start = performance.now();
const sm = SessionManager.open(process.argv[1]);
const opened = performance.now();
const ctx = sm.buildSessionContext();
const done = performance.now();
const hwm = readFileSync("/proc/self/status", "utf8").split("\n").find((l) => l.startsWith("VmHWM:"));
const rss = hwm ? parseInt(hwm.split(/\s+/)[1]) / 1024 : process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({open_s: (opened - start) / 1000, context_s: (done - opened) / 1000,
  total_s: (done - start) / 1000, messages: ctx.messages.length, peak_mb: rss}));
"""


def ts_open(ts: RealPi, path: Path) -> dict:
    script = TS_SCRIPT % (ts.package / "dist" / "core" / "session-manager.js").as_uri()
    out = subprocess.run(
        [ts.node, "--input-type=module", "-e", script, str(path)], capture_output=True, text=True, timeout=600
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return json.loads(out.stdout)


def py_open(path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child-open", str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def bench_append(directory: Path, fsync: bool, count: int = 2000) -> dict:
    from pi_core.ai.messages import AssistantMessage, TextContent, UserMessage
    from pi_core.session.manager import SessionManager

    sm = SessionManager.create("/bench", directory, fsync=fsync)
    sm.append_message(UserMessage(content=[TextContent(text="hi")]))
    sm.append_message(AssistantMessage(content=[TextContent(text="hello")], api="x", provider="p", model="m"))
    message = UserMessage(content=[TextContent(text="A typical prompt of moderate length " * 3)])
    times = []
    cpu_start = time.process_time()
    for _ in range(count):
        start = time.perf_counter()
        sm.append_message(message)
        times.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu_start
    sm.close()
    times.sort()
    return {
        "mean_us": statistics.fmean(times) * 1e6,
        "p50_us": times[len(times) // 2] * 1e6,
        "p99_us": times[int(len(times) * 0.99)] * 1e6,
        "per_s": count / sum(times),
        "cpu_mean_us": cpu / count * 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--no-ts", action="store_true", help="leave out the TypeScript pi")
    parser.add_argument("--pi073", help="folder holding node_modules of pi 0.73.1 (default: $PI073_DIR)")
    parser.add_argument("--child-open")
    args = parser.parse_args()
    if args.child_open:
        measure_open(args.child_open)
        return
    ts_pi = None if args.no_ts else pi073(args.pi073)
    if ts_pi is None and not args.no_ts:
        sys.exit(f"bench_session: {PI073_MISSING}; or pass --pi073 DIR, or --no-ts to time ours alone")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"load average at start: {load_average()}")
        print(
            f"{'entries':>8} {'shape':>9} | {'py open':>8} {'py ctx':>8} {'py total':>8} {'py cpu':>8} "
            f"{'py peak MB':>10} {'py +MB':>7} {'msgs':>6} | {'ts total':>8} {'ts peak MB':>10}"
        )
        for size in [int(s) for s in args.sizes.split(",")]:
            for compacted in (False, True):
                path = root / f"s{size}{'c' if compacted else ''}.jsonl"
                make_file(path, size, compacted)
                py = py_open(path)
                ts = None if ts_pi is None else ts_open(ts_pi, path)
                ts_total = f"{ts['total_s']:8.3f}" if ts and "total_s" in ts else f"{'n/a':>8}"
                ts_peak = f"{ts['peak_mb']:10.1f}" if ts and "peak_mb" in ts else f"{'n/a':>10}"
                shape = "compacted" if compacted else "linear"
                print(
                    f"{size:>8} {shape:>9} | {py['open_s']:8.3f} {py['context_s']:8.3f} {py['total_s']:8.3f} "
                    f"{py['cpu_s']:8.3f} {py['peak_mb']:10.1f} {py['growth_mb']:7.1f} {py['messages']:>6} | {ts_total} {ts_peak}"
                    f"   (file {path.stat().st_size / 1e6:.1f} MB)"
                )
                first, again, appended = (seconds * 1000 for seconds in py["branch_cpu_s"])
                print(
                    f"{'':>18} get_branch CPU: first {first:.1f} ms, again {again:.2f} ms, after an append "
                    f"{appended:.2f} ms; peak with the branch {py['peak_with_branch_mb']:.1f} MB"
                )
        from pi_core.session.listing import read_session_info

        for path in sorted(root.glob("s*[0-9c].jsonl")):
            start = time.perf_counter()
            info = read_session_info(path)
            elapsed = time.perf_counter() - start
            assert info is not None
            print(f"listing {path.name}: {elapsed * 1000:.1f} ms ({info.message_count} messages)")
        for fsync in (False, True):
            result = bench_append(root / f"append{fsync}", fsync)
            print(
                f"append fsync={fsync!s:5}: mean {result['mean_us']:.1f} µs, p50 {result['p50_us']:.1f} µs, "
                f"p99 {result['p99_us']:.1f} µs, {result['per_s']:.0f} appends/s, "
                f"cpu mean {result['cpu_mean_us']:.1f} µs"
            )
        print(f"load average at end: {load_average()} ({os.cpu_count()} CPUs)")


def load_average() -> str:
    """The machine is shared: wall times are only comparable together with the load."""
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "n/a"


if __name__ == "__main__":
    main()
