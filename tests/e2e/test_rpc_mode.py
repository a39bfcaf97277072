"""RPC mode end to end: every command of pi's protocol against the real executable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_core.runtime.host import NOT_SAVED
from pi_core.testing import Text, ToolUse, Turn, text_turn, tool_turn

from tests.e2e.theme_setup import sea_where_pi_does_not_look, write_theme_setup

if TYPE_CHECKING:
    from conftest import PiEnv, RpcClient


def _ok(response: dict[str, Any], command: str) -> Any:
    assert response["type"] == "response" and response["command"] == command, response
    assert response["success"] is True, response
    return response.get("data")


def _prompt(rpc: RpcClient, message: str, **extra: Any) -> list[dict[str, Any]]:
    _ok(rpc.call({"type": "prompt", "message": message, **extra}), "prompt")
    return rpc.events_until("agent_end")


def test_rpc_session_commands(pi_env: PiEnv) -> None:
    pi_env.server.add(
        tool_turn(ToolUse("write", {"path": "notes.txt", "content": "one\n"}, id="call_w")),
        text_turn("Saved notes.txt"),
    )
    rpc = pi_env.rpc()
    try:
        state = _ok(rpc.call({"type": "get_state"}), "get_state")
        assert state["model"]["id"] == "fake-model" and state["isStreaming"] is False
        assert state["thinkingLevel"] == "off" and state["steeringMode"] == "one-at-a-time"
        assert state["messageCount"] == 0 and "sessionFile" in state
        # pi 1.6.0: a session that is to be saved cannot be cloned before its file exists
        refused = rpc.call({"type": "clone"})
        assert refused["success"] is False and refused["error"] == NOT_SAVED
        assert _ok(rpc.call({"type": "get_state"}), "get_state")["sessionFile"] == state["sessionFile"]

        events = _prompt(rpc, "write notes")
        kinds = [e["type"] for e in events]
        assert kinds[0] == "agent_start" and "tool_execution_end" in kinds and kinds[-1] == "agent_end"
        assert (pi_env.project / "notes.txt").read_text() == "one\n"

        messages = _ok(rpc.call({"type": "get_messages"}), "get_messages")["messages"]
        # pi 1.6.0: the recorded prompt leads get_messages
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "toolResult", "assistant"]
        assert _ok(rpc.call({"type": "get_last_assistant_text"}), "get_last_assistant_text") == {
            "text": "Saved notes.txt"
        }
        stats = _ok(rpc.call({"type": "get_session_stats"}), "get_session_stats")
        assert (stats["userMessages"], stats["assistantMessages"], stats["toolCalls"]) == (1, 2, 1)
        assert stats["tokens"]["total"] > 0 and stats["contextUsage"]["contextWindow"] == 128000

        bash = _ok(rpc.call({"type": "bash", "command": "cat notes.txt; exit 4"}), "bash")
        assert bash == {"output": "one\n", "exitCode": 4, "cancelled": False, "truncated": False}
        _ok(rpc.call({"type": "abort_bash"}), "abort_bash")

        assert rpc.call({"type": "set_session_name", "name": "  "})["error"] == "Session name cannot be empty"
        _ok(rpc.call({"type": "set_session_name", "name": "notes work"}), "set_session_name")
        info = rpc.wait_for(lambda r: r.get("type") == "session_info_changed")
        assert info["name"] == "notes work"

        forkable = _ok(rpc.call({"type": "get_fork_messages"}), "get_fork_messages")["messages"]
        assert [m["text"] for m in forkable] == ["write notes"]

        html = _ok(rpc.call({"type": "export_html", "outputPath": "session.html"}), "export_html")
        page = (pi_env.project / "session.html").read_text()
        assert html == {"path": "session.html"} and "Saved notes.txt" in page

        first_file = _ok(rpc.call({"type": "get_state"}), "get_state")["sessionFile"]
        forked = _ok(rpc.call({"type": "fork", "entryId": forkable[0]["entryId"]}), "fork")
        assert forked == {"text": "write notes", "cancelled": False}
        after_fork = _ok(rpc.call({"type": "get_state"}), "get_state")
        # only the recorded prompt precedes the first user message (pi 1.6.0 counts it too)
        assert after_fork["sessionFile"] != first_file and after_fork["messageCount"] == 1

        assert _ok(rpc.call({"type": "switch_session", "sessionPath": first_file}), "switch_session") == {
            "cancelled": False
        }
        # + the bash run and the recorded prompt
        assert _ok(rpc.call({"type": "get_state"}), "get_state")["messageCount"] == 6

        assert _ok(rpc.call({"type": "clone"}), "clone") == {"cancelled": False}
        cloned = _ok(rpc.call({"type": "get_state"}), "get_state")
        assert cloned["sessionFile"] != first_file and cloned["messageCount"] == 6

        assert _ok(rpc.call({"type": "new_session"}), "new_session") == {"cancelled": False}
        assert _ok(rpc.call({"type": "get_state"}), "get_state")["messageCount"] == 0
    finally:
        assert rpc.close() == 0
    header = json.loads(Path(first_file).read_text().splitlines()[0])
    assert header["type"] == "session"


def test_rpc_clone_of_an_in_memory_session(pi_env: PiEnv) -> None:
    # --no-session: nothing is ever saved, and pi 1.6.0 clones the session in memory
    rpc = pi_env.rpc("--no-session")
    try:
        assert _ok(rpc.call({"type": "clone"}), "clone") == {"cancelled": False}
        assert "sessionFile" not in _ok(rpc.call({"type": "get_state"}), "get_state")
    finally:
        assert rpc.close() == 0


def test_rpc_model_thinking_queue_and_settings_commands(pi_env: PiEnv) -> None:
    rpc = pi_env.rpc()
    try:
        models = _ok(rpc.call({"type": "get_available_models"}), "get_available_models")["models"]
        assert {(m["provider"], m["id"]) for m in models} == {
            ("loop", "fake-model"),
            ("loopa", "fake-claude"),
        }
        chosen = _ok(
            rpc.call({"type": "set_model", "provider": "loopa", "modelId": "fake-claude"}), "set_model"
        )
        assert chosen["api"] == "anthropic-messages" and chosen["contextWindow"] == 200000
        missing = rpc.call({"type": "set_model", "provider": "loop", "modelId": "nope"})
        assert missing["success"] is False and missing["error"] == "Model not found: loop/nope"
        cycled = _ok(rpc.call({"type": "cycle_model"}), "cycle_model")
        assert cycled["model"]["id"] == "fake-model" and cycled["isScoped"] is False

        _ok(rpc.call({"type": "set_thinking_level", "level": "high"}), "set_thinking_level")
        assert (
            _ok(rpc.call({"type": "get_state"}), "get_state")["thinkingLevel"] == "off"
        )  # not a reasoning model
        assert _ok(rpc.call({"type": "cycle_thinking_level"}), "cycle_thinking_level") is None

        # Queued while idle: delivered with the next run, not starting one.
        _ok(rpc.call({"type": "follow_up", "message": "idle follow-up"}), "follow_up")
        assert rpc.wait_for(lambda r: r.get("type") == "queue_update")["followUp"] == ["idle follow-up"]
        assert _ok(rpc.call({"type": "get_state"}), "get_state")["pendingMessageCount"] == 1
        assert pi_env.server.requests == []
        _ok(rpc.call({"type": "set_steering_mode", "mode": "all"}), "set_steering_mode")
        _ok(rpc.call({"type": "set_follow_up_mode", "mode": "all"}), "set_follow_up_mode")
        _ok(rpc.call({"type": "set_auto_compaction", "enabled": False}), "set_auto_compaction")
        _ok(rpc.call({"type": "set_auto_retry", "enabled": False}), "set_auto_retry")
        _ok(rpc.call({"type": "abort_retry"}), "abort_retry")
        state = _ok(rpc.call({"type": "get_state"}), "get_state")
        assert (state["steeringMode"], state["followUpMode"], state["autoCompactionEnabled"]) == (
            "all",
            "all",
            False,
        )
        settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
        assert settings["retry"]["enabled"] is False and settings["compaction"]["enabled"] is False

        # A slow answer: steer and follow up while it streams, then abort.
        pi_env.server.add(
            Turn(blocks=[Text("slow answer " * 10, chunks=20)], delay=0.05), text_turn("after steer"),
            text_turn("after follow-up"),
        )  # fmt: skip
        _ok(rpc.call({"type": "prompt", "message": "go"}), "prompt")
        rpc.wait_for(lambda r: r.get("type") == "message_update")
        busy = rpc.call({"type": "prompt", "message": "again"})
        assert busy["success"] is False and "Specify streamingBehavior" in busy["error"]
        _ok(rpc.call({"type": "steer", "message": "steer me"}), "steer")
        _ok(rpc.call({"type": "prompt", "message": "later", "streamingBehavior": "followUp"}), "prompt")
        queued = rpc.wait_for(lambda r: r.get("type") == "queue_update" and "later" in r["followUp"])
        assert queued["steering"] == ["steer me"]
        events = rpc.events_until("agent_end", timeout=30)
        users = [e["message"]["content"][0]["text"] for e in events
                 if e["type"] == "message_start" and e["message"]["role"] == "user"]  # fmt: skip
        assert users == ["go", "steer me", "idle follow-up", "later"]  # follow-ups: mode "all"

        rpc.seen.clear()
        pi_env.server.add(Turn(blocks=[Text("never finished " * 50, chunks=50)], delay=0.1))
        _ok(rpc.call({"type": "prompt", "message": "long"}), "prompt")
        rpc.wait_for(lambda r: r.get("type") == "message_update")
        _ok(rpc.call({"type": "abort"}), "abort")
        end = rpc.wait_for(lambda r: r.get("type") == "message_end" and r["message"]["role"] == "assistant")
        assert end["message"]["stopReason"] == "aborted"
    finally:
        assert rpc.close() == 0


def test_rpc_protocol_errors_and_commands_listing(pi_env: PiEnv) -> None:
    prompts = pi_env.project / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text("---\ndescription: Review a file\n---\nReview $1")
    rpc = pi_env.rpc()
    try:
        rpc.send_raw("{not json")
        parse = rpc.wait_for(lambda r: r.get("command") == "parse")
        assert parse["success"] is False and parse["error"].startswith("Failed to parse command:")
        assert "id" not in parse
        rpc.send_raw(json.dumps({"id": "x", "type": "frobnicate"}))
        unknown = rpc.wait_for(lambda r: r.get("command") == "frobnicate")
        assert unknown == {"id": "x", "type": "response", "command": "frobnicate", "success": False,
                           "error": "Unknown command: frobnicate"}  # fmt: skip
        commands = _ok(rpc.call({"type": "get_commands"}), "get_commands")["commands"]
        review = next(c for c in commands if c["name"] == "review")
        assert review["source"] == "prompt" and review["description"] == "Review a file"

        pi_env.server.add(text_turn("reviewed"))
        _prompt(rpc, "/review main.py")
        body = pi_env.server.requests[-1].body
        assert body["messages"][-1]["content"] in (
            "Review main.py",
            [{"type": "text", "text": "Review main.py"}],
        )
        # A manual compaction: announced, run by the installed strategy, answered either way.
        pi_env.server.add(text_turn("## Goal\nreview"))
        compacted = rpc.call({"type": "compact"}, timeout=30)
        assert compacted["command"] == "compact"
        start = rpc.wait_for(lambda r: r.get("type") == "compaction_start")
        end = rpc.wait_for(lambda r: r.get("type") == "compaction_end")
        assert start == {"type": "compaction_start", "reason": "manual"} and end["reason"] == "manual"
        data = _ok(compacted, "compact")
        assert data["summary"].startswith("## Goal") and set(data) == {
            "summary", "firstKeptEntryId", "tokensBefore", "estimatedTokensAfter", "details",
        }  # fmt: skip
        assert end["result"] == data and end["aborted"] is False and end["willRetry"] is False
        messages = _ok(rpc.call({"type": "get_messages"}), "get_messages")["messages"]
        # the compaction's prompt checkpoint, then its summary (pi 1.6.0)
        assert [m["role"] for m in messages[:2]] == ["system", "compactionSummary"]
    finally:
        assert rpc.close() == 0


def test_rpc_gives_plugins_the_theme_of_the_theme_setting(pi_env: PiEnv) -> None:
    """As pi 1.6.0's RPC mode: ``ctx.ui.theme`` is the ``theme`` setting's theme."""
    rpc = pi_env.rpc("-e", str(write_theme_setup(pi_env, "sea")), "--no-session")
    try:
        notify = rpc.wait_for(lambda r: r.get("type") == "extension_ui_request" and r["method"] == "notify")
        assert notify["message"] == "theme=sea accent=#008080"
    finally:
        assert rpc.close() == 0


def test_rpc_looks_the_theme_setting_up_in_the_agent_folder_alone(pi_env: PiEnv) -> None:
    """pi 1.6.0's RPC mode loads no theme resources: a theme the project, the ``themes`` setting
    or ``--theme`` has, and the agent folder has not, gives ``system``."""
    plugin = write_theme_setup(pi_env, "sea")
    rpc = pi_env.rpc("-e", str(plugin), *sea_where_pi_does_not_look(pi_env), "--no-session")
    try:
        notify = rpc.wait_for(lambda r: r.get("type") == "extension_ui_request" and r["method"] == "notify")
        assert notify["message"].startswith("theme=system "), notify
    finally:
        assert rpc.close() == 0


ASKING_PLUGIN = """
from pi_core import hookimpl


