"""A stalled and a cut model stream meet the session file: whatever happens to the stream (or to pi
while it waits), the file stays whole and the next run resumes it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pi_core.session.manager import SessionManager
from pi_core.testing import Text, Turn, text_turn

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = [pytest.mark.faults, pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]

PI = str(Path(sys.executable).with_name("pi"))


def _sent(pi_env: PiEnv) -> list[str]:
    """The user texts of the last request."""
    body = pi_env.server.requests[-1].body
    return [str(m["content"]) for m in body["messages"] if m.get("role") == "user"]


def test_kill_while_the_stream_stalls_leaves_a_resumable_session(pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("first answer"))
    assert pi_env.run("-p", "first question").returncode == 0
    [path] = pi_env.session_files()
    before = path.read_bytes()

    pi_env.server.add(Turn(blocks=[Text("never finished " * 20, chunks=20)], delay=5))  # stalls
    process = subprocess.Popen(
        [PI, "--model", "loop/fake-model", "--continue", "-p", "second question"],
        cwd=pi_env.project,
        env=pi_env.env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 20
    while len(pi_env.server.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=20)
    pi_env.server._state.script.clear()

    data = path.read_bytes()
    assert data.startswith(before) and data.endswith(b"\n")  # appended whole lines only
    manager = SessionManager.open(path)
    assert manager.load_issues == []
    pi_env.server.add(text_turn("third answer"))
    third = pi_env.run("--continue", "-p", "third question")
    assert third.returncode == 0 and "Traceback" not in third.stderr, third.stderr
    assert pi_env.session_files() == [path]
    sent = _sent(pi_env)
    assert "first question" in sent[0] and "third question" in sent[-1]


def test_a_stream_cut_on_every_try_is_one_error_and_the_session_goes_on(pi_env: PiEnv) -> None:
    settings = {"retry": {"baseDelayMs": 1, "maxRetries": 1, "provider": {"maxRetries": 0}}}
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings))
    pi_env.server.add(Turn(blocks=[Text("half an ans")], drop=True), Turn(blocks=[Text("half")], drop=True))
    cut = pi_env.run("-p", "doomed question")
    assert "Traceback" not in cut.stderr and cut.stderr.strip(), cut.stderr
    [path] = pi_env.session_files()
    manager = SessionManager.open(path)
    assert manager.load_issues == []
    roles = [m.role for m in manager.build_session_context().messages]
    assert roles[-2:] == ["user", "assistant"]  # the prompt and the failed reply, both kept
    pi_env.server.add(text_turn("fine now"))
    again = pi_env.run("--continue", "-p", "once more")
    assert again.returncode == 0 and again.stdout.strip() == "fine now", again.stderr
    assert "doomed question" in _sent(pi_env)[0]
