"""spec/compaction.md §11, reproduced entry by entry with the estimates the spec gives."""

from __future__ import annotations

from typing import Any

from pi_builtin_compaction.branch import generate_branch_summary
from pi_builtin_compaction.prepare import prepare_compaction
from pi_builtin_compaction.prompts import (
    BRANCH_SUMMARY_PREAMBLE,
    BRANCH_SUMMARY_PROMPT,
    SPLIT_TURN_SEPARATOR,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
)
from pi_builtin_compaction.summarize import compact
from pi_core.ai.abort import AbortController
from pi_core.runtime.compaction import BranchSummarySettings, CompactionSettings, estimate_tokens


def estimates(branch: Any, *names: str) -> list[int]:
    return [estimate_tokens(branch.entries[name].message) for name in names]


def test_starting_tree_has_the_spec_estimates(tree: Any) -> None:
    assert estimates(tree, "U1", "A1", "R1", "A2", "U2", "A3", "R2", "U3", "A4") == [
        50,
        6,
        2000,
        100,
        20,
        312,
        1,
        30,
        400,
    ]


async def first_compaction(tree: Any, scripted: Any) -> Any:
    """§11.2 with keepRecentTokens = 420; returns the preparation after appending C1, U4, A5."""
    settings = CompactionSettings(keep_recent_tokens=420)
    preparation = prepare_compaction(tree.path("A4"), settings)
    assert preparation is not None
    scripted.say("## Goal\nAdd --verbose")
    result = await compact(preparation, scripted, AbortController().signal)
    tree.compaction(
        "C1", result.summary, result.first_kept_entry_id, result.tokens_before, result.details, parent="A4"
    )
    tree.user("U4", "y" * 40)
    tree.assistant("A5", "z" * 200, total_tokens=2000)
    return preparation, result


async def test_first_compaction_cuts_at_the_branch_summary(tree: Any, scripted: Any) -> None:
    preparation, result = await first_compaction(tree, scripted)

    assert preparation.first_kept_entry_id == "B"
    # The cut lands on B, its own turn start: "split" with an empty prefix, like a normal cut.
    assert preparation.is_split_turn is True
    assert preparation.turn_prefix_messages == []
    entries = tree.entries
    assert preparation.messages_to_summarize == [entries[name].message for name in ("U1", "A1", "R1", "A2")]
    assert preparation.tokens_before == 5800
    assert preparation.file_ops.read == {"cli.py"}

    assert len(scripted.requests) == 1
    assert scripted.requests[0].max_tokens == 13107
    assert result.summary == "## Goal\nAdd --verbose\n\n<read-files>\ncli.py\n</read-files>"
    assert result.details == {"readFiles": ["cli.py"], "modifiedFiles": []}
    assert result.first_kept_entry_id == "B"
    assert result.tokens_before == 5800


async def test_second_compaction_with_60_tokens_cuts_at_u4_and_updates(tree: Any, scripted: Any) -> None:
    _, first = await first_compaction(tree, scripted)
    preparation = prepare_compaction(tree.path("A5"), CompactionSettings(keep_recent_tokens=60))
    assert preparation is not None

    assert preparation.first_kept_entry_id == "U4"
    assert preparation.is_split_turn is False
    roles = [m.role for m in preparation.messages_to_summarize]
    assert roles == ["branchSummary", "user", "assistant"]  # B, U3, A4; C1 itself is skipped
    assert preparation.messages_to_summarize[1] == tree.entries["U3"].message
    assert preparation.previous_summary == first.summary
    assert preparation.file_ops.read == {"cli.py"}  # seeded from C1.details

    scripted.say("## Goal\nupdated")
    result = await compact(preparation, scripted, AbortController().signal)
    text = scripted.prompt_text(1)
    assert f"<previous-summary>\n{first.summary}\n</previous-summary>\n\n" in text
    assert text.endswith(UPDATE_SUMMARIZATION_PROMPT)
    assert result.first_kept_entry_id == "U4"
    assert result.summary == "## Goal\nupdated\n\n<read-files>\ncli.py\n</read-files>"


