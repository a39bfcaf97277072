from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pi_core.testing import HttpError, ToolUse, text_turn, tool_turn

from tests.e2e.theme_setup import sea_where_pi_does_not_look, write_theme_setup

if TYPE_CHECKING:
    from conftest import PiEnv


def _text(content: str | list[dict[str, str]]) -> str:
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def _user_texts(body: dict[str, object]) -> list[str]:
    texts = []
    for message in body["messages"]:  # type: ignore[attr-defined]
        if message["role"] == "user":
            content = message["content"]
            texts.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return texts


def test_print_mode_tool_session_writes_files_then_continues(pi_env: PiEnv) -> None:
    pi_env.server.add(
        tool_turn(
            ToolUse("write", {"path": "a.txt", "content": "alpha\n"}, id="call_a"),
            ToolUse("write", {"path": "b.txt", "content": "beta\n"}, id="call_b"),
        ),
        text_turn("Wrote a.txt and b.txt"),
    )
    first = pi_env.run("-p", "create a.txt and b.txt")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "Wrote a.txt and b.txt\n"
    assert (pi_env.project / "a.txt").read_text() == "alpha\n"
    assert (pi_env.project / "b.txt").read_text() == "beta\n"

    pi_env.server.add(
        tool_turn(ToolUse("read", {"path": "a.txt"}, id="call_r")), text_turn("a.txt says alpha")
    )
    second = pi_env.run("-p", "-c", "what is in a.txt?")
    assert second.returncode == 0, second.stderr
    assert second.stdout == "a.txt says alpha\n"
    last_request = pi_env.server.requests[-1].body
    assert _user_texts(last_request) == ["create a.txt and b.txt", "what is in a.txt?"]
    tool_results = [m for m in last_request["messages"] if m["role"] == "tool"]
    assert any("alpha" in str(m["content"]) for m in tool_results)

    (session_file,) = pi_env.session_files()
    lines = [json.loads(line) for line in session_file.read_text().splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["cwd"] == str(pi_env.project)
    kinds = [line["type"] for line in lines[1:3]]
    assert kinds == ["model_change", "thinking_level_change"]
    roles = [line["message"]["role"] for line in lines if line["type"] == "message"]
    # pi 1.6.0 records the prompt and tools once, before the first prompt; --continue with the
    # same prompt records nothing new
    assert roles == ["system", "user", "assistant", "toolResult", "toolResult", "assistant",
                     "user", "assistant", "toolResult", "assistant"]  # fmt: skip


def test_print_mode_sends_a_reply_with_an_unknown_stop_reason_back_to_the_model(pi_env: PiEnv) -> None:
    """pi 1.6.0 keeps a saved reply whose ``stopReason`` it does not know (a newer pi's, or
    ``deferred``) in the context; only ``error`` and ``aborted`` replies stay out."""
    pi_env.server.add(text_turn("first answer"), text_turn("second answer"))
    assert pi_env.run("-p", "first question").returncode == 0
    (session_file,) = pi_env.session_files()
    lines = [json.loads(line) for line in session_file.read_text().splitlines()]
    for line in lines:
        if line["type"] == "message" and line["message"]["role"] == "assistant":
            line["message"].update(stopReason="paused_for_later", rawStopReason="pause_later")
    session_file.write_text("".join(json.dumps(line) + "\n" for line in lines))

    second = pi_env.run("-p", "-c", "second question")
    assert second.returncode == 0, second.stderr
    assert second.stdout == "second answer\n" and "stopReason" not in second.stderr
    sent = pi_env.server.requests[-1].body["messages"]
    assert [(m["role"], _text(m["content"])) for m in sent if m["role"] != "system"] == [
        ("user", "first question"),
        ("assistant", "first answer"),
        ("user", "second question"),
    ]
    kept = [json.loads(line) for line in session_file.read_text().splitlines()]
    assert kept[: len(lines)] == lines  # the reply is kept as it was written


def test_print_and_json_modes_give_plugins_the_theme_of_the_theme_setting(pi_env: PiEnv) -> None:
    """pi 1.6.0's print and JSON modes load the ``theme`` setting's theme for ``ctx.ui.theme``;
    a ``light/dark`` pair or a theme that does not load gives ``system``."""
    plugin = write_theme_setup(pi_env, "sea")
    pi_env.server.add(text_turn("ok"), text_turn("ok"))
    printed = pi_env.run("-e", str(plugin), "--no-session", "-p", "hi")
    assert printed.returncode == 0, printed.stderr
    assert "theme=sea accent=#008080" in printed.stderr
    as_json = pi_env.run("-e", str(plugin), "--no-session", "--mode", "json", "hi")
    assert as_json.returncode == 0, as_json.stderr
    assert "theme=sea accent=#008080" in as_json.stderr
    for setting in ("light/sea", "nowhere"):
        (pi_env.agent_dir / "settings.json").write_text(json.dumps({"theme": setting}), encoding="utf-8")
        pi_env.server.add(text_turn("ok"))
        fallback = pi_env.run("-e", str(plugin), "--no-session", "-p", "hi")
        assert fallback.returncode == 0, fallback.stderr
        assert "theme=system " in fallback.stderr, setting


def test_print_mode_reports_provider_error_on_stderr(pi_env: PiEnv) -> None:
    pi_env.server.add(HttpError(400, "bad request: unsupported field", "invalid_request_error"))
    result = pi_env.run("-p", "hi")
    assert result.returncode == 1
    assert result.stdout == ""
    assert "bad request: unsupported field" in result.stderr


def test_print_mode_concatenates_stdin_file_and_message(pi_env: PiEnv) -> None:
    (pi_env.project / "notes.md").write_text("NOTES")
    pi_env.server.add(text_turn("ok"))
    result = pi_env.run("-p", "@notes.md", "Summarize", input="PIPED")
    assert result.returncode == 0, result.stderr
    (text,) = _user_texts(pi_env.server.requests[-1].body)
    assert text == f'PIPED<file name="{pi_env.project / "notes.md"}">\nNOTES\n</file>\nSummarize'


def test_print_mode_runs_remaining_messages_as_separate_prompts(pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("one"), text_turn("two"))
    result = pi_env.run("-p", "first", "second", "--no-session")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "two\n"
    assert len(pi_env.server.requests) == 2
    assert pi_env.session_files() == []


def test_bad_input_exit_codes(pi_env: PiEnv) -> None:
    unknown_flag = pi_env.run("--bogus", "-p", "x")
    assert unknown_flag.returncode == 2 and "--bogus" in unknown_flag.stderr
    unknown_model = pi_env.run("-p", "x", model="nope/nothing")
    assert unknown_model.returncode == 2
    assert 'Model "nope/nothing" not found' in unknown_model.stderr
    missing_file = pi_env.run("-p", "@missing.txt", "x")
    assert missing_file.returncode == 1 and "File not found" in missing_file.stderr


def test_no_models_available(pi_env: PiEnv) -> None:
    (pi_env.agent_dir / "models.json").unlink()
    result = pi_env.run("-p", "hi", model=None)
    assert result.returncode == 1
    assert result.stderr.startswith("No model to use: pi has no API key for any provider.")


def test_anthropic_dialect_round_trip(pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("hello from claude"))
    result = pi_env.run("-p", "hi", model="loopa/fake-claude")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello from claude\n"
    assert pi_env.server.requests[-1].api == "anthropic-messages"


def test_sigterm_exits_143(pi_env: PiEnv) -> None:
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from pi_core.testing import Text, Turn

    pi_env.server.add(Turn(blocks=[Text("slow " * 200, chunks=200)], delay=0.05))
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("pi")), "--model", "loop/fake-model", "-p", "talk slowly"],
        cwd=pi_env.project, env=pi_env.env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while not pi_env.server.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=20)
    assert process.returncode == 143


