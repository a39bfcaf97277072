"""End to end, side by side: our ``pi`` against the TypeScript pi 1.6.0, interleaved, medians.

    uv run python bench/bench_vs_pi16.py [--runs 5] [--rows openai,anthropic,version,resume10k,...]

Every row runs the real command line a user types, in a throwaway home whose ``models.json`` points
at a loopback server in this process (nothing leaves the machine). Per row, the runs alternate
between the implementations (ours, pi 1.6.0, pi 1.6.0, ours, ...) so that a load change on a shared
machine hits both alike; after one unmeasured warm-up run each, the median of ``--runs`` wall times
(process start → exit), the median CPU time (user + system: less sensitive to the machine's load
than the wall time) and the largest peak RSS are printed, with the ratio of the wall times
ours / pi 1.6.0 (below 1 = we are faster).

Rows:

* ``openai``, ``anthropic`` — ``pi -p --model <loopback model> hi`` in each dialect;
* ``codex`` — ``pi -p --model openai-codex/gpt-6.2-sol hi`` with a ChatGPT login in auth.json (a
  valid token: no refresh) and ``openai-codex``'s base URL moved to the loopback server (pi 1.6.0
  first tries its WebSocket there, which the server refuses, then SSE, as against a server
  without WebSockets); not a default row;
* ``version`` — ``pi --version``;
* ``resume10k``, ``resume100k``, ``resume1m-linear`` — ``pi --session FILE -p --model <model> hi``
  on a linear session (no compaction: every entry goes to the request) of that many entries, ~460
  bytes each;
* ``resume1m`` — the same on a 1M-entry session (437 MB) with a compaction 50 entries before its
  end (bench/session_files.py's ``compacted`` shape): how a session that long looks, since its
  uncompacted context (~150M tokens) fits no model. Its goal is under 10 s within 1 GB;
  ``resume1m-linear`` is expected to be refused (clearly, and fast) rather than resumed.

The files are generated once into the cache folder; each run starts from the pristine file (the
entries a run appends are cut off again). The 1M rows are not in the default rows and run without
a warm-up; a failed or refused run prints its message.

pi 1.6.0 comes from ``--pi16 LAUNCHER``, else ``$PI16``, else ``bench/install_pi16.sh`` (which
reuses ``$PI16_DIR`` or installs from npm into ``${PI16_CACHE:-~/.cache/pi-bench/pi16}``).
Generated sessions live in ``${PI_BENCH_CACHE:-~/.cache/pi-bench}/sessions``. ``--resume-api``
picks the dialect of the resume rows (default ``openai-completions``). The machine's load
average is printed before and after. Prints figures; never asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _bytecode import compile_environment
from _home import isolated_env
from pi_core.testing import text_turn
from pi_core.testing.codex import codex_credential
from pi_core.testing.wire import anthropic_stream, completions_stream, responses_stream
from session_files import write_session

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OURS = str(Path(sys.executable).with_name("pi"))
CACHE = Path(os.environ.get("PI_BENCH_CACHE") or Path.home() / ".cache" / "pi-bench")
MODELS = {"openai-completions": "loop/fake-model", "anthropic-messages": "loopa/fake-claude"}
ROWS = ("openai", "anthropic", "codex", "version", "resume10k", "resume100k", "resume1m", "resume1m-linear")
DEFAULT_ROWS = ("openai", "anthropic", "version", "resume10k", "resume100k")
#: row -> (entries, with a compaction near the end)
SIZES = {
    "resume10k": (10_000, False),
    "resume100k": (100_000, False),
    "resume1m": (1_000_000, True),
    "resume1m-linear": (1_000_000, False),
}
SESSION_FORMAT = 1  # bump when the generated files change, so cached ones are rebuilt


# --- loopback server ------------------------------------------------------------------------------
# pi_core.testing's server parses and keeps every request body; a 1M-entry resume sends hundreds
# of megabytes, so this one streams the body through, looking only at what the answer needs.

_MODEL = re.compile(rb'"model"\s*:\s*"([^"]*)"')
_USAGE = re.compile(rb'"include_usage"\s*:\s*true')


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        remaining = int(self.headers.get("content-length") or 0)
        self.server.body_bytes.append(remaining)
        head = b""
        tail = b""
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            remaining -= len(chunk)
            if len(head) < 65536:
                head += chunk[:65536]
            tail = (tail + chunk)[-65536:]
        found = _MODEL.search(head) or _MODEL.search(tail)
        model = found.group(1).decode() if found else "loopback"
        path = self.path.split("?", 1)[0]
        self.server.requests += 1
        seq = self.server.requests
        turn = text_turn("ok")
        if path == "/v1/messages":
            frames: Iterator[bytes] = anthropic_stream(turn, model, seq)
        elif path == "/v1/chat/completions":
            frames = completions_stream(turn, model, seq, bool(_USAGE.search(head + tail)))
        elif path == "/codex/responses":
            frames = responses_stream(turn, model, seq)
        else:
            data = json.dumps({"error": {"message": f"unknown path {path}"}}).encode()
            self.send_response(404)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        try:
            for data in frames:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    requests = 0
    body_bytes: list[int] = []  # noqa: RUF012 - one server per bench run

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def _models_json(url: str) -> dict[str, Any]:
    return {
        "providers": {
            "loop": {
                "baseUrl": f"{url}/v1",
                "api": "openai-completions",
                "apiKey": "sk-loopback",
                "models": [{"id": "fake-model", "contextWindow": 2_000_000_000}],
            },
            "loopa": {
                "baseUrl": url,
                "api": "anthropic-messages",
                "apiKey": "sk-loopback",
                "models": [{"id": "fake-claude", "contextWindow": 2_000_000_000}],
            },
            "openai-codex": {"baseUrl": url},
        }
    }


# --- sessions -------------------------------------------------------------------------------------


def make_session(path: Path, count: int, cwd: str, compacted: bool = False) -> None:
    """A v3 session of ``count`` entries (bench/session_files.py) answered by loop/fake-model."""
    write_session(
        path,
        count,
        cwd=cwd,
        compacted=compacted,
        session_id=f"bench-{count}",
        api="openai-completions",
        provider="loop",
        model="fake-model",
    )


def session_file(count: int, project: Path, compacted: bool = False) -> Path:
    folder = CACHE / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    shape = "compacted" if compacted else "linear"
    path = folder / f"{shape}-{count}-v{SESSION_FORMAT}.jsonl"
    if not path.exists():
        print(f"(generating {path} ...)", flush=True)
        make_session(path, count, str(project), compacted)
    return path


class Pristine:
    """A working copy of a session file, restored after each run (pi appends to the file it resumes)."""

    def __init__(self, source: Path, folder: Path) -> None:
        self.source = source
        self.path = folder / source.name
        shutil.copyfile(source, self.path)
        self.size = source.stat().st_size
        with source.open("rb") as f:
            f.seek(max(0, self.size - 4096))
            self.tail = f.read()

    def restore(self) -> None:
        intact = self.path.exists() and self.path.stat().st_size >= self.size
        if intact:
            with self.path.open("rb") as f:
                f.seek(max(0, self.size - 4096))
                intact = f.read(len(self.tail)) == self.tail
        if intact:
            os.truncate(self.path, self.size)
        else:  # rewritten by the run (e.g. a migration): start again from the source
            shutil.copyfile(self.source, self.path)


# --- runs -----------------------------------------------------------------------------------------


@dataclass
class Sample:
    seconds: float
    peak_mb: float
    ok: bool
    note: str = ""
    request_mb: float = 0.0
    cpu: float = 0.0  # user + system seconds of the process (and its children)


@dataclass
class Row:
    name: str
    samples: dict[str, list[Sample]] = field(default_factory=dict)


def run_once(argv: list[str], env: dict[str, str], cwd: Path, expect: str | None, timeout: float) -> Sample:
    """One run; it succeeds when it exits 0 and (unless ``expect`` is None) prints ``expect`` last."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace").strip()
        stderr = err.read().decode(errors="replace").strip()
    peak = usage.ru_maxrss / 1024
    cpu = usage.ru_utime + usage.ru_stime
    if process.returncode == 0 and (expect is None or stdout.splitlines()[-1:] == [expect]):
        return Sample(seconds, peak, True, cpu=cpu)
    if process.returncode == -9 and seconds >= timeout:
        return Sample(seconds, peak, False, f"killed after {timeout:.0f} s", cpu=cpu)
    last = (stderr or stdout).splitlines()[-1:] or [""]
    return Sample(seconds, peak, False, f"exit {process.returncode}: {last[0][:400]}", cpu=cpu)


