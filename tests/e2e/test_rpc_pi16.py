"""The RPC protocol of pi 1.6.0 against the real ``pi --mode rpc``: one transcript per new command
and event (rpc-commands.md, json.md), bad input, and the linear size of a long answer's stream."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_core.testing import Text, Turn, rate_limited, server_error, text_turn

if TYPE_CHECKING:
    from conftest import PiEnv, RpcClient


def _ok(response: dict[str, Any], command: str) -> Any:
    assert response["type"] == "response" and response["command"] == command, response
    assert response["success"] is True, response
    return response.get("data")


def _settled(rpc: RpcClient, timeout: float = 30) -> list[dict[str, Any]]:
    return rpc.events_until("agent_settled", timeout=timeout)


def _slow(text: str = "slow answer " * 10) -> Turn:
    return Turn(blocks=[Text(text, chunks=20)], delay=0.05)


def test_prompt_dispositions_and_agent_settled(pi_env: PiEnv) -> None:
    pi_env.server.add(_slow(), text_turn("after the steer"), text_turn("after the follow-up"))
    rpc = pi_env.rpc()
    try:
        assert _ok(rpc.call({"type": "prompt", "message": "go"}), "prompt") == {"disposition": "started"}
        rpc.wait_for(lambda r: r.get("type") == "message_update")
        queued = rpc.call({"type": "prompt", "message": "then this", "streamingBehavior": "followUp"})
        assert _ok(queued, "prompt") == {"disposition": "queued"}
        assert _ok(rpc.call({"type": "steer", "message": "s"}), "steer") == {"disposition": "queued"}
        events = _settled(rpc)
        kinds = [e["type"] for e in events]
        assert kinds[-1] == "agent_settled" and events[-1] == {"type": "agent_settled", "aborted": False}
        assert kinds.index("agent_end") < kinds.index("agent_settled")
        assert [e["willRetry"] for e in events if e["type"] == "agent_end"] == [False]
        assert kinds.count("agent_settled") == 1 and len(pi_env.server.requests) == 3
        # At agent_settled the session is idle: the next prompt starts at once.
        pi_env.server.add(text_turn("next"))
        assert _ok(rpc.call({"type": "prompt", "message": "next"}), "prompt") == {"disposition": "started"}
        _settled(rpc)

        pi_env.server.add(_slow("x " * 200))
        _ok(rpc.call({"type": "prompt", "message": "long"}), "prompt")
        rpc.wait_for(lambda r: r.get("type") == "message_update")
        _ok(rpc.call({"type": "abort"}), "abort")
        assert _settled(rpc)[-1] == {"type": "agent_settled", "aborted": True}
    finally:
        assert rpc.close() == 0


HANDLING_PLUGIN = """
from pi_core import hookimpl


async def note(args, ctx):
    ctx.append_entry("note", {"text": args})


@hookimpl
def register_commands(register):
    register("note", note, description="Keep a note in the session")


@hookimpl
def input(event, ctx):
    if event.text == "swallow":
        return {"action": "handled"}