def test_list_models_prints_pi_table(pi_env: PiEnv) -> None:
    result = pi_env.run("--list-models", model=None)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "provider  model        context  max-out  thinking  images",
        "loop      fake-model   128K     4.1K     no        no    ",
        "loopa     fake-claude  200K     4.1K     no        no    ",
    ]
    assert pi_env.run("--list-models", "claude", model=None).stdout.count("\n") == 2


def test_piped_stdin_runs_print_mode_with_prompt_and_tool_flags(pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("short answer"))
    result = pi_env.run("--system-prompt", "You are terse.", "--append-system-prompt", "Extra rule.",
                        "--tools", "read,grep", input="question from a pipe")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "short answer\n"
    body = pi_env.server.requests[-1].body
    system = body["messages"][0]
    assert system["role"] in ("system", "developer")
    assert system["content"].startswith("You are terse.") and "Extra rule." in system["content"]
    assert sorted(tool["function"]["name"] for tool in body["tools"]) == ["grep", "read"]
    assert _user_texts(body) == ["question from a pipe"]


def _run_with_terminal_stderr(pi_env: PiEnv, *args: str) -> tuple[int, str, str]:
    """``pi ARGS`` with stdout a pipe and stderr a terminal; (status, stdout, stderr)."""
    main, child = pty.openpty()
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("pi")), "--model", "loop/fake-model", *args],
        cwd=pi_env.project, env=pi_env.env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=child, text=True,
    )  # fmt: skip
    os.close(child)
    chunks: list[bytes] = []
    try:
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal closes with the process
                break
            if not chunk:
                break
            chunks.append(chunk)
        out, _ = process.communicate(timeout=30)
    finally:
        os.close(main)
    return process.returncode, out, b"".join(chunks).decode().replace("\r\n", "\n")