async def test_second_compaction_with_420_tokens_splits_the_unittest_turn(tree: Any, scripted: Any) -> None:
    await first_compaction(tree, scripted)
    preparation = prepare_compaction(tree.path("A5"), CompactionSettings(keep_recent_tokens=420))
    assert preparation is not None

    assert preparation.first_kept_entry_id == "A4"
    assert preparation.is_split_turn is True
    assert [m.role for m in preparation.messages_to_summarize] == ["branchSummary"]
    assert preparation.turn_prefix_messages == [tree.entries["U3"].message]

    scripted.delay = 0.01
    scripted.say("HISTORY", "PREFIX")
    result = await compact(preparation, scripted, AbortController().signal)
    assert scripted.max_in_flight == 2  # history and turn prefix run concurrently
    assert scripted.prompt_text(1).startswith("<conversation>\n")
    assert scripted.prompt_text(2).endswith(TURN_PREFIX_SUMMARIZATION_PROMPT)
    assert result.summary == (
        "HISTORY" + SPLIT_TURN_SEPARATOR + "PREFIX" + "\n\n<read-files>\ncli.py\n</read-files>"
    )
    assert result.first_kept_entry_id == "A4"


async def test_split_turn_sends_the_user_focus_with_both_requests(tree: Any, scripted: Any) -> None:
    await first_compaction(tree, scripted)
    preparation = prepare_compaction(tree.path("A5"), CompactionSettings(keep_recent_tokens=420))
    assert preparation is not None and preparation.is_split_turn
    scripted.say("HISTORY", "PREFIX")
    await compact(preparation, scripted, AbortController().signal, "keep the flag names")
    texts = [scripted.prompt_text(1), scripted.prompt_text(2)]
    assert all(text.endswith("\n\nAdditional focus: keep the flag names") for text in texts)
    assert sum(text.startswith("# Conversation\n") for text in texts) == 1


async def test_split_turn_in_one_long_turn(branch: Any, scripted: Any) -> None:
    """§11.5 with keepRecentTokens = 3100."""
    branch.user("U0", "u" * 120, parent=None)
    branch.assistant("A0", "a" * 160)
    branch.user("U1", "Refactor b.py".ljust(80))
    branch.assistant("A1", calls=[("read", {"path": "a.py"})])
    branch.tool_result("R1", "1" * 12000)
    branch.assistant("A2", calls=[("read", {"path": "b.py"})])
    branch.tool_result("R2", "2" * 12000)
    branch.assistant("A3", calls=[("edit", {"path": "b.py", "edit": "x"})])
    branch.tool_result("R3", "ok", name="edit")
    branch.assistant("A4", "f" * 800)
    assert estimates(branch, "U0", "A0", "U1", "A1", "R1", "A2", "R2", "A3", "R3", "A4") == [
        30,
        40,
        20,
        5,
        3000,
        5,
        3000,
        8,
        1,
        200,
    ]

    preparation = prepare_compaction(branch.path(), CompactionSettings(keep_recent_tokens=3100))
    assert preparation is not None
    entries = branch.entries
    assert preparation.first_kept_entry_id == "A3"
    assert preparation.is_split_turn is True
    assert preparation.messages_to_summarize == [entries["U0"].message, entries["A0"].message]
    assert preparation.turn_prefix_messages == [entries[n].message for n in ("U1", "A1", "R1", "A2", "R2")]

    scripted.say("H", "P")
    result = await compact(preparation, scripted, AbortController().signal)
    assert sorted(r.max_tokens for r in scripted.requests) == [8192, 13107]
    assert result.summary.endswith("\n\n<read-files>\na.py\nb.py\n</read-files>")
    assert result.details == {"readFiles": ["a.py", "b.py"], "modifiedFiles": []}


async def test_branch_summary_when_leaving_the_unittest_branch(tree: Any, scripted: Any) -> None:
    """§11.6: collected B, U3, A4 (the walk from A4 up to the common ancestor A2)."""
    collected = [tree.entries[name] for name in ("B", "U3", "A4")]
    scripted.say("## Goal\nunittest")
    result = await generate_branch_summary(
        collected,
        settings=BranchSummarySettings(),
        context_window=200000,
        complete=scripted,
        signal=AbortController().signal,
    )
    request = scripted.requests[0]
    assert request.max_tokens == 2048
    assert request.use_reasoning is False
    text = scripted.prompt_text()
    parts = text.removeprefix("<conversation>\n").split("\n</conversation>\n\n")[0].split("\n\n[")
    assert parts[0].startswith(
        "[User]: The following is a summary of a branch that this conversation came back from:"
    )
    assert parts[1].startswith("User]: Use unittest instead")
    assert parts[2].startswith("Assistant]: Here is a unittest version")
    assert text.endswith("\n</conversation>\n\n" + BRANCH_SUMMARY_PROMPT)
    assert result.summary == (
        BRANCH_SUMMARY_PREAMBLE
        + "## Goal\nunittest"
        + "\n\n<modified-files>\ntests/test_cli.py\n</modified-files>"
    )
    assert result.details == {"readFiles": [], "modifiedFiles": ["tests/test_cli.py"]}