"""


def test_handled_disposition_and_entry_appended(pi_env: PiEnv, tmp_path: Path) -> None:
    plugin = tmp_path / "handling.py"
    plugin.write_text(HANDLING_PLUGIN)
    pi_env.server.add(_slow())
    rpc = pi_env.rpc("-e", str(plugin))
    try:
        assert _ok(rpc.call({"type": "prompt", "message": "/note remember"}), "prompt") == {
            "disposition": "handled"
        }
        appended = rpc.wait_for(lambda r: r.get("type") == "entry_appended")
        entry = appended["entry"]
        assert (entry["type"], entry["customType"], entry["data"]) == ("custom", "note", {"text": "remember"})
        entries = _ok(rpc.call({"type": "get_entries"}), "get_entries")["entries"]
        assert entries[-1] == entry
        assert _ok(rpc.call({"type": "prompt", "message": "swallow"}), "prompt") == {"disposition": "handled"}
        # A steer that an input handler takes is "handled" too, and is not queued.
        _ok(rpc.call({"type": "prompt", "message": "go"}), "prompt")
        rpc.wait_for(lambda r: r.get("type") == "message_update")
        assert _ok(rpc.call({"type": "steer", "message": "swallow"}), "steer") == {"disposition": "handled"}
        assert _ok(rpc.call({"type": "get_state"}), "get_state")["pendingMessageCount"] == 0
        _settled(rpc)
        assert len(pi_env.server.requests) == 1  # neither handled input reached the model
    finally:
        assert rpc.close() == 0


def test_clear_queue_takes_queued_messages_back(pi_env: PiEnv) -> None:
    pi_env.server.add(_slow())
    rpc = pi_env.rpc()
    try:
        assert _ok(rpc.call({"type": "clear_queue"}), "clear_queue") == {"steering": [], "followUp": []}
        _ok(rpc.call({"type": "prompt", "message": "go"}), "prompt")
        rpc.wait_for(lambda r: r.get("type") == "message_update")
        _ok(rpc.call({"type": "steer", "message": "change course"}), "steer")
        _ok(rpc.call({"type": "follow_up", "message": "then summarize"}), "follow_up")
        cleared = _ok(rpc.call({"type": "clear_queue"}), "clear_queue")
        assert cleared == {"steering": ["change course"], "followUp": ["then summarize"]}
        update = rpc.wait_for(lambda r: r.get("type") == "queue_update" and not r["steering"])
        assert update == {"type": "queue_update", "steering": [], "followUp": []}
        events = _settled(rpc)
        users = [e["message"]["content"][0]["text"] for e in events
                 if e["type"] == "message_start" and e["message"]["role"] == "user"]  # fmt: skip
        assert users == ["go"] and len(pi_env.server.requests) == 1  # nothing queued was delivered
    finally:
        assert rpc.close() == 0


def test_available_thinking_levels_and_max(pi_env: PiEnv) -> None:
    models = json.loads((pi_env.agent_dir / "models.json").read_text())
    models["providers"]["loopa"]["models"] = [
        {"id": "fake-claude", "contextWindow": 200000, "maxTokens": 4096, "reasoning": True},
        {"id": "fake-max", "reasoning": True, "thinkingLevelMap": {"xhigh": "xhigh", "max": "max"}},
    ]
    (pi_env.agent_dir / "models.json").write_text(json.dumps(models))
    rpc = pi_env.rpc()
    try:
        levels = _ok(rpc.call({"type": "get_available_thinking_levels"}), "get_available_thinking_levels")
        assert levels == {"levels": ["off"]}  # not a reasoning model
        _ok(rpc.call({"type": "set_model", "provider": "loopa", "modelId": "fake-claude"}), "set_model")
        levels = _ok(rpc.call({"type": "get_available_thinking_levels"}), "get_available_thinking_levels")
        assert levels == {"levels": ["off", "minimal", "low", "medium", "high"]}
        _ok(rpc.call({"type": "set_thinking_level", "level": "max"}), "set_thinking_level")
        assert _ok(rpc.call({"type": "get_state"}), "get_state")["thinkingLevel"] == "high"  # clamped
        _ok(rpc.call({"type": "set_model", "provider": "loopa", "modelId": "fake-max"}), "set_model")
        levels = _ok(rpc.call({"type": "get_available_thinking_levels"}), "get_available_thinking_levels")
        assert levels["levels"][-2:] == ["xhigh", "max"]
        _ok(rpc.call({"type": "set_thinking_level", "level": "max"}), "set_thinking_level")
        assert rpc.wait_for(lambda r: r.get("type") == "thinking_level_changed" and r["level"] == "max")
        assert _ok(rpc.call({"type": "get_state"}), "get_state")["thinkingLevel"] == "max"
    finally:
        assert rpc.close() == 0


def test_get_entries_and_get_tree(pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("first answer"), text_turn("second answer"))
    rpc = pi_env.rpc()
    try:
        empty = _ok(rpc.call({"type": "get_entries"}), "get_entries")
        assert [e["type"] for e in empty["entries"]] == ["model_change", "thinking_level_change"]
        _ok(rpc.call({"type": "prompt", "message": "one"}), "prompt")
        _settled(rpc)
        data = _ok(rpc.call({"type": "get_entries"}), "get_entries")
        entries = data["entries"]
        assert entries[0]["parentId"] is None and data["leafId"] == entries[-1]["id"]
        first_user = next(e for e in entries if e["type"] == "message" and e["message"]["role"] == "user")
        file_lines = [json.loads(line) for line in Path(_state(rpc)["sessionFile"]).read_text().splitlines()]
        assert entries == file_lines[1:]  # the entries as the file holds them, header left out
        cursor = entries[-1]["id"]
        assert _ok(rpc.call({"type": "get_entries", "since": cursor}), "get_entries") == {
            "entries": [],
            "leafId": cursor,
        }
        # A second branch from the first user message: the tree has two children there.
        forked = _ok(rpc.call({"type": "fork", "entryId": first_user["id"]}), "fork")
        assert forked["cancelled"] is False
        _ok(rpc.call({"type": "prompt", "message": "other"}), "prompt")
        _settled(rpc)
        tree = _ok(rpc.call({"type": "get_tree"}), "get_tree")
        assert tree["leafId"] == _ok(rpc.call({"type": "get_entries"}), "get_entries")["leafId"]
        node = tree["tree"][0]
        depth = 0
        while node["children"]:
            assert set(node) <= {"entry", "children", "label", "labelTimestamp"}
            node = node["children"][-1]
            depth += 1
        assert node["entry"]["id"] == tree["leafId"] and depth >= 3
        missing = rpc.call({"type": "get_entries", "since": "nope"})
        assert missing["success"] is False and missing["error"] == "Entry not found: nope"
    finally:
        assert rpc.close() == 0


def _state(rpc: RpcClient) -> dict[str, Any]:
    return dict(_ok(rpc.call({"type": "get_state"}), "get_state"))


def test_bash_streams_updates_and_can_stay_out_of_context(pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("seen"))
    rpc = pi_env.rpc()
    try:
        response = rpc.call({"id": "b1", "type": "bash", "command": "echo kept; sleep 0.3; echo second"})
        assert _ok(response, "bash")["output"] == "kept\nsecond\n"
        updates = [r for r in rpc.seen if r.get("type") == "bash_execution_update"]
        assert updates and all(u["id"] == "b1" for u in updates)
        assert "".join(u["delta"] for u in updates) == "kept\nsecond\n"
        hidden = rpc.call({"type": "bash", "command": "echo secret-output", "excludeFromContext": True})
        assert _ok(hidden, "bash")["output"] == "secret-output\n"
        _ok(rpc.call({"type": "prompt", "message": "what ran?"}), "prompt")
        _settled(rpc)
        sent = json.dumps(pi_env.server.requests[-1].body)
        assert "kept" in sent and "secret-output" not in sent
        stored = [m for m in _ok(rpc.call({"type": "get_messages"}), "get_messages")["messages"]
                  if m["role"] == "bashExecution"]  # fmt: skip
        assert [m.get("excludeFromContext", False) for m in stored] == [False, True]
    finally:
        assert rpc.close() == 0


def test_agent_end_will_retry_and_summarization_retry_events(pi_env: PiEnv) -> None:
    settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
    settings["compaction"] = {"keepRecentTokens": 1}
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings))
    pi_env.server.add(rate_limited(), text_turn("after the retry"))
    rpc = pi_env.rpc()
    try:
        _ok(rpc.call({"type": "prompt", "message": "hello"}), "prompt")
        events = _settled(rpc)
        ends = [e["willRetry"] for e in events if e["type"] == "agent_end"]
        assert ends == [True, False]
        kinds = [e["type"] for e in events]
        assert kinds.index("agent_end") < kinds.index("auto_retry_start")
        assert kinds.count("agent_settled") == 1

        pi_env.server.add(text_turn("second answer " * 20))
        _ok(rpc.call({"type": "prompt", "message": "more"}), "prompt")
        _settled(rpc)
        pi_env.server.add(server_error(), text_turn("## Goal\nsummary"), text_turn("## Prefix\nsplit"))
        compacted = _ok(rpc.call({"type": "compact"}, timeout=30), "compact")
        assert compacted["estimatedTokensAfter"] > 0
        scheduled = rpc.wait_for(lambda r: r.get("type") == "summarization_retry_scheduled")
        assert (scheduled["attempt"], scheduled["maxAttempts"], scheduled["delayMs"]) == (1, 3, 10)
        assert scheduled["errorMessage"].startswith("500")
        start = rpc.wait_for(lambda r: r.get("type") == "summarization_retry_attempt_start")
        assert start == {
            "type": "summarization_retry_attempt_start",
            "source": "compaction",
            "reason": "manual",
        }
        rpc.wait_for(lambda r: r.get("type") == "summarization_retry_finished")
        end = rpc.wait_for(lambda r: r.get("type") == "compaction_end")
        assert end["result"] == compacted
        keys = list(compacted)
        assert keys.index("estimatedTokensAfter") == keys.index("tokensBefore") + 1
    finally:
        assert rpc.close() == 0


def test_bad_commands_name_the_field_and_the_run_goes_on(pi_env: PiEnv) -> None:
    rpc = pi_env.rpc()
    try:
        unknown = rpc.call({"id": "u1", "type": "teleport"})
        assert unknown == {"id": "u1", "type": "response", "command": "teleport", "success": False,
                           "error": "Unknown command: teleport"}  # fmt: skip
        wrong = rpc.call({"type": "set_auto_retry", "enabled": "yes"})
        assert wrong["success"] is False and "enabled" in wrong["error"] and "boolean" in wrong["error"]
        missing = rpc.call({"type": "bash"})
        assert missing["success"] is False and "command" in missing["error"]
        extra = rpc.call({"type": "get_state", "verbose": True})
        assert _ok(extra, "get_state")["isStreaming"] is False  # unknown fields are ignored, as pi does
    finally:
        assert rpc.close() == 0
    assert 'pi: RPC get_state: ignoring unknown field "verbose"' in rpc.stderr


def test_a_long_answer_streams_in_linear_size(pi_env: PiEnv) -> None:
    """2,000 deltas: each message_update carries its delta and the usage, never the answer so far."""
    deltas = 2000
    pi_env.server.add(Turn(blocks=[Text("word " * deltas, chunks=deltas)]))
    rpc = pi_env.rpc()
    try:
        _ok(rpc.call({"type": "prompt", "message": "talk"}), "prompt")
        events = _settled(rpc, timeout=60)
    finally:
        assert rpc.close() == 0
    updates = [e for e in events if e["type"] == "message_update"]
    text_deltas = [u for u in updates if u["assistantMessageEvent"]["type"] == "text_delta"]
    assert len(text_deltas) == deltas
    assert all(set(u) == {"type", "usage", "assistantMessageEvent"} for u in updates)
    assert all("partial" not in u["assistantMessageEvent"] for u in updates)
    assert "".join(u["assistantMessageEvent"]["delta"] for u in text_deltas) == "word " * deltas
    sizes = [len(json.dumps(u, separators=(",", ":"))) for u in text_deltas]
    assert max(sizes) < 400 and max(sizes) - min(sizes) < 50  # the last delta is as small as the first
    total = sum(len(json.dumps(e, separators=(",", ":"))) for e in events)
    answer = len("word " * deltas)
    # Linear: a bounded cost per delta plus a few copies of the answer (text_end, message_end,
    # turn_end, agent_end); the cumulative form would be about deltas * answer / 2 = 10 MB.
    assert total < deltas * 400 + 8 * answer
