"""Python scripts that serve HTTP on a loopback port, started for a test and killed after it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ScriptServers:
    """Each script runs with ``env`` over this process's environment, its output in a log under
    ``logs``; :meth:`start` returns once its port accepts connections."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, script: str | Path, port: int, env: dict[str, str], *, log: str, timeout: float) -> int:
        log_path = self.logs / log
        with log_path.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, script], env={**os.environ, **env}, stderr=out, stdout=out
            )
        self.started.append(process)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    return port
            time.sleep(0.05)
        raise AssertionError(log_path.read_text())

    def stop_all(self) -> None:
        for process in self.started:
            process.kill()
            process.wait()
