"""run_compaction: hooks, validation, and that failures leave the session exactly as it was."""

from __future__ import annotations

from typing import Any

import pytest
from pi_core.ai.abort import AbortController
from pi_core.runtime.compaction import (
    CompactionPreparation,
    CompactionResult,
    CompactionSettings,
    run_compaction,
)
from pi_core.session.manager import SessionManager
from pi_core.testing.plugins import PluginHarness


def snapshot(sm: SessionManager) -> tuple[list[dict[str, Any]], str | None]:
    return [entry.to_json_dict() for entry in sm.get_entries()], sm.get_leaf_id()


async def run(sm: SessionManager, strategy: Any, model: Any, **kwargs: Any) -> Any:
    kwargs.setdefault("signal", AbortController().signal)
    kwargs.setdefault("reason", "manual")
    return await run_compaction(
        session=sm, strategy=strategy, settings=CompactionSettings(), complete=model, **kwargs
    )


async def test_appends_the_entry_and_fires_session_compact_after_the_rebuild(
    session: SessionManager, strategy: Any, model: Any
) -> None:
    harness = PluginHarness()
    seen: list[str] = []
    harness.add("watch", session_compact=lambda event: seen.append(f"compact:{event.compaction_entry.id}"))

    async def after_append(entry: Any) -> None:
        seen.append(f"rebuilt:{entry.id}")

    leaf_before = session.get_leaf_id()
    branch_before = session.get_branch()
    outcome = await run(
        session, strategy, model, hooks=harness.hooks, custom_instructions="focus", after_append=after_append
    )

    assert outcome.error is None and outcome.aborted is False
    entry = outcome.entry
    assert entry.type == "compaction" and entry.parent_id == leaf_before
    assert (entry.summary, entry.first_kept_entry_id, entry.tokens_before) == (
        "SUMMARY",
        branch_before[-2].id,
        1234,
    )
    assert entry.details == {"custom": "focus"}
    assert entry.from_hook is False
    assert session.get_leaf_id() == entry.id
    assert seen == [f"rebuilt:{entry.id}", f"compact:{entry.id}"]
    assert outcome.result == CompactionResult(
        summary="SUMMARY",
        first_kept_entry_id=branch_before[-2].id,
        tokens_before=1234,
        details={"custom": "focus"},
    )


async def test_hook_sees_the_preparation_and_can_cancel(
    session: SessionManager, strategy: Any, model: Any
) -> None:
    harness = PluginHarness()
    received: list[Any] = []

    def before(event: Any) -> dict[str, Any]:
        received.append(event)
        return {"cancel": True}

    harness.add("gate", session_before_compact=before)
    before_state = snapshot(session)
    outcome = await run(session, strategy, model, hooks=harness.hooks, custom_instructions="x")

    assert outcome.aborted is True and outcome.end_error_message is None
    assert outcome.error == "Compaction cancelled"
    assert snapshot(session) == before_state
    assert strategy.calls == ["prepare"]
    event = received[0]
    assert isinstance(event.preparation, CompactionPreparation)
    assert event.preparation.tokens_before == 1234
    assert [e.id for e in event.branch_entries] == [e.id for e in session.get_branch()]
    assert event.custom_instructions == "x"
    assert event.signal is not None


async def test_hook_supplied_compaction_is_written_with_from_hook(
    session: SessionManager, strategy: Any, model: Any
) -> None:
    harness = PluginHarness()
    first_id = session.get_branch()[1].id
    harness.add(
        "mine",
        session_before_compact=lambda event: {
            "compaction": {
                "summary": "HOOK",
                "firstKeptEntryId": first_id,
                "tokensBefore": 7,
                "details": [1],
                "usage": {"input": 5, "output": 2},
            }
        },
    )
    seen: list[bool] = []
    harness.add("watch", session_compact=lambda event: seen.append(event.from_extension))
    outcome = await run(session, strategy, model, hooks=harness.hooks)

    assert strategy.calls == ["prepare"]  # the strategy's summarizer never ran
    assert model.requests == []
    assert (outcome.entry.summary, outcome.entry.first_kept_entry_id, outcome.entry.from_hook) == (
        "HOOK",
        first_id,
        True,
    )
    assert outcome.entry.details == [1]
    assert outcome.entry.usage == {"input": 5, "output": 2}  # pi 1.6.0 records what the plugin's summary cost
    assert outcome.from_extension is True and seen == [True]


async def test_failing_summary_call_leaves_the_session_unchanged(
    session: SessionManager, strategy: Any, model: Any, answer: Any
) -> None:
    model.answers = [answer("", "error", "overloaded")]
    before_state = snapshot(session)
    outcome = await run(session, strategy, model, reason="threshold")
    assert snapshot(session) == before_state
    assert outcome.entry is None and outcome.aborted is False
    assert outcome.error == "Summarization failed: overloaded"
    assert outcome.end_error_message == "Auto-compaction failed: Summarization failed: overloaded"


async def test_abort_during_the_summary_call_leaves_the_session_unchanged(
    session: SessionManager, strategy: Any, model: Any
) -> None:
    controller = AbortController()
    model.on_call = controller.abort  # the user presses Escape while the model is summarizing
    before_state = snapshot(session)
    outcome = await run(session, strategy, model, signal=controller.signal, reason="overflow")
    assert snapshot(session) == before_state
    assert outcome.aborted is True and outcome.error == "Compaction cancelled"
    assert outcome.end_error_message is None


@pytest.mark.parametrize(
    ("produce", "message"),
    [
        (lambda prep: (_ for _ in ()).throw(KeyError("boom")), "'boom'"),
        (
            lambda prep: CompactionResult(summary="s", first_kept_entry_id="nope", tokens_before=1),
            "compaction strategy 'default' returned firstKeptEntryId 'nope', "
            "which is not an entry of the current branch",
        ),
        (lambda prep: "just a string", "compaction strategy 'default' returned an invalid result"),
        (lambda prep: {"summary": 3}, "compaction strategy 'default' returned an invalid result"),
    ],
    ids=["raises", "id-not-on-branch", "string", "bad-dict"],
)
async def test_a_misbehaving_strategy_is_reported_and_nothing_is_written(
    session: SessionManager, strategy: Any, model: Any, produce: Any, message: str
) -> None:
    strategy.produce = produce
    before_state = snapshot(session)
    outcome = await run(session, strategy, model)
    assert snapshot(session) == before_state
    assert outcome.entry is None and not outcome.aborted
    assert outcome.error is not None and message in outcome.error
    assert outcome.end_error_message == "Compaction failed: " + outcome.error


async def test_a_strategy_failing_to_prepare_is_reported(
    session: SessionManager, strategy: Any, model: Any
) -> None:
    strategy.prepare_error = ValueError("cannot plan")
    before_state = snapshot(session)
    outcome = await run(session, strategy, model)
    assert snapshot(session) == before_state
    assert outcome.error == "compaction strategy 'default' failed: cannot plan"


async def test_nothing_to_compact(strategy: Any, model: Any, session: SessionManager) -> None:
    empty = SessionManager.in_memory("/tmp")
    outcome = await run(empty, strategy, model)
    assert outcome.nothing_to_compact and outcome.error == "Nothing to compact (session too small)"
    assert outcome.end_error_message == "Compaction failed: Nothing to compact (session too small)"

    first = await run(session, strategy, model)
    assert first.entry is not None
    again = await run(session, strategy, model, reason="threshold")
    assert again.error == "Already compacted"
    assert again.end_error_message is None  # automatic runs end silently
