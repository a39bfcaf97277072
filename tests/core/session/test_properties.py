"""Random append / branch / label / compaction / reload sequences: reloading gives the identical
tree, and every leaf has the same context (manager path and the model-based builder agree)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pi_core.session.context import build_session_context
from pi_core.session.manager import SessionManager
from session_helpers import assistant, tool_result, user

OPS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "user",
                "assistant",
                "tool",
                "branch",
                "label",
                "unlabel",
                "compact",
                "summary",
                "reset",
                "name",
                "custom",
                "reload",
            ]
        ),
        st.integers(min_value=0, max_value=10_000),
        st.text(alphabet='abc é\n\u2028"\\', max_size=6),
    ),
    max_size=40,
)


def snapshot(sm: SessionManager) -> dict[str, Any]:
    entries = sm.get_entries()
    ids = [e.id for e in entries]
    return {
        "tree": [(e.id, e.parent_id, e.type) for e in entries],
        "labels": {i: sm.get_label(i) for i in ids},
        "name": sm.get_session_name(),
        "contexts": {i: contexts_agree(sm, entries, i) for i in ids},
    }


def contexts_agree(sm: SessionManager, entries: list[Any], leaf: str) -> Any:
    saved = sm.get_leaf_id()
    sm.branch(leaf)
    ctx = sm.build_session_context()
    if saved is None:
        sm.reset_leaf()
    else:
        sm.branch(saved)
    reference = build_session_context(entries, leaf)
    ours = [m.to_json_dict() for m in ctx.messages]
    assert ours == [m.to_json_dict() for m in reference.messages]
    assert (ctx.thinking_level, ctx.model) == (reference.thinking_level, reference.model)
    return ours, ctx.thinking_level, ctx.model


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_random_sessions_survive_reload(tmp_path: Path, ops: list[tuple[str, int, str]]) -> None:
    directory = tmp_path / f"s{abs(hash(tuple(ops)))}"
    sm = SessionManager.create("/proj", directory)
    sm.append_thinking_level_change("low")
    for op, number, text in ops:
        ids = [e.id for e in sm.get_entries()]
        pick = ids[number % len(ids)] if ids else None
        if op == "user":
            sm.append_message(user(text))
        elif op == "assistant":
            sm.append_message(assistant(text, tool=number % 2 == 0))
        elif op == "tool":
            sm.append_message(tool_result(text))
        elif op == "branch" and pick:
            sm.branch(pick)
        elif op == "label" and pick:
            sm.append_label_change(pick, text.strip() or "x")
        elif op == "unlabel" and pick:
            sm.append_label_change(pick)
        elif op == "compact" and pick:
            path = [e.id for e in sm.get_branch()] or [pick]
            sm.append_compaction(f"summary {text}", path[number % len(path)], number)
        elif op == "summary":
            sm.branch_with_summary(pick if number % 3 else None, text)
        elif op == "reset":
            sm.reset_leaf()
        elif op == "name":
            sm.append_session_info(text)
        elif op == "custom":
            sm.append_custom_message_entry("t", text, number % 2 == 0, {"n": number})
        elif op == "reload":
            path_file = Path(sm.get_session_file() or "")
            if not any(e.type == "message" and e.message.role == "assistant" for e in sm.get_entries()):  # type: ignore[union-attr]
                assert not path_file.exists()
                continue
            before = snapshot(sm)
            sm.close()
            sm = SessionManager.open(path_file)
            assert sm.load_issues == []
            assert snapshot(sm) == before
            last = sm.get_entries()[-1].id if sm.get_entries() else None
            assert sm.get_leaf_id() == last
    snapshot(sm)