def bench_row(
    name: str,
    implementations: dict[str, list[str]],
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    expect: str | None,
    runs: int,
    timeout: float,
    pristine: Pristine | None,
    warm_up: bool,
    server: _Server,
) -> Row:
    row = Row(name, {impl: [] for impl in implementations})
    order = list(implementations)
    for index in range(runs + (1 if warm_up else 0)):
        for impl in order if index % 2 == 0 else reversed(order):
            before = len(server.body_bytes)
            sample = run_once([*implementations[impl], *args], env, cwd, expect, timeout)
            sample.request_mb = sum(server.body_bytes[before:]) / 1e6
            if pristine is not None:
                pristine.restore()
            if warm_up and index == 0:
                continue
            row.samples[impl].append(sample)
    return row


def summary(samples: list[Sample]) -> tuple[str, str, float | None]:
    good = [s for s in samples if s.ok]
    if not good:
        seconds = statistics.median(s.seconds for s in samples) if samples else 0.0
        return f"FAILED after {seconds:.3f} s (see below)", "", None
    median = statistics.median(s.seconds for s in good)
    cpu = statistics.median(s.cpu for s in good)
    peak = max(s.peak_mb for s in good)
    failed = (
        f" [{len(samples) - len(good)} failed: {next(s.note for s in samples if not s.ok)}]"
        if len(good) < len(samples)
        else ""
    )
    return f"{median:7.3f} s (cpu {cpu:6.2f}){failed}", f"{peak:5.0f} MB", median


