"""``/resume`` listing over about 1 GB of sessions: wall time and peak RSS of ``list_sessions_all``;
with ``--search``, also what a search then costs: reading every session's message text (as the
selector does in the background once something is typed, batch by batch) and matching one
typed word against all of it.

    uv run python bench/bench_resume_list.py [--gb 1.0] [--entries 100000] [--search]

Builds (once, in ``${PI_BENCH_CACHE:-~/.cache/pi-bench}/resume-list``) one project folder holding
copies of a linear session of ``--entries`` entries (~440 bytes each) until they add up to
``--gb``, then lists them in a fresh child process, so the peak RSS (VmHWM) is the listing's own.
The goal: under 2 s within 100 MB. Prints figures; never asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("PI_BENCH_CACHE") or Path.home() / ".cache" / "pi-bench") / "resume-list"

CHILD = """
import json, sys, time
from pathlib import Path

def peak_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0

from pi_core.session.listing import list_sessions_all, read_session_texts
before = peak_mb()
start = time.perf_counter()
infos = list_sessions_all(Path(sys.argv[1]))
seconds = time.perf_counter() - start
report = {"sessions": len(infos), "seconds": seconds, "peak_mb": peak_mb(), "before_mb": before,
          "first": [infos[0].message_count, infos[0].message_count_exact] if infos else None}
if sys.argv[2] == "search":
    from pi_core.modes.interactive.resume_selector import MessageText, match_score, parse_query
    listed = peak_mb()
    start = time.perf_counter()
    texts, pending = {}, [info.path for info in infos]
    while pending:
        found = read_session_texts(pending)
        texts.update({path: MessageText(text or "") for path, text in found.items()})
        pending = pending[len(found):]
    report["read_s"] = time.perf_counter() - start
    report["text_mb"] = sum(len(text.lower) for text in texts.values()) / 1e6
    report["read_peak_mb"] = peak_mb() - listed
    query = parse_query("nowhere")
    start = time.perf_counter()
    hits = [info for info in infos if match_score(info, query, texts[info.path]) is not None]
    report["match_ms"] = (time.perf_counter() - start) * 1000
print(json.dumps(report))
"""


def build(gb: float, entries: int) -> Path:
    sys.path.insert(0, str(BENCH))
    from bench_session import make_file

    agent = CACHE / f"agent-{entries}"
    folder = agent / "sessions" / "--bench--"
    folder.mkdir(parents=True, exist_ok=True)
    source = CACHE / f"linear-{entries}.jsonl"
    if not source.exists():
        print(f"(generating {source} ...)", flush=True)
        make_file(source, entries, False)
    size = source.stat().st_size
    wanted = max(1, round(gb * (1 << 30) / size))
    for index in range(wanted):
        target = folder / f"2025-01-01T00-00-{index:02d}-000Z_bench{index}.jsonl"
        if not target.exists():
            shutil.copyfile(source, target)
    for extra in sorted(folder.glob("*.jsonl"))[wanted:]:
        extra.unlink()
    total = sum(p.stat().st_size for p in folder.glob("*.jsonl"))
    print(f"{wanted} files of {size / 1e6:.1f} MB: {total / (1 << 30):.2f} GiB in {folder}")
    return agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--search", action="store_true", help="also read every message text, match a word")
    args = parser.parse_args()
    agent = build(args.gb, args.entries)
    for run in range(args.runs):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(agent), "search" if args.search else "list"],
            capture_output=True,
            text=True,
            check=True,
        )
        report = json.loads(done.stdout)
        print(
            f"run {run + 1}: {report['sessions']} sessions listed in {report['seconds']:.3f} s, "
            f"peak RSS {report['peak_mb']:.0f} MB (interpreter with pi_core: {report['before_mb']:.0f} MB); "
            f"first: {report['first']}"
        )
        if args.search:
            print(
                f"  search: message text read in {report['read_s']:.2f} s ({report['text_mb']:.0f} MB of "
                f"text, peak RSS +{report['read_peak_mb']:.0f} MB); one word matched in "
                f"{report['match_ms']:.0f} ms"
            )


if __name__ == "__main__":
    main()
