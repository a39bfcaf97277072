from __future__ import annotations

from pi_core.modes.jsonl import serialize_json_line
from pi_core.modes.rpc.responses import (
    BashResult,
    ContextUsage,
    RpcSessionState,
    SessionStats,
    TokenTotals,
    error_response,
    success_response,
)
from pi_core.modes.rpc.ui_protocol import NotifyRequest, SetStatusRequest


def test_success_response_omits_absent_id_and_data() -> None:
    assert success_response(None, "abort") == {"type": "response", "command": "abort", "success": True}
    assert success_response("7", "cycle_model", None) == {
        "id": "7", "type": "response", "command": "cycle_model", "success": True, "data": None,
    }  # fmt: skip


def test_error_response_shape() -> None:
    assert serialize_json_line(error_response("1", "bash", "boom")) == (
        '{"id":"1","type":"response","command":"bash","success":false,"error":"boom"}\n'
    )


def test_state_omits_absent_fields() -> None:
    state = RpcSessionState(
        thinking_level="medium", is_streaming=False, is_compacting=False, steering_mode="one-at-a-time",
        follow_up_mode="one-at-a-time", session_id="s", auto_compaction_enabled=True, message_count=0,
        pending_message_count=0,
    )  # fmt: skip
    data = success_response("1", "get_state", state)["data"]
    assert "model" not in data and "sessionFile" not in data and "sessionName" not in data
    assert data["steeringMode"] == "one-at-a-time" and data["pendingMessageCount"] == 0


def test_context_usage_keeps_explicit_nulls() -> None:
    stats = SessionStats(
        session_id="s", user_messages=1, assistant_messages=1, tool_calls=0, tool_results=0,
        total_messages=2, tokens=TokenTotals(input=1, output=2, cache_read=0, cache_write=0, total=3),
        cost=0.0, context_usage=ContextUsage(tokens=None, context_window=1000, percent=None),
    )  # fmt: skip
    line = serialize_json_line(success_response(None, "get_session_stats", stats))
    assert '"contextUsage":{"tokens":null,"contextWindow":1000,"percent":null}' in line
    assert '"cost":0' in line and "sessionFile" not in line


def test_bash_result_without_exit_code_when_cancelled() -> None:
    result = BashResult(output="x", cancelled=True, truncated=False)
    assert success_response(None, "bash", result)["data"] == {
        "output": "x",
        "cancelled": True,
        "truncated": False,
    }


def test_ui_requests_serialize_as_pi() -> None:
    assert serialize_json_line(NotifyRequest(id="u", message="hey", notify_type="warning")) == (
        '{"type":"extension_ui_request","id":"u","method":"notify","message":"hey","notifyType":"warning"}\n'
    )
    assert serialize_json_line(SetStatusRequest(id="u", status_key="k")) == (
        '{"type":"extension_ui_request","id":"u","method":"setStatus","statusKey":"k"}\n'
    )
