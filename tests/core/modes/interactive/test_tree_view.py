"""The /tree model: pi's layout (segments, guides, the active path), filters, search, folding."""

from __future__ import annotations

from datetime import datetime, timedelta

from pi_core.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_core.modes.interactive.tree_view import TreeState, label_time, tool_call_text
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
    call = ToolCall(id="t1", name="read", arguments={"path": "a.py", "offset": 5, "limit": 10})
    ids["calls"] = manager.append_message(assistant("", call))
    result = ToolResultMessage(tool_call_id="t1", tool_name="read", content=[TextContent(text="x")])
    ids["result"] = manager.append_message(result)
    ids["done_a"] = manager.append_message(assistant("done A"))
    manager.branch(ids["hi"])
    ids["b"] = manager.append_message(user("approach B"))
    ids["done_b"] = manager.append_message(assistant("done B"))
    manager.append_label_change(ids["b"], "favourite")
    return manager, ids


def state_of(manager: SessionManager, mode: str = "default") -> TreeState:
    return TreeState(manager.get_tree(), manager.get_leaf_id(), mode, page=50)  # type: ignore[arg-type]


def texts(state: TreeState) -> list[str]:
    return [row.plain for row in state.rows()]


def test_segments_guides_and_the_active_path_as_pi_draws_them() -> None:
    manager, ids = branched_session()
    state = state_of(manager)
    assert texts(state) == [
        "• user: Hello, can you help?",
        "• assistant: Of course",
        "├⊟ • [favourite] user: approach B",
        "│     • assistant: done B",
        "└⊟ user: approach A",
        "      [read: a.py:5-14]",
        "      assistant: done A",
    ]
    assert state.selected is not None and state.selected.entry_id == ids["done_b"]
    assert state.status() == "(4/7)"


def test_filter_modes_and_their_tags() -> None:
    manager, ids = branched_session()
    state = state_of(manager, "user-only")
    assert texts(state) == [
        "• user: Hello, can you help?",
        "├─ • [favourite] user: approach B",
        "└─ user: approach A",
    ]
    assert state.selected is not None and state.selected.entry_id == ids["b"]  # nearest shown above the leaf
    assert state.status() == "(2/3) [user]"
    state.toggle_mode("user-only")  # its own key again: back to the default view
    assert state.mode == "default" and state.selected.entry_id == ids["b"]  # type: ignore[union-attr]
    state.toggle_mode("no-tools")
    assert "[read: a.py:5-14]" not in " ".join(texts(state)) and state.status().endswith("[no-tools]")
    state.set_mode("labeled-only")
    assert texts(state) == ["• [favourite] user: approach B"]
    state.cycle_mode(1)
    assert state.mode == "all" and texts(state)[0] == "• [model: m]"
    assert not any("(no content)" in text for text in texts(state))  # tool calls only: hidden, as pi
    assert any("[label: favourite]" in text for text in texts(state))
    state.cycle_mode(1)
    assert state.mode == "default"


def test_up_and_down_wrap_and_pages_stop_at_the_ends() -> None:
    manager, _ = branched_session()
    state = state_of(manager)
    state.page = 3
    state.move(-3)
    assert state.index == 0
    state.move(-1)
    assert state.index == 6  # wrapped to the bottom
    state.page_by(-1)
    assert state.index == 3
    state.page_by(-1)
    state.page_by(-1)
    assert state.index == 0
    assert len(state.rows()) == 3


def test_folding_a_segment_and_jumping_between_segment_starts() -> None:
    manager, ids = branched_session()
    state = state_of(manager)
    state.fold_or_up()  # on "done B": not a segment start, so it goes up to one
    assert state.selected.entry_id == ids["b"]  # type: ignore[union-attr]
    state.fold_or_up()  # a segment start with entries below: it folds
    assert texts(state)[2:4] == ["├⊞ • [favourite] user: approach B", "└⊟ user: approach A"]
    assert state.status() == "(3/6)"
    state.unfold_or_down()
    assert "│     • assistant: done B" in texts(state)
    state.unfold_or_down()  # not folded: along the branch to its end
    assert state.selected.entry_id == ids["done_b"]  # type: ignore[union-attr]
    state.select(ids["hello"])
    state.unfold_or_down()  # from the root down to the first segment start
    assert state.selected.entry_id == ids["b"]  # type: ignore[union-attr]
    state.select(ids["hello"])
    state.fold_or_up()  # the root folds too; its sign is drawn before the entry
    assert texts(state) == ["⊞ • user: Hello, can you help?"]
    state.set_mode("all")  # a filter change opens every fold
    assert not state.folded


def test_search_matches_labels_and_roles_and_esc_clears_it_first() -> None:
    manager, ids = branched_session()
    state = state_of(manager)
    state.type_text("favourite")
    assert [row.entry_id for row in state.rows()] == [ids["b"]]
    state.erase()
    state.type_text("e")
    assert state.query == "favourite"
    assert state.clear_query() is True and state.query == ""
    assert state.clear_query() is False  # nothing typed: Esc closes the tree
    state.type_text("assistant done")
    assert [row.entry_id for row in state.rows()] == [ids["done_b"], ids["done_a"]]
    state.type_text("zzz")
    assert state.rows() == [] and state.status() == "(0/0)"


def test_label_times_and_a_new_label() -> None:
    manager, ids = branched_session()
    state = state_of(manager)
    state.show_label_times = True
    assert state.status() == "(4/7) [+label time]"
    row = next(row for row in state.rows() if row.entry_id == ids["b"])
    assert row.label == "favourite" and row.label_time is not None
    assert len(row.label_time) == 5  # set today: HH:MM
    state.set_label(ids["done_a"], "keep")
    assert "      [keep] " in " | ".join(texts(state))
    state.set_label(ids["b"], None)
    assert "├⊟ • user: approach B" in texts(state)


def test_label_time_formats() -> None:
    now = datetime(2026, 12, 2, 15, 0).astimezone()
    assert label_time(now.replace(hour=9, minute=5).isoformat(), now) == "09:05"
    assert label_time((now - timedelta(days=40)).isoformat(), now) == "10/23 15:00"
    assert label_time(now.replace(year=2025, month=1, day=7).isoformat(), now) == "25/1/7 15:00"


def test_tool_calls_in_a_few_words() -> None:
    assert tool_call_text("bash", {"command": "echo " + "x" * 60}) == f"[bash: echo {'x' * 45}...]"
    assert tool_call_text("grep", {"pattern": "TODO"}) == "[grep: /TODO/ in .]"
    assert tool_call_text("find", {"pattern": "*.py", "path": "src"}) == "[find: *.py in src]"
    assert tool_call_text("ls", {}) == "[ls: .]"
    assert tool_call_text("edit", {"path": "a.py"}) == "[edit: a.py]"
    assert tool_call_text("todo", {"action": "list"}) == '[todo: {"action":"list"}]'


def test_copy_text_is_the_whole_entry() -> None:
    manager, ids = branched_session()
    state = state_of(manager)
    state.select(ids["hello"])
    assert state.copy_text() == "Hello,\ncan you help?"
    state.set_mode("all")
    state.select(ids["model"])
    assert state.copy_text() is None


def test_a_deep_linear_session_stays_flat() -> None:
    manager = SessionManager.in_memory("/p")
    for index in range(3000):  # deeper than Python's recursion limit
        manager.append_message(user(f"q{index}"))
    state = state_of(manager, "user-only")
    assert len(state.visible) == 3000 and texts(state)[-1] == "• user: q2999"
    assert state.selected is not None and state.index == 2999
