"""Same session, same preparation: the Python default strategy against the TypeScript pi 0.73.1.

The TS ``prepareCompaction`` runs under node on session files written here; cut point, split
flag, tokensBefore, previous summary, the serialized conversations and the file operations
must all agree. Skipped when node or the npm package is missing.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pi_builtin_compaction.prepare import prepare_compaction
from pi_core.runtime.compaction import CompactionSettings, serialize_conversation
from pi_core.session.convert import convert_to_llm
from pi_core.session.entries import to_wire
from pi_core.session.jsonl import dumps

from tests.fixtures.real_pi import PI073_MISSING, RealPi, pi073

PI = pi073()
SCRIPT = Path(__file__).parent / "ts" / "prepare_compaction.mjs"


def _pi() -> RealPi:
    assert PI is not None
    return PI


pytestmark = [
    pytest.mark.conformance,
    pytest.mark.skipif(PI is None, reason=PI073_MISSING),
]


def write_session(path: Path, entries: list[Any]) -> None:
    header = {
        "type": "session",
        "version": 3,
        "id": "conformance",
        "timestamp": entries[0].timestamp,
        "cwd": "/tmp",
    }
    lines = [dumps(header)] + [dumps(to_wire(entry)) for entry in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_ts(session_file: Path, queries: list[tuple[Any, Any]]) -> list[Any]:
    """One node process answers every (keepRecentTokens, leaf) query on the file."""
    done = subprocess.run(
        [_pi().node, str(SCRIPT), str(_pi().package), str(session_file), json.dumps(queries)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def run_py(branch: list[Any], keep: int) -> Any:
    prep = prepare_compaction(branch, CompactionSettings(keep_recent_tokens=keep))
    if prep is None:
        return None
    return {
        "firstKeptEntryId": prep.first_kept_entry_id,
        "isSplitTurn": prep.is_split_turn,
        "tokensBefore": prep.tokens_before,
        "previousSummary": prep.previous_summary,
        "messagesToSummarize": serialize_conversation(convert_to_llm(prep.messages_to_summarize)),
        "turnPrefixMessages": serialize_conversation(convert_to_llm(prep.turn_prefix_messages)),
        "counts": [len(prep.messages_to_summarize), len(prep.turn_prefix_messages)],
        "read": sorted(prep.file_ops.read),
        "written": sorted(prep.file_ops.written),
        "edited": sorted(prep.file_ops.edited),
    }


def test_worked_example_tree_matches_ts(tree: Any, tmp_path: Path) -> None:
    branch = tree
    entries = [branch.entries[name] for name in branch.order]
    session_file = tmp_path / "tree.jsonl"
    write_session(session_file, entries)
    queries = [(keep, leaf) for leaf in ("A4", "R2") for keep in (1, 60, 420, 2000, 20000)]
    expected = run_ts(session_file, queries)
    for (keep, leaf), ts_result in zip(queries, expected, strict=True):
        assert run_py(branch.path(leaf), keep) == ts_result, (leaf, keep)


@pytest.mark.parametrize("seed", range(6))
def test_random_sessions_match_ts(branch: Any, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    branch.fill_random(rng, 120)
    entries = [branch.entries[name] for name in branch.order]
    session_file = tmp_path / f"random-{seed}.jsonl"
    write_session(session_file, entries)
    # Leaves at several depths, so some branches end in (or just after) a compaction.
    leaves = [branch.order[i] for i in (len(branch.order) - 1, 90, 60, 30)]
    queries = [(keep, leaf) for leaf in leaves for keep in (0, 300, 1500, 6000, 50000)]
    expected = run_ts(session_file, queries)
    for (keep, leaf), ts_result in zip(queries, expected, strict=True):
        assert run_py(branch.path(leaf), keep) == ts_result, (leaf, keep)


async def test_context_after_two_compactions_matches_ts(tree: Any, scripted: Any, tmp_path: Path) -> None:
    """Same kept entries, same context afterwards: compact twice here, rebuild the context there."""
    from pi_builtin_compaction.summarize import compact
    from pi_core.ai.abort import AbortController
    from pi_core.session.context import build_session_context

    branch = tree
    for name, keep in (("C1", 420), ("C2", 60)):
        preparation = prepare_compaction(branch.path(), CompactionSettings(keep_recent_tokens=keep))
        assert preparation is not None
        result = await compact(preparation, scripted.say(f"summary {name}"), AbortController().signal)
        branch.compaction(
            name, result.summary, result.first_kept_entry_id, result.tokens_before, result.details
        )
        branch.user(f"U{name}", f"after {name} " + "n" * 40)
        branch.assistant(f"A{name}", "ok " + "m" * 200, total_tokens=2000)
    entries = [branch.entries[name] for name in branch.order]
    session_file = tmp_path / "compacted.jsonl"
    write_session(session_file, entries)

    leaves = ["AC2", "AC1", "C1", "R2"]
    expected = run_ts(session_file, [("context", leaf) for leaf in leaves])
    for leaf, ts_context in zip(leaves, expected, strict=True):
        messages = convert_to_llm(build_session_context(entries, leaf).messages)
        ours = {"roles": [m.role for m in messages], "text": serialize_conversation(messages)}
        assert ours == ts_context, leaf


@pytest.mark.parametrize("seed", range(3))
def test_branch_summary_selection_matches_ts(branch: Any, tmp_path: Path, seed: int) -> None:
    """Which entries a branch summary covers and which messages fit the budget, as TS pi decides."""
    from pi_builtin_compaction.branch import prepare_branch_entries
    from pi_core.runtime.compaction import collect_entries_for_branch_summary
    from pi_core.session.manager import SessionManager

    rng = random.Random(100 + seed)
    branch.fill_random(rng, 80)
    for side in range(4):  # side branches off random points of the main line
        branch.last = rng.choice(branch.order[1:])
        for n in range(rng.randint(1, 12)):
            if n % 2:
                branch.assistant(
                    f"s{side}-{n}", "s" * rng.randint(0, 900), calls=[("edit", {"path": f"f{side}.py"})]
                )
            else:
                branch.user(f"s{side}-{n}", "q" * rng.randint(0, 900))
    entries = [branch.entries[name] for name in branch.order]
    session_file = tmp_path / "tree.jsonl"
    write_session(session_file, entries)
    session = SessionManager.open(session_file)

    leaves = [name for name in branch.order if not any(e.parent_id == name for e in entries)]
    pairs = [(rng.choice(leaves), rng.choice(branch.order)) for _ in range(12)]
    queries = [("branch", [old, target, budget]) for old, target in pairs for budget in (0, 700, 4000)]
    expected = run_ts(session_file, queries)
    for (_, (old, target, budget)), ts_result in zip(queries, expected, strict=True):
        collected = collect_entries_for_branch_summary(session, old, target)
        selected = prepare_branch_entries(collected.entries, budget)
        ours = {
            "collected": [e.id for e in collected.entries],
            "commonAncestorId": collected.common_ancestor_id,
            "text": serialize_conversation(convert_to_llm(selected.messages)),
            "count": len(selected.messages),
            "totalTokens": selected.total_tokens,
            "read": sorted(selected.file_ops.read),
            "written": sorted(selected.file_ops.written),
            "edited": sorted(selected.file_ops.edited),
        }
        assert ours == ts_result, (old, target, budget)
