"""The /tree rows: guides at branch points, the active branch first, pi's filter modes."""

from __future__ import annotations

from pi_core.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_core.modes.interactive.tree_view import active_index, tree_rows
from pi_core.session.manager import SessionManager


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def assistant(text: str, *calls: ToolCall) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text), *calls] if text else list(calls),
        api="openai-completions",
        provider="loop",
        model="m",
        stop_reason="toolUse" if calls else "stop",
    )


def branched_session() -> tuple[SessionManager, dict[str, str]]:
    """hello → hi → (approach A → done A → read a.py) | (approach B → done B, the leaf)."""
    manager = SessionManager.in_memory("/p")
    ids = {"model": manager.append_model_change("loop", "m")}
    ids["hello"] = manager.append_message(user("Hello,\ncan you help?"))
    ids["hi"] = manager.append_message(assistant("Of course"))
    ids["a"] = manager.append_message(user("approach A"))
    call = ToolCall(id="t1", name="read", arguments={"path": "a.py"})
    ids["calls"] = manager.append_message(assistant("", call))
    result = ToolResultMessage(tool_call_id="t1", tool_name="read", content=[TextContent(text="x")])
    ids["result"] = manager.append_message(result)
    ids["done_a"] = manager.append_message(assistant("done A"))
    manager.branch(ids["hi"])
    ids["b"] = manager.append_message(user("approach B"))
    ids["done_b"] = manager.append_message(assistant("done B"))
    manager.append_label_change(ids["b"], "favourite")
    return manager, ids


def texts(manager: SessionManager, mode: str = "default") -> list[str]:
    return [row.text for row in tree_rows(manager.get_tree(), manager.get_leaf_id(), mode)]  # type: ignore[arg-type]


def test_branches_are_drawn_with_guides_and_the_active_branch_comes_first() -> None:
    manager, ids = branched_session()
    assert texts(manager) == [
        "user: Hello, can you help?",
        "assistant: Of course",
        "├─ user: approach B [favourite]",
        "│  assistant: done B  ← active",
        "└─ user: approach A",
        "   [read: a.py]",
        "   assistant: done A",
    ]
    rows = tree_rows(manager.get_tree(), manager.get_leaf_id())
    assert rows[active_index(rows)].entry_id == ids["done_b"]


def test_filter_modes() -> None:
    manager, _ = branched_session()
    assert texts(manager, "user-only") == [
        "user: Hello, can you help?",
        "├─ user: approach B [favourite]  ← active",  # the nearest shown entry above the leaf
        "└─ user: approach A",
    ]
    assert "   [read: a.py]" not in texts(manager, "no-tools")
    assert texts(manager, "labeled-only") == ["├─ user: approach B [favourite]  ← active"]
    everything = texts(manager, "all")
    assert everything[0] == "[model: m]"
    assert not any("(no content)" in text for text in everything)  # tool calls only: hidden, as in pi
    assert any("[label: favourite]" in text for text in everything)


def test_the_active_marker_moves_up_to_the_nearest_shown_entry() -> None:
    manager, _ = branched_session()
    manager.append_session_info("named")  # the leaf is now a bookkeeping entry the default view hides
    assert "│  assistant: done B  ← active" in texts(manager)


def test_a_deep_linear_session_stays_flat() -> None:
    manager = SessionManager.in_memory("/p")
    for index in range(3000):  # deeper than Python's recursion limit
        manager.append_message(user(f"q{index}"))
    rows = texts(manager, "user-only")
    assert len(rows) == 3000 and rows[-1] == "user: q2999  ← active"
