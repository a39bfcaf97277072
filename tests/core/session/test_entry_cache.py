"""Entry models are built once per entry and ``get_branch`` remembers its last branch: these tests
would catch a stale or shared cache after appends, branching, forks, new sessions and reloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pi_core.session.entries import MessageEntry, SessionEntry, parse_entry, to_wire
from pi_core.session.manager import SessionManager
from session_helpers import assistant, tool_result, user


def fresh_branch(sm: SessionManager, leaf: str | None) -> list[SessionEntry]:
    """The branch from models validated anew from the manager's lines (no cache involved)."""
    entries = {meta.id: parse_entry(meta.line) for meta in sm._metas if meta.line is not None}
    path: list[SessionEntry] = []
    current = entries.get(leaf) if leaf is not None else None
    while current is not None and current not in path:
        path.append(current)
        current = entries.get(current.parent_id) if current.parent_id is not None else None
    return path[::-1]


def assert_branch(sm: SessionManager, leaf: str | None = None) -> list[SessionEntry]:
    ours = sm.get_branch(leaf)
    expected = fresh_branch(sm, leaf if leaf is not None else sm.get_leaf_id())
    assert [to_wire(e) for e in ours] == [to_wire(e) for e in expected]
    assert ours == expected
    assert [e.model_fields_set for e in ours] == [e.model_fields_set for e in expected]
    return ours


def conversation(sm: SessionManager, turns: int) -> list[str]:
    ids = []
    for n in range(turns):
        ids.append(sm.append_message(user(f"q{n}")))
        ids.append(sm.append_message(assistant(f"a{n}", tool=True)))
        ids.append(sm.append_message(tool_result(f"r{n}")))
    return ids


def test_appends_extend_the_remembered_branch(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    ids = conversation(sm, 3)
    first = assert_branch(sm)
    new = sm.append_message(user("later"))
    second = assert_branch(sm)
    assert [e.id for e in second] == [*ids, new]
    assert all(a is b for a, b in zip(first, second, strict=False))  # built once, reused


def test_returned_lists_are_the_callers_own(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    conversation(sm, 2)
    branch = sm.get_branch()
    branch.clear()
    assert len(sm.get_branch()) == 6
    sm.append_message(user("x"))
    assert len(sm.get_branch()) == 7


def test_branching_back_and_forth(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    ids = conversation(sm, 3)
    assert_branch(sm)
    sm.branch(ids[2])
    assert [e.id for e in assert_branch(sm)] == ids[:3]
    other = sm.append_message(user("other way"))
    assert [e.id for e in assert_branch(sm)] == [*ids[:3], other]
    assert [e.id for e in assert_branch(sm, ids[-1])] == ids  # the old branch, by id
    assert [e.id for e in assert_branch(sm, ids[4])] == ids[:5]  # an ancestor of the cached one
    summary = sm.branch_with_summary(ids[1], "left a branch")
    assert [e.id for e in assert_branch(sm)] == [*ids[:2], summary]
    sm.reset_leaf()
    assert sm.get_branch() == []
    root = sm.append_message(user("new root"))
    assert [e.id for e in assert_branch(sm)] == [root]
    assert sm.get_branch("nope") == []


def test_new_session_fork_and_reload_start_afresh(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    ids = conversation(sm, 2)
    sm.append_label_change(ids[0], "start")
    assert_branch(sm)
    first_file = sm.get_session_file()
    assert first_file is not None

    sm.create_branched_session(ids[3])
    forked = assert_branch(sm)
    assert [e.id for e in forked][:4] == ids[:4] and forked[-1].type == "label"

    sm.new_session()
    assert sm.get_branch() == []
    only = sm.append_message(user("alone"))
    assert [e.id for e in assert_branch(sm)] == [only]

    sm.set_session_file(first_file)
    assert [e.id for e in assert_branch(sm)][:6] == ids
    sm.build_session_context()
    assert_branch(sm)


def test_context_messages_are_shared_only_for_plain_lines(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    conversation(sm, 1)
    path = Path(sm.get_session_file() or "")
    lines = path.read_text().splitlines()
    data = json.loads(lines[2])
    data["entryLevelExtra"] = [1]  # an unknown entry key: the entry must keep it
    lines[2] = json.dumps(data)
    path.write_text("\n".join(lines) + "\n")

    reopened = SessionManager.open(path)
    messages = reopened.build_session_context().messages
    branch = assert_branch(reopened)
    assert [type(e) for e in branch] == [MessageEntry] * 3
    entries: list[Any] = branch
    assert entries[0].message is messages[0] and entries[2].message is messages[2]
    assert entries[1].model_extra == {"entryLevelExtra": [1]}
    assert entries[1].message == messages[1]
    assert reopened.get_entry(entries[1].id) is entries[1]


OPS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "user",
                "assistant",
                "tool",
                "branch",
                "reset",
                "summary",
                "branch_of",
                "context",
                "fork",
                "reload",
            ]
        ),
        st.integers(min_value=0, max_value=1000),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_random_operations_never_see_a_stale_branch(tmp_path: Path, ops: list[tuple[str, int]]) -> None:
    sm = SessionManager.create("/p", tmp_path / f"s{abs(hash(tuple(ops)))}")
    for op, number in ops:
        ids = [meta.id for meta in sm._metas]
        pick = ids[number % len(ids)] if ids else None
        if op == "user":
            sm.append_message(user(f"u{number}"))
        elif op == "assistant":
            sm.append_message(assistant(f"a{number}", tool=number % 2 == 0))
        elif op == "tool":
            sm.append_message(tool_result(f"t{number}"))
        elif op == "branch" and pick:
            sm.branch(pick)
        elif op == "reset":
            sm.reset_leaf()
        elif op == "summary":
            sm.branch_with_summary(pick if number % 3 else None, f"s{number}")
        elif op == "branch_of" and pick:
            assert_branch(sm, pick)
        elif op == "context":
            sm.build_session_context()
        elif op == "fork" and pick:
            sm.create_branched_session(pick)
        elif op == "reload":
            file = sm.get_session_file()
            if file is not None and Path(file).exists():
                sm.close()
                sm = SessionManager.open(file)
                if number % 2:
                    sm.build_session_context()
        assert_branch(sm)


def test_damaged_files_give_the_same_branch_as_fresh_models(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    ids = conversation(sm, 2)
    path = Path(sm.get_session_file() or "")
    lines = path.read_text().splitlines()
    duplicate = json.loads(lines[3])
    duplicate["message"] = {"role": "user", "content": "the later line wins", "timestamp": 5}
    dangling = json.loads(lines[1])
    dangling["id"], dangling["parentId"] = "d4ngl1ng", "nowhere0"
    path.write_text("\n".join([*lines, json.dumps(duplicate), json.dumps(dangling)]) + "\n")

    reopened = SessionManager.open(path)
    assert {issue.kind for issue in reopened.load_issues} == {"duplicate-id", "dangling-parent"}
    reopened.build_session_context()
    assert [e.id for e in assert_branch(reopened)] == ["d4ngl1ng"]
    branch = assert_branch(reopened, ids[4])
    assert branch[2].message.content == "the later line wins"  # type: ignore[union-attr]
    assert_branch(reopened, ids[5])