async def ask(args, ctx):
    ok = await ctx.ui.confirm("Proceed?", f"run {args}")
    choice = await ctx.ui.select("Colour", ["red", "blue"])
    ctx.ui.notify(f"confirmed={ok} colour={choice}", "info")
    ctx.set_session_name(f"asked {choice}")


@hookimpl
def register_commands(register):
    register("ask", ask, description="Ask the client")


@hookimpl
def tool_call(event, ctx):
    if event.tool_name == "bash":
        return {"block": True, "reason": "bash is off in this project"}
"""


def test_rpc_routes_plugin_dialogs_to_the_client(pi_env: PiEnv, tmp_path: Path) -> None:
    plugin = tmp_path / "asking.py"
    plugin.write_text(ASKING_PLUGIN)
    pi_env.server.add(
        tool_turn(ToolUse("bash", {"command": "rm -rf /"}, id="c1")), text_turn("blocked, fine")
    )
    rpc = pi_env.rpc("-e", str(plugin))
    try:
        commands = _ok(rpc.call({"type": "get_commands"}), "get_commands")["commands"]
        ask = next(c for c in commands if c["name"] == "ask")
        assert (ask["description"], ask["source"]) == ("Ask the client", "extension")
        assert ask["sourceInfo"] == {
            "path": str(plugin),
            "source": "local",
            "scope": "temporary",
            "origin": "top-level",
        }
        # As in pi, the prompt is answered when the command is done, so dialogs come first.
        prompt_id = rpc.send({"type": "prompt", "message": "/ask deploy"})
        confirm = rpc.wait_for(lambda r: r.get("type") == "extension_ui_request" and r["method"] == "confirm")
        assert (confirm["title"], confirm["message"]) == ("Proceed?", "run deploy")
        rpc.send_raw(json.dumps({"type": "extension_ui_response", "id": confirm["id"], "confirmed": True}))
        select = rpc.wait_for(lambda r: r.get("type") == "extension_ui_request" and r["method"] == "select")
        assert select["options"] == ["red", "blue"]
        rpc.send_raw(json.dumps({"type": "extension_ui_response", "id": select["id"], "value": "blue"}))
        notify = rpc.wait_for(lambda r: r.get("type") == "extension_ui_request" and r["method"] == "notify")
        assert notify["message"] == "confirmed=True colour=blue" and notify["notifyType"] == "info"
        info = rpc.wait_for(lambda r: r.get("type") == "session_info_changed")
        assert info["name"] == "asked blue"
        _ok(rpc.wait_for(lambda r: r.get("id") == prompt_id), "prompt")
        assert pi_env.server.requests == []  # a command never reaches the model

        events = _prompt(rpc, "clean up")
        end = next(e for e in events if e["type"] == "tool_execution_end")
        assert end["isError"] is True and end["result"]["content"][0]["text"] == "bash is off in this project"
    finally:
        assert rpc.close() == 0


STARTUP_QUESTION_PLUGIN = """
from pi_core import hookimpl


@hookimpl
async def session_start(event, ctx):
    if await ctx.ui.confirm("Index the repository?", f"reason {event.reason}"):
        ctx.set_session_name("indexed")
"""


def test_rpc_answers_a_plugin_question_asked_at_start_up(pi_env: PiEnv, tmp_path: Path) -> None:
    """A session_start dialog goes to the client while commands wait for start-up to finish."""
    plugin = tmp_path / "startup_question.py"
    plugin.write_text(STARTUP_QUESTION_PLUGIN)
    rpc = pi_env.rpc("-e", str(plugin))
    try:
        question = rpc.wait_for(lambda r: r.get("type") == "extension_ui_request")
        assert (question["method"], question["message"]) == ("confirm", "reason startup")
        state_id = rpc.send({"type": "get_state"})  # sent before the answer: waits for start-up
        rpc.send_raw(json.dumps({"type": "extension_ui_response", "id": question["id"], "confirmed": True}))
        state = _ok(rpc.wait_for(lambda r: r.get("id") == state_id), "get_state")
        assert state["sessionName"] == "indexed"
    finally:
        assert rpc.close() == 0
