"""What the terminal-UI benchmarks share: a program in a tmux pane of its own (a private server,
``-L``), read with ``capture-pane``, and the throwaway home it runs in, whose ``models.json``
points at pi_core.testing's loopback server.

``start`` launches a program on the loopback model and returns once its editor is up (``ready``);
``Pane`` alone runs any command (bench_tui_startup.py times the start itself).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pi_core.testing import LoopbackLLMServer

#: The loopback model every home's models.json offers, as ``--model`` takes it.
MODEL = "loop/fake-model"


class Pane:
    """``command`` in a detached tmux session ``b`` of ``width`` x ``height``; the pane stays
    ``linger`` seconds after the command ends, so its last screen can still be read."""

    def __init__(
        self, command: str, cwd: Path, *, width: int = 120, height: int = 40, linger: int = 60
    ) -> None:
        self.socket = f"pi-bench-{uuid.uuid4().hex[:8]}"
        subprocess.run(
            ["tmux", "-L", self.socket, "new-session", "-d", "-s", "b", "-x", str(width), "-y", str(height),
             "-c", str(cwd), f"{command}; sleep {linger}"],
            check=True,
        )  # fmt: skip

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "b")

    def wait(self, check: Callable[[str], bool], timeout: float = 30, poll: float = 0.002) -> float:
        """Poll the screen until ``check`` holds; the time it did (``TimeoutError``: the screen)."""
        deadline = time.monotonic() + timeout
        while True:
            if check(self.screen()):
                return time.monotonic()
            if time.monotonic() > deadline:
                raise TimeoutError(self.screen())
            time.sleep(poll)

    def pids(self) -> list[int]:
        root = int(self.tmux("display-message", "-p", "-t", "b", "#{pane_pid}").strip())
        found, todo = [], [root]
        while todo:
            pid = todo.pop()
            found.append(pid)
            children = Path(f"/proc/{pid}/task/{pid}/children")
            if children.exists():
                todo.extend(int(child) for child in children.read_text().split())
        return found

    def rss_mb(self) -> float:
        """Resident memory of the pane's program, summed over its processes (not the shell's)."""
        total = 0
        for pid in self.pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            name = next(line.split()[1] for line in status.splitlines() if line.startswith("Name:"))
            if name in ("sh", "bash", "sleep", "env", "tmux"):
                continue
            total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        return total / 1024

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def with_env(env: Mapping[str, str], command: str) -> str:
    """``command`` run with ``env`` (and a 256-colour ``TERM``) on top of the tmux server's."""
    exports = " ".join(shlex.quote(f"{key}={value}") for key, value in env.items())
    return f"env {exports} TERM=xterm-256color {command}"


def ready(screen: str) -> bool:
    """Both programs draw the model's name in their footer once the editor is up (ours also in
    its header, which comes out before plugins have started: that one does not count)."""
    return any("fake-model" in line and not line.startswith("pi · ") for line in screen.splitlines())


def start(program: Sequence[str], env: Mapping[str, str], cwd: Path, *extra: str) -> Pane:
    """``program`` on the loopback model in a pane, once its editor is up and start-up settled."""
    argv = " ".join(shlex.quote(part) for part in [*program, "--model", MODEL, *extra])
    pane = Pane(with_env(env, argv), cwd)
    pane.wait(ready, timeout=60, poll=0.05)
    time.sleep(0.5)  # let start-up settle (plugins, the warm-up import) as a person would
    return pane


@dataclass(frozen=True)
class Home:
    """A throwaway home (``root/home``), agent folder (``root/agent``) and project (``root/project``),
    and the environment a program runs in there."""

    agent: Path
    home: Path
    project: Path
    env: dict[str, str]


def throwaway_home(
    root: Path, server: LoopbackLLMServer | None = None, extension: tuple[str, str] | None = None
) -> Home:
    """The folders under ``root``; with ``server``, a models.json offering :data:`MODEL` there;
    with ``extension`` (file name, text), that file in the agent folder's ``extensions``."""
    agent, home, project = root / "agent", root / "home", root / "project"
    for folder in (agent, home, project):
        folder.mkdir(parents=True, exist_ok=True)
    if server is not None:
        models = {
            "providers": {
                "loop": {
                    "baseUrl": server.base_url("openai-completions"),
                    "api": "openai-completions",
                    "apiKey": "sk-loopback",
                    "models": [{"id": "fake-model", "contextWindow": 2_000_000, "maxTokens": 4096}],
                }
            }
        }
        (agent / "models.json").write_text(json.dumps(models))
    if extension is not None:
        (agent / "extensions").mkdir(exist_ok=True)
        (agent / "extensions" / extension[0]).write_text(extension[1])
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", ""),
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
    }
    return Home(agent, home, project, env)
