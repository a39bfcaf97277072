"""The branch scans that skip reading ``type``/``id`` where the class already answers."""

from __future__ import annotations

from types import SimpleNamespace

from pi_core.ai.messages import UserMessage
from pi_core.runtime.compaction import last_compaction_index
from pi_core.runtime.compaction.entry_messages import index_on_branch
from pi_core.session.entries import CompactionEntry, MessageEntry, ModelChangeEntry, UnknownEntry


def _message(i: int) -> MessageEntry:
    return MessageEntry(id=f"m{i}", parent_id=None, timestamp="t", message=UserMessage(content="x"))


def _compaction(i: int) -> CompactionEntry:
    return CompactionEntry(
        id=f"c{i}", parent_id=None, timestamp="t", summary="s", first_kept_entry_id="m1", tokens_before=1
    )


def test_last_compaction_index_by_class_and_by_type() -> None:
    model = ModelChangeEntry(id="x", parent_id=None, timestamp="t", provider="p", model_id="m")
    plain = [model, _message(0), _message(1)]
    assert last_compaction_index(plain) == -1
    assert last_compaction_index([]) == -1
    assert last_compaction_index([*plain, _compaction(2), _message(3), _compaction(4), _message(5)]) == 5
    # Entries of other classes are asked for their type.
    assert last_compaction_index([*plain, SimpleNamespace(type="compaction"), _message(9)]) == 3
    unknown = UnknownEntry(id="u", parent_id=None, timestamp="t", type="x")
    assert last_compaction_index([*plain, unknown]) == -1


def test_last_compaction_index_far_back() -> None:
    many = [_message(i) for i in range(600)]
    assert last_compaction_index(many) == -1
    assert last_compaction_index([_compaction(0), *many]) == 0
    assert last_compaction_index([SimpleNamespace(type="compaction"), *many]) == 0
    assert last_compaction_index([*many[:100], _compaction(1), *many]) == 100


def test_index_on_branch_looks_before_the_given_position() -> None:
    branch = [_message(0), _message(1), _message(2), _compaction(3)]
    assert index_on_branch(branch, "m1", 3) == 1
    assert index_on_branch(branch, "m2", 2) is None
    assert index_on_branch(branch, "nope", 4) is None