def print_row(row: Row, names: list[str]) -> None:
    cells = []
    medians = []
    for impl in names:
        text, peak, median = summary(row.samples[impl])
        cells.append(f"{text} {peak}".strip())
        medians.append(median)
    ours, theirs = medians
    ratio = f"{ours / theirs:.2f}" if ours is not None and theirs else "-"
    print(f"| {row.name:12} | {cells[0]:34} | {cells[1]:34} | {ratio:>5} |", flush=True)
    for impl in names:
        notes = sorted({s.note for s in row.samples[impl] if not s.ok})
        for note in notes:
            print(f"|   {impl} failed: {note}")
    sent = [max((s.request_mb for s in row.samples[impl]), default=0.0) for impl in names]
    if any(size >= 0.1 for size in sent):  # a resume row: show that both sent the whole context
        print(f"|   request    | {sent[0]:7.1f} MB{'':24} | {sent[1]:7.1f} MB{'':24} |       |")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def find_pi16(explicit: str | None) -> str:
    if explicit:
        return explicit
    if os.environ.get("PI16"):
        return os.environ["PI16"]
    done = subprocess.run(["sh", str(BENCH / "install_pi16.sh")], stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("bench: could not install pi 1.6.0 (see the messages above); pass --pi16 LAUNCHER")
    return done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--rows", default=",".join(DEFAULT_ROWS), help=f"comma-separated, of: {', '.join(ROWS)}"
    )
    parser.add_argument("--pi16", help="launcher of pi 1.6.0 (default: $PI16 or bench/install_pi16.sh)")
    parser.add_argument("--ours", default=OURS, help="our pi (default: the one beside this Python)")
    parser.add_argument("--resume-api", choices=sorted(MODELS), default="openai-completions")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before a run is killed")
    args = parser.parse_args()
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        parser.error(f"unknown rows: {', '.join(unknown)} (known: {', '.join(ROWS)})")

    compile_environment()  # as an install would (see bench/_bytecode.py)
    implementations = {"ours": [args.ours], "pi 1.6.0": [find_pi16(args.pi16)]}
    names = list(implementations)
    project = CACHE / "project"
    project.mkdir(parents=True, exist_ok=True)
    server = _Server(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory(prefix="pi-bench-") as tmp:
        root = Path(tmp)
        agent, home = root / "agent", root / "home"
        agent.mkdir()
        home.mkdir()
        (agent / "models.json").write_text(json.dumps(_models_json(url)))
        # A ChatGPT login as pi 1.6.0 stores it, valid for a month (the codex row refreshes nothing).
        login = {"openai-codex": codex_credential(expires_in_s=30 * 24 * 3600)}
        (agent / "auth.json").write_text(json.dumps(login))
        (agent / "auth.json").chmod(0o600)
        env = isolated_env(home, agent)
        print(f"ours: {args.ours}\npi 1.6.0: {implementations['pi 1.6.0'][0]}")
        print(f"before: {load()}; medians of {args.runs} interleaved runs after one warm-up each")
        print(f"| {'row':12} | {names[0]:34} | {names[1]:34} | ratio |")
        print(f"|{'-' * 14}|{'-' * 36}|{'-' * 36}|{'-' * 7}|")
        for name in rows:
            pristine = None
            expect: str | None = "ok"
            if name == "version":
                argv = ["--version"]
                expect = None
            elif name in ("openai", "anthropic"):
                api = "openai-completions" if name == "openai" else "anthropic-messages"
                argv = ["-p", "--model", MODELS[api], "hi"]
            elif name == "codex":
                argv = ["-p", "--model", "openai-codex/gpt-6.2-sol", "hi"]
            else:
                count, compacted = SIZES[name]
                pristine = Pristine(session_file(count, project, compacted), root)
                argv = ["--session", str(pristine.path), "-p", "--model", MODELS[args.resume_api], "hi"]
            row = bench_row(
                name,
                implementations,
                argv,
                env,
                project,
                expect,
                args.runs,
                args.timeout,
                pristine,
                warm_up=not name.startswith("resume1m"),
                server=server,
            )
            print_row(row, names)
            if pristine is not None:
                pristine.path.unlink(missing_ok=True)
        print(f"after: {load()}")
    server.shutdown()


if __name__ == "__main__":
    main()
