"""Session files written by the real TypeScript pi (tests/fixtures/sessions, made by make_fixtures.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pi_core.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    SessionInfoEntry,
    parse_entry,
    to_wire,
)
from pi_core.session.jsonl import dumps
from pi_core.session.manager import SessionManager

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sessions"


@pytest.fixture
def ts_session(tmp_path: Path) -> Path:
    target = tmp_path / "ts_pi_session.jsonl"
    shutil.copy(FIXTURES / "ts_pi_session.jsonl", target)
    return target


def test_loads_with_same_context_as_pi(ts_session: Path) -> None:
    expected = json.loads((FIXTURES / "ts_pi_session.expected.json").read_text())
    before = ts_session.read_bytes()
    sm = SessionManager.open(ts_session)
    assert sm.load_issues == []
    ctx = sm.build_session_context()
    assert [m.to_json_dict() for m in ctx.messages] == expected["messages"]
    assert ctx.thinking_level == expected["thinkingLevel"]
    assert ctx.model is not None
    assert {"provider": ctx.model.provider, "modelId": ctx.model.model_id} == expected["model"]
    assert sm.get_session_name() == expected["sessionName"]
    assert ts_session.read_bytes() == before  # opening never rewrites a current-version file


def test_every_entry_type_and_tree(ts_session: Path) -> None:
    sm = SessionManager.open(ts_session)
    kinds = {type(entry) for entry in sm.get_entries()}
    assert {
        BranchSummaryEntry,
        CompactionEntry,
        CustomEntry,
        CustomMessageEntry,
        LabelEntry,
        SessionInfoEntry,
    } <= kinds
    first_user = next(e for e in sm.get_entries() if e.type == "message" and e.message.role == "user")  # type: ignore[union-attr]
    assert sm.get_label(first_user.id) == "start"
    summary = next(e for e in sm.get_entries() if isinstance(e, BranchSummaryEntry))
    assert sm.get_label(summary.id) == "branch-point"
    (root,) = sm.get_tree()
    assert root.entry.type == "model_change"
    # the branch point (first assistant answer) has two children: the abandoned path and the summary
    node = root
    while node.entry.id != summary.parent_id:
        (node,) = node.children
    assert len(node.children) == 2
    assert sm.get_header().cwd == "/fixture/proj"


def test_each_line_round_trips_to_the_same_json(ts_session: Path) -> None:
    for line in ts_session.read_text().splitlines()[1:]:
        assert json.loads(dumps(to_wire(parse_entry(line)))) == json.loads(line)


def test_fork_keeps_lines_byte_for_byte(ts_session: Path, tmp_path: Path) -> None:
    forked = SessionManager.fork_from(ts_session, "/elsewhere", tmp_path / "forks")
    source_lines = ts_session.read_text().splitlines()[1:]
    assert Path(forked.get_session_file() or "").read_text().splitlines()[1:] == source_lines


def test_append_after_pi_lines(ts_session: Path) -> None:
    sm = SessionManager.open(ts_session)
    leaf = sm.get_leaf_id()
    sm.append_session_info("renamed")
    last = json.loads(ts_session.read_text().splitlines()[-1])
    assert last["parentId"] == leaf and last["name"] == "renamed"
    assert SessionManager.open(ts_session).get_session_name() == "renamed"
