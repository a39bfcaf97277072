"""Run the real ``pi`` executable against the loopback LLM server in a throwaway home and project.

``pi_env.run(...)`` runs one command and returns the finished process; ``pi_env.rpc()`` starts
``pi --mode rpc`` and gives a small JSON-lines client. Provider ``loop`` speaks
openai-completions and ``loopa`` anthropic-messages, both to the same loopback server.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pi_core.ai.auth import ENV_API_KEYS
from pi_core.testing import LoopbackLLMServer

from pi_builtin_providers import provider_definitions
from tests.e2e.example_plugins import disabled_plugins

PI = str(Path(sys.executable).with_name("pi"))


def write_models_json(agent_dir: Path, server: LoopbackLLMServer) -> None:
    models = {
        "providers": {
            "loop": {
                "baseUrl": server.base_url("openai-completions"),
                "api": "openai-completions",
                "apiKey": "sk-loopback",
                "models": [{"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096}],
            },
            "loopa": {
                "baseUrl": server.base_url("anthropic-messages"),
                "api": "anthropic-messages",
                "apiKey": "sk-loopback",
                "models": [{"id": "fake-claude", "contextWindow": 200000, "maxTokens": 4096}],
            },
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models))


@dataclass
class RpcClient:
    process: subprocess.Popen[str]
    lines: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    seen: list[dict[str, Any]] = field(default_factory=list)
    stderr: str = ""
    _next: int = 0

    def start_reader(self) -> None:
        def pump() -> None:
            assert self.process.stdout is not None
            try:
                for line in self.process.stdout:
                    self.lines.put(json.loads(line))
            except ValueError:  # stdout closed by close() while reading
                return

        threading.Thread(target=pump, daemon=True).start()

    def send(self, command: dict[str, Any]) -> str:
        self._next += 1
        request_id = command.get("id") or f"r{self._next}"
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({**command, "id": request_id}) + "\n")
        self.process.stdin.flush()
        return str(request_id)

    def send_raw(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15) -> dict[str, Any]:
        for record in self.seen:
            if predicate(record):
                self.seen.remove(record)
                return record
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out; unmatched records: {self.seen[-5:]}")
            record = self.lines.get(timeout=remaining)
            if predicate(record):
                return record
            self.seen.append(record)

    def call(self, command: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
        request_id = self.send(command)
        return self.wait_for(lambda r: r.get("type") == "response" and r.get("id") == request_id, timeout)

    def events_until(self, event_type: str, timeout: float = 15) -> list[dict[str, Any]]:
        """Every record up to and including the next ``event_type`` event."""
        collected: list[dict[str, Any]] = []

        def take(record: dict[str, Any]) -> bool:
            collected.append(record)
            return record.get("type") == event_type

        self.wait_for(take, timeout)
        return collected

    def close(self) -> int:
        """Close stdin (pi shuts down at EOF) and return the exit status."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        try:
            code = self.process.wait(timeout=15)
        finally:
            self.stderr = self.process.stderr.read()
            self.process.stderr.close()
            if self.process.stdout is not None:
                self.process.stdout.close()
        return code


@dataclass
class PiEnv:
    root: Path
    server: LoopbackLLMServer
    #: Set on top of the cleaned environment (e.g. a provider's API key variable).
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def agent_dir(self) -> Path:
        return self.root / "agent"

    @property
    def project(self) -> Path:
        return self.root / "project"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            HOME=str(self.root / "home"),
            PI_CODING_AGENT_DIR=str(self.agent_dir),
            PI_OFFLINE="1",
            # Keep the example plugins of this workspace out of the runs.
            PI_DISABLED_PLUGINS=disabled_plugins(),
        )
        env.pop("PI_CODING_AGENT_SESSION_DIR", None)
        # The built-in providers stay keyless unless a test says so.
        for names in [*ENV_API_KEYS.values(), *(d.env for d in provider_definitions())]:
            for name in names:
                env.pop(name, None)
        env.update(self.extra_env)
        return env

    def run(
        self, *args: str, input: str | None = "", timeout: float = 60, model: str | None = "loop/fake-model"
    ) -> subprocess.CompletedProcess[str]:
        argv = [PI, *(["--model", model] if model else []), *args]
        return subprocess.run(
            argv,
            cwd=self.project,
            env=self.env(),
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def rpc(self, *args: str, model: str = "loop/fake-model") -> RpcClient:
        process = subprocess.Popen(
            [PI, "--mode", "rpc", "--model", model, *args],
            cwd=self.project,
            env=self.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        client = RpcClient(process)
        client.start_reader()
        return client

    def session_files(self) -> list[Path]:
        return sorted((self.agent_dir / "sessions").rglob("*.jsonl"), key=lambda p: p.stat().st_mtime)


@pytest.fixture
def pi_env(tmp_path: Path, pi_llm_server: LoopbackLLMServer) -> Iterator[PiEnv]:
    env = PiEnv(tmp_path, pi_llm_server)
    env.agent_dir.mkdir()
    env.project.mkdir()
    (tmp_path / "home").mkdir()
    write_models_json(env.agent_dir, pi_llm_server)
    # Fast retries and no SDK-level retries, so retry behaviour is pi's and tests stay quick.
    settings = {"retry": {"baseDelayMs": 10, "provider": {"maxRetries": 0}}}
    (env.agent_dir / "settings.json").write_text(json.dumps(settings))
    yield env
