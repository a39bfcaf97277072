"""Choosing a session from the command line: --continue, --resume, --session, --fork, --export."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import ToolUse, text_turn, tool_turn

if TYPE_CHECKING:
    from conftest import PiEnv

PI = str(Path(sys.executable).with_name("pi"))


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _user_texts(path: Path) -> list[str]:
    texts = []
    for record in _records(path):
        message = record.get("message")
        if record["type"] == "message" and isinstance(message, dict) and message["role"] == "user":
            texts.append(message["content"][0]["text"])  # type: ignore[index]
    return texts


def _session(pi_env: PiEnv, prompt: str, answer: str) -> Path:
    """A finished one-turn session of the project, written directly (faster than running pi)."""
    from pi_core.ai.messages import AssistantMessage, TextContent, UserMessage
    from pi_core.session.manager import SessionManager
    from pi_core.session.paths import default_session_dir

    folder = default_session_dir(str(pi_env.project), pi_env.agent_dir)
    manager = SessionManager.create(str(pi_env.project), folder)
    manager.append_model_change("loop", "fake-model")
    manager.append_thinking_level_change("off")
    manager.append_message(UserMessage(content=[TextContent(text=prompt)]))
    reply = AssistantMessage(
        content=[TextContent(text=answer)], api="openai-completions", provider="loop", model="fake-model"
    )
    manager.append_message(reply)
    manager.close()
    return Path(manager.get_session_file() or "")


def _two_sessions(pi_env: PiEnv) -> tuple[Path, Path]:
    """A real tool-using run of pi (it writes one.txt), then a newer session written directly."""
    pi_env.server.add(
        tool_turn(ToolUse("write", {"path": "one.txt", "content": "1"}, id="c1")), text_turn("made one")
    )
    assert pi_env.run("-p", "first session").returncode == 0
    assert (pi_env.project / "one.txt").read_text() == "1"
    (first,) = pi_env.session_files()
    time.sleep(0.02)  # distinct modification times
    second = _session(pi_env, "second session", "made two")
    assert pi_env.session_files() == [first, second]
    return first, second


def test_continue_picks_the_most_recent_session(pi_env: PiEnv) -> None:
    _, second = _two_sessions(pi_env)
    pi_env.server.add(text_turn("continued"))
    result = pi_env.run("-p", "-c", "and more")
    assert result.returncode == 0, result.stderr
    assert _user_texts(second) == ["second session", "and more"]


def test_session_by_id_prefix_reopens_an_older_session(pi_env: PiEnv) -> None:
    first, _ = _two_sessions(pi_env)
    session_id = str(_records(first)[0]["id"])
    pi_env.server.add(text_turn("back in one"))
    result = pi_env.run("-p", "--session", session_id[:13], "again")
    assert result.returncode == 0, result.stderr
    assert _user_texts(first) == ["first session", "again"]
    missing = pi_env.run("-p", "--session", "ffffffff", "x")
    assert missing.returncode == 1 and "No session found matching 'ffffffff'" in missing.stderr


def test_fork_copies_a_session_into_a_new_file(pi_env: PiEnv) -> None:
    first, _ = _two_sessions(pi_env)
    pi_env.server.add(text_turn("forked reply"))
    result = pi_env.run("-p", "--fork", str(first), "in the fork")
    assert result.returncode == 0, result.stderr
    forked = pi_env.session_files()[-1]
    assert forked not in (first,) and _records(forked)[0]["parentSession"] == str(first)
    assert _user_texts(forked) == ["first session", "in the fork"]
    assert _user_texts(first) == ["first session"]
    conflict = pi_env.run("-p", "--fork", str(first), "-c", "x")
    assert conflict.returncode == 1 and "--fork cannot be combined with --continue" in conflict.stderr


def test_resume_reads_the_choice_from_the_terminal(pi_env: PiEnv) -> None:
    first, second = _two_sessions(pi_env)
    pi_env.server.add(text_turn("resumed"))
    main, child = pty.openpty()
    process = subprocess.Popen(
        [PI, "--model", "loop/fake-model", "-p", "--resume", "pick the older one"],
        cwd=pi_env.project, env=pi_env.env(), stdin=child, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    os.close(child)
    try:
        os.write(main, b"2\n")  # the list is newest first: 2 = the first session
        out, err = process.communicate(timeout=30)
    finally:
        os.close(main)
    assert process.returncode == 0, err
    assert "Resume which session?" in err and out == "resumed\n"
    assert _user_texts(first) == ["first session", "pick the older one"]
    assert _user_texts(second) == ["second session"]


def test_export_writes_html(pi_env: PiEnv) -> None:
    first, _ = _two_sessions(pi_env)
    result = pi_env.run("--export", str(first), "out.html", model=None)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Exported to: out.html\n"
    page = (pi_env.project / "out.html").read_text()
    assert "first session" in page and "made one" in page
    missing = pi_env.run("--export", "nope.jsonl", model=None)
    assert missing.returncode == 1 and "File not found: nope.jsonl" in missing.stderr


def _session_of_a_deleted_folder(pi_env: PiEnv) -> Path:
    """A finished session whose header names a project folder that no longer exists."""
    path = _session(pi_env, "old prompt", "old answer")
    records = _records(path)
    records[0]["cwd"] = str(pi_env.root / "deleted-project")
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def _missing_cwd_message(pi_env: PiEnv, path: Path) -> str:
    return (
        f"Stored session working directory does not exist: {pi_env.root / 'deleted-project'}\n"
        f"Session file: {path}\nCurrent working directory: {pi_env.project}\n"
    )


@pytest.mark.parametrize("mode", [["-p", "hello"], ["--mode", "json", "hello"], ["--mode", "rpc"]])
def test_a_session_whose_folder_is_gone_is_refused(pi_env: PiEnv, mode: list[str]) -> None:
    # pi 1.6.0 outside the REPL: the message on stderr, status 1, nothing sent, the file untouched.
    path = _session_of_a_deleted_folder(pi_env)
    before = path.read_bytes()
    result = pi_env.run("--session", str(path), *mode)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == _missing_cwd_message(pi_env, path)
    assert pi_env.server.requests == []
    assert path.read_bytes() == before


def test_rpc_switch_session_refuses_a_session_whose_folder_is_gone(pi_env: PiEnv) -> None:
    path = _session_of_a_deleted_folder(pi_env)
    client = pi_env.rpc()
    first = client.call({"type": "get_state"})["data"]["sessionFile"]
    reply = client.call({"type": "switch_session", "sessionPath": str(path)})
    assert (reply["success"], reply["error"]) == (False, _missing_cwd_message(pi_env, path).rstrip("\n"))
    assert client.call({"type": "get_state"})["data"]["sessionFile"] == first  # still the same session
    assert client.close() == 0


def _session_of_another_project(pi_env: PiEnv) -> tuple[Path, Path]:
    """A finished session recorded in another existing project folder (with its own AGENTS.md),
    stored in that project's session folder; returns (file, folder)."""
    other = pi_env.root / "other-project"
    other.mkdir()
    (other / "AGENTS.md").write_text("Rules of the other project.\n")
    (pi_env.project / "AGENTS.md").write_text("Rules of the project pi was started in.\n")
    path = _session(pi_env, "old prompt", "old answer")
    records = _records(path)
    records[0]["cwd"] = str(other)
    moved = pi_env.agent_dir / "sessions" / "elsewhere" / path.name
    moved.parent.mkdir(parents=True)
    moved.write_text("".join(json.dumps(record) + "\n" for record in records))
    path.unlink()
    return moved, other


