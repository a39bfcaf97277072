"""Cut points on crafted branches (spec §5.5-5.6 and the quirks of §9)."""

from __future__ import annotations

from typing import Any

from pi_builtin_compaction.cut_point import (
    CutPoint,
    find_cut_point,
    find_turn_start_index,
    is_valid_cut_point,
)


def cut(branch: Any, keep: int, start: int = 0) -> tuple[str, str | None, bool]:
    path = branch.path()
    point: CutPoint = find_cut_point(path, start, len(path), keep)
    turn = path[point.turn_start_index].id if point.turn_start_index >= 0 else None
    return path[point.first_kept_index].id, turn, point.is_split_turn


def test_valid_cut_points_exclude_tool_results_and_settings(branch: Any) -> None:
    branch.model_change("M", parent=None)
    branch.user("U", "hi")
    branch.assistant("A", calls=[("read", {"path": "x"})])
    branch.tool_result("R", "text")
    branch.branch_summary("B", "s")
    branch.custom_message("C", "note")
    valid = [entry.id for entry in branch.path() if is_valid_cut_point(entry)]
    assert valid == ["U", "A", "B", "C"]


def test_cut_at_user_message_is_not_a_split(branch: Any) -> None:
    branch.user("U1", "a" * 400, parent=None)
    branch.assistant("A1", "b" * 400)
    branch.user("U2", "c" * 400)
    branch.assistant("A2", "d" * 400)
    # A2 100 + U2 100 = 200 >= 150 at U2
    assert cut(branch, 150) == ("U2", None, False)


def test_budget_reached_at_a_tool_result_moves_the_cut_forward_to_the_next_call(branch: Any) -> None:
    branch.user("U1", "u" * 40, parent=None)
    branch.assistant("A1", calls=[("read", {"path": "a"})])
    branch.tool_result("R1", "r" * 4000)
    branch.assistant("A2", "done")
    # A2 1 + R1 1000 >= 500 at R1 -> first cut point at or after R1 is A2, inside U1's turn.
    assert cut(branch, 500) == ("A2", "U1", True)


def test_giant_trailing_tool_result_keeps_everything(branch: Any) -> None:
    branch.user("U1", "u" * 40, parent=None)
    branch.assistant("A1", calls=[("bash", {"command": "cat big"})])
    branch.tool_result("R1", "r" * 40000)
    # The budget is reached at R1 and no cut point follows: the default (first cut point) applies.
    assert cut(branch, 100) == ("U1", None, False)


def test_small_session_keeps_everything_and_pulls_in_leading_settings(branch: Any) -> None:
    branch.model_change("M", parent=None)
    branch.thinking("T")
    branch.user("U1", "hello")
    branch.assistant("A1", "hi")
    assert cut(branch, 20000) == ("M", None, False)


def test_settings_change_before_the_cut_user_message_makes_a_split_turn(branch: Any) -> None:
    """§9 item 3: the pull-back lands on a model_change; its "prefix" is the whole previous turn."""
    branch.user("U1", "a" * 400, parent=None)
    branch.assistant("A1", "b" * 400)
    branch.model_change("M2")
    branch.user("U2", "c" * 400)
    branch.assistant("A2", "d" * 400)
    assert cut(branch, 150) == ("M2", "U1", True)


def test_no_pull_back_over_a_compaction(branch: Any) -> None:
    branch.user("U1", "a" * 400, parent=None)
    branch.compaction("C", "summary", "U1")
    branch.user("U2", "c" * 400)
    branch.assistant("A2", "d" * 400)
    assert cut(branch, 150) == ("U2", None, False)


def test_custom_message_is_its_own_turn_start(branch: Any) -> None:
    branch.user("U1", "a" * 400, parent=None)
    branch.assistant("A1", "b" * 400)
    branch.custom_message("N", "n" * 400)
    branch.assistant("A2", "d" * 400)
    # A2 100 (custom_message entries add nothing) + A1 100 >= 150 at A1 -> cut A1, turn start U1.
    assert cut(branch, 150) == ("A1", "U1", True)
    # Cutting at the custom message: a split whose prefix is empty.
    assert cut(branch, 100) == ("N", "N", True)


def test_bash_execution_starts_a_turn(branch: Any) -> None:
    from pi_core.ai.messages import BashExecutionMessage
    from pi_core.session.entries import MessageEntry

    branch.user("U1", "a" * 400, parent=None)
    branch._add(MessageEntry, "X", True, message=BashExecutionMessage(command="ls", output="o" * 398))
    branch.assistant("A1", "b" * 400)
    path = branch.path()
    assert find_turn_start_index(path, 2, 0) == 1
    assert cut(branch, 100) == ("A1", "X", True)


def test_no_valid_cut_points_returns_start(branch: Any) -> None:
    branch.model_change("M", parent=None)
    branch.thinking("T")
    assert cut(branch, 10) == ("M", None, False)


def test_cut_respects_the_start_boundary(branch: Any) -> None:
    branch.user("U1", "a" * 4000, parent=None)
    branch.assistant("A1", "b" * 4000)
    branch.user("U2", "c" * 40)
    branch.assistant("A2", "d" * 40)
    # Never reaches the budget inside [2, 4): keep from the first cut point in range.
    assert cut(branch, 10000, start=2) == ("U2", None, False)


def test_tokens_before_walk_equals_the_full_context_estimate(branch: Any) -> None:
    import random

    from pi_core.runtime.compaction import branch_context_messages, estimate_branch_context_tokens
    from pi_core.runtime.compaction import estimate_context_tokens as full

    branch.fill_random(random.Random(7), 300)
    for leaf in branch.order[1::7]:
        path = branch.path(leaf)
        assert estimate_branch_context_tokens(path) == full(branch_context_messages(path)).tokens, leaf
