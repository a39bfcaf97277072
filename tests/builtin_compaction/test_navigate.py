"""Tree navigation with a branch summary: spec §8 and the example of §11.6, on a real SessionManager."""

from __future__ import annotations

from typing import Any

import pytest
from pi_builtin_compaction.prompts import BRANCH_SUMMARY_PREAMBLE
from pi_builtin_compaction.strategy import DefaultCompactionStrategy
from pi_core.ai.abort import AbortController
from pi_core.ai.messages import Usage
from pi_core.runtime.compaction import CompactionError, navigate_tree
from pi_core.session.convert import BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX, convert_to_llm
from pi_core.session.manager import SessionManager
from pi_core.testing.plugins import PluginHarness


@pytest.fixture
def session(tree: Any) -> tuple[SessionManager, dict[str, str]]:
    """The §11.1 tree replayed into an in-memory SessionManager; returns it and symbolic -> real ids."""
    sm = SessionManager.in_memory("/tmp")
    real: dict[str, str] = {}
    for name in tree.order:
        entry = tree.entries[name]
        parent = entry.parent_id
        if parent is None:
            sm.reset_leaf()
        else:
            sm.branch(real[parent])
        if entry.type == "message":
            real[name] = sm.append_message(entry.message)
        elif entry.type == "model_change":
            real[name] = sm.append_model_change(entry.provider, entry.model_id)
        elif entry.type == "thinking_level_change":
            real[name] = sm.append_thinking_level_change(entry.thinking_level)
        elif entry.type == "branch_summary":
            real[name] = sm.branch_with_summary(real[parent], entry.summary, entry.details, False)
    return sm, real


def snapshot(sm: SessionManager) -> tuple[list[dict[str, Any]], str | None]:
    return [entry.to_json_dict() for entry in sm.get_entries()], sm.get_leaf_id()


async def navigate(sm: SessionManager, target: str, scripted: Any, **kwargs: Any) -> Any:
    kwargs.setdefault("signal", AbortController().signal)
    return await navigate_tree(
        session=sm,
        target_id=target,
        summarizer=DefaultCompactionStrategy(),
        context_window=200000,
        complete=scripted,
        **kwargs,
    )


async def test_summary_when_leaving_the_unittest_branch(session: Any, scripted: Any) -> None:
    sm, ids = session
    harness = PluginHarness()
    events: list[Any] = []
    harness.add(
        "watch",
        session_before_tree=lambda event: events.append(event),
        session_tree=lambda event: events.append(event),
    )
    scripted.say("## Goal\nunittest")
    usage = Usage(input=40, output=8, total_tokens=48)

    result = await navigate(
        sm, ids["R2"], scripted, summarize=True, hooks=harness.hooks, summary_usage=lambda: usage
    )

    before, after = events
    prep = before.preparation
    assert (prep.target_id, prep.old_leaf_id, prep.common_ancestor_id) == (ids["R2"], ids["A4"], ids["A2"])
    assert [e.id for e in prep.entries_to_summarize] == [ids["B"], ids["U3"], ids["A4"]]
    assert prep.user_wants_summary is True

    entry = result.summary_entry
    assert entry.type == "branch_summary"
    # pi 1.6.0: fromId is the leaf that was left; usage is what the summary cost
    assert entry.parent_id == ids["R2"] and entry.from_id == ids["A4"]
    assert entry.to_json_dict()["usage"] == usage.to_json_dict()
    assert entry.summary == (
        BRANCH_SUMMARY_PREAMBLE
        + "## Goal\nunittest\n\n<modified-files>\ntests/test_cli.py\n</modified-files>"
    )
    assert entry.details == {"readFiles": [], "modifiedFiles": ["tests/test_cli.py"]}
    assert entry.from_hook is False
    assert sm.get_leaf_id() == entry.id == result.new_leaf_id
    assert (after.new_leaf_id, after.old_leaf_id, after.from_extension) == (entry.id, ids["A4"], False)
    assert after.summary_entry.id == entry.id

    llm = convert_to_llm(sm.build_session_context().messages)
    assert [m.role for m in llm] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
        "toolResult",
        "user",
    ]
    last = llm[-1].content[0]
    assert last.text == BRANCH_SUMMARY_PREFIX + entry.summary + BRANCH_SUMMARY_SUFFIX  # type: ignore[union-attr]


async def test_selecting_a_user_message_summarizes_at_its_parent(session: Any, scripted: Any) -> None:
    sm, ids = session
    scripted.say("S")
    result = await navigate(sm, ids["U2"], scripted, summarize=True, label="pytest try")
    assert result.editor_text.startswith("Now write pytest tests")
    entry = result.summary_entry
    assert entry.parent_id == ids["A2"] and entry.from_id == ids["A4"]
    leaf = sm.get_leaf_entry()
    assert leaf is not None and leaf.type == "label" and leaf.target_id == entry.id  # type: ignore[union-attr]
    assert len(sm.get_children(ids["A2"])) == 3


async def test_without_summary_only_the_leaf_moves(session: Any, scripted: Any) -> None:
    sm, ids = session
    entries_before = len(sm.get_entries())
    result = await navigate(sm, ids["A3"], scripted)
    assert result.summary_entry is None and scripted.requests == []
    assert sm.get_leaf_id() == ids["A3"] and len(sm.get_entries()) == entries_before


async def test_hook_can_cancel_or_supply_the_summary(session: Any, scripted: Any) -> None:
    sm, ids = session
    state = snapshot(sm)
    harness = PluginHarness()
    harness.add("gate", session_before_tree=lambda event: {"cancel": True})
    result = await navigate(sm, ids["R2"], scripted, summarize=True, hooks=harness.hooks)
    assert result.cancelled and snapshot(sm) == state

    harness = PluginHarness()
    supplied = {"summary": "FROM HOOK", "details": {"k": 1}, "usage": {"input": 3}}
    harness.add("mine", session_before_tree=lambda event: {"summary": supplied})
    result = await navigate(sm, ids["R2"], scripted, summarize=True, hooks=harness.hooks)
    assert scripted.requests == []
    assert (result.summary_entry.summary, result.summary_entry.from_hook) == ("FROM HOOK", True)
    assert result.summary_entry.usage == {"input": 3}  # a plugin's summary cost is recorded too
    assert result.from_extension is True


async def test_failed_or_aborted_summary_leaves_the_session_unchanged(session: Any, scripted: Any) -> None:
    sm, ids = session
    state = snapshot(sm)
    scripted.fail("overloaded")
    with pytest.raises(CompactionError, match="overloaded"):
        await navigate(sm, ids["R2"], scripted, summarize=True)
    assert snapshot(sm) == state

    scripted.abort()
    result = await navigate(sm, ids["R2"], scripted, summarize=True)
    assert result.cancelled and result.aborted
    assert snapshot(sm) == state


async def test_bad_targets(session: Any, scripted: Any) -> None:
    sm, ids = session
    with pytest.raises(CompactionError, match="Entry nope not found"):
        await navigate(sm, "nope", scripted)
    with pytest.raises(CompactionError, match="No model available"):
        await navigate_tree(session=sm, target_id=ids["R2"], summarize=True, signal=AbortController().signal)
    result = await navigate(sm, ids["A4"], scripted, summarize=True)  # already the leaf
    assert result.summary_entry is None and scripted.requests == []