def test_print_mode_announces_retries_on_a_terminal_only(pi_env: PiEnv) -> None:
    # pi 1.6.0 waits through its retries without a word; on a terminal we say what is going on
    # (one stderr line per retry). Piped stderr and stdout stay as pi's.
    pi_env.server.add(HttpError(503, "Service Unavailable", "api_error"), text_turn("second try"))
    status, out, err = _run_with_terminal_stderr(pi_env, "-p", "hi")
    assert (status, out) == (0, "second try\n")
    assert err.startswith("Retrying (1/3) in 0s: ") and "Service Unavailable" in err
    assert err.count("\n") == 1
    pi_env.server.add(HttpError(503, "Service Unavailable", "api_error"), text_turn("again"))
    piped = pi_env.run("-p", "hi")
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, "again\n", "")
    pi_env.server.add(HttpError(503, "Service Unavailable", "api_error"), text_turn("as json"))
    status, out, err = _run_with_terminal_stderr(pi_env, "--mode", "json", "hi")
    assert status == 0 and err == ""
    assert '"type":"auto_retry_start"' in out  # JSON mode reports it as an event, as pi does


def test_print_mode_looks_the_theme_setting_up_in_the_agent_folder_alone(pi_env: PiEnv) -> None:
    """pi 1.6.0's print mode loads no theme resources for ``ctx.ui.theme``: the setting names a
    built-in theme or ``<agent dir>/themes/NAME.json`` (by file name), else it is ``system``."""
    plugin = write_theme_setup(pi_env, "sea")
    flags = sea_where_pi_does_not_look(pi_env)
    pi_env.server.add(text_turn("ok"), text_turn("ok"))
    elsewhere = pi_env.run("-e", str(plugin), *flags, "--no-session", "-p", "hi")
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert "theme=system " in elsewhere.stderr
    # the file's name is what the setting names; the theme keeps the name inside it
    (pi_env.project / ".pi" / "themes" / "sea.json").rename(pi_env.agent_dir / "themes" / "tide.json")
    (pi_env.agent_dir / "settings.json").write_text(json.dumps({"theme": "tide"}), encoding="utf-8")
    by_file = pi_env.run("-e", str(plugin), "--no-session", "-p", "hi")
    assert by_file.returncode == 0, by_file.stderr
    assert "theme=sea accent=#008080" in by_file.stderr