def _system_text(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    return json.dumps(messages[0]["content"])


def test_a_session_file_of_another_project_runs_in_that_project(pi_env: PiEnv) -> None:
    # As pi 1.6.0: no question, no notice; the run works in the folder the session was recorded in.
    path, other = _session_of_another_project(pi_env)
    pi_env.server.add(tool_turn(ToolUse("bash", {"command": "pwd"}, id="c1")), text_turn("there"))
    result = pi_env.run("--session", str(path), "-p", "where are we?")
    assert (result.returncode, result.stdout, result.stderr) == (0, "there\n", "")
    first, second = (request.body for request in pi_env.server.requests)
    assert "Rules of the other project." in _system_text(first)
    assert "Rules of the project pi was started in." not in _system_text(first)
    tool_results = [m for m in second["messages"] if m["role"] == "tool"]
    assert str(other) in json.dumps(tool_results)
    assert _user_texts(path) == ["old prompt", "where are we?"]  # the file goes on, header untouched
    assert _records(path)[0]["cwd"] == str(other)


def test_a_session_id_of_another_project_asks_to_fork_it_here(pi_env: PiEnv) -> None:
    path, other = _session_of_another_project(pi_env)
    session_id = str(_records(path)[0]["id"])
    before = pi_env.session_files()
    declined = pi_env.run("--session", session_id[:8], "-p", "hello", input="n\n")
    asked = f"Session found in different project: {other}\nFork this session into current directory? [y/N] "
    assert (declined.returncode, declined.stdout, declined.stderr) == (0, "", asked + "Aborted.\n")
    closed = pi_env.run("--session", session_id[:8], "-p", "hello", input="")
    assert (closed.returncode, closed.stderr) == (0, asked + "\nAborted.\n")
    assert pi_env.server.requests == [] and pi_env.session_files() == before
    pi_env.server.add(text_turn("forked"))
    accepted = pi_env.run("--session", session_id[:8], "-p", "hello", input="y\n")
    assert (accepted.returncode, accepted.stdout, accepted.stderr) == (0, "forked\n", asked)
    (fork,) = set(pi_env.session_files()) - set(before)
    assert _records(fork)[0]["cwd"] == str(pi_env.project)
    assert _user_texts(fork) == ["old prompt", "hello"]
    assert _user_texts(path) == ["old prompt"]
