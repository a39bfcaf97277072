"""A first run in a real terminal: the REPL opens without a model, /login lists the providers and
saves a key, and the next prompt gets an answer (from the loopback server)."""

from __future__ import annotations

import json
import shlex
import shutil
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import text_turn

if TYPE_CHECKING:
    from conftest import PiEnv

PI = str(Path(sys.executable).with_name("pi"))

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_first_run_login_then_an_answer(pi_env: PiEnv) -> None:
    (pi_env.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"groq": {"baseUrl": pi_env.server.base_url("openai-completions")}}})
    )
    pi_env.server.add(text_turn("FIRST-ANSWER from the loopback"))
    socket = f"pi-first-{uuid.uuid4().hex[:8]}"
    env = " ".join(
        shlex.quote(f"{k}={v}") for k, v in pi_env.env().items() if k.startswith(("PI_", "HOME", "PATH"))
    )
    command = f"env {env} TERM=xterm-256color {shlex.quote(PI)}; sleep 30"

    def tmux(*args: str) -> str:
        done = subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, check=False)
        return done.stdout

    def wait_for(text: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = tmux("capture-pane", "-p", "-J", "-t", "pi", "-S", "-200")
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {text!r}; screen:\n{screen}")
            time.sleep(0.1)

    def submit(text: str) -> None:
        tmux("send-keys", "-t", "pi", "-l", text)
        time.sleep(0.2)
        tmux("send-keys", "-t", "pi", "Enter")

    subprocess.run(
        ["tmux", "-L", socket, "new-session", "-d", "-s", "pi", "-x", "120", "-y", "40", "-c",
         str(pi_env.project), command],
        check=True,
    )  # fmt: skip
    try:
        screen = wait_for("No model yet. Type /login")
        assert "no model" in screen
        time.sleep(0.5)  # let the editor take the terminal
        submit("/login")
        screen = wait_for("Save an API key for which provider?")
        assert "anthropic" in screen and "(ANTHROPIC_API_KEY)" in screen
        submit("groq")
        wait_for("API key for groq")
        submit("gsk-typed-in")
        wait_for("Model: groq/openai/gpt-oss-120b")
        submit("hi")
        screen = wait_for("FIRST-ANSWER from the loopback")
        assert "gsk-typed-in" not in screen
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, check=False)
    auth = pi_env.agent_dir / "auth.json"
    assert json.loads(auth.read_text()) == {"groq": {"type": "api_key", "key": "gsk-typed-in"}}
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    (request,) = pi_env.server.requests
    assert request.headers["authorization"] == "Bearer gsk-typed-in"
    assert request.body["model"] == "openai/gpt-oss-120b"
