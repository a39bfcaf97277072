"""Session files resume here with the context the real pi 1.6.0 sends for them, both ways.

Each ``tests/fixtures/pi16/<name>.jsonl`` was written by pi 1.6.0, each ``ours_<name>.jsonl`` by
our pi; ``<name>.resume.json`` is the conversation pi 1.6.0 sent when started on a copy of the
file with ``--session COPY -p "resume check"`` (tests/fixtures/pi16/README.md). Here our ``pi``
does the same against the loopback server, and its request must hold the same conversation; the
file keeps every line that was in it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pi_core.session.manager import SessionManager
from pi_core.testing import LoopbackLLMServer
from pi_core.testing.script import text_turn

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi16"
sys.path.insert(0, str(FIXTURES))

from harness import Home, conversation, our_pi  # noqa: E402

FILES = sorted(path.stem for path in FIXTURES.glob("*.jsonl"))
SCENARIOS = {"tool_call", "auto_retry", "overflow_recovery", "bad_tool_arguments", "length_stop"}


def test_fixtures_are_there() -> None:
    assert {*SCENARIOS, "extension_edits"} <= set(FILES)
    assert {f"ours_{name}" for name in SCENARIOS} <= set(FILES)


def _copy_into(home: Home, fixture: Path, copy: Path, lines: list[str] | None = None) -> str:
    """Write ``fixture`` (or its ``lines``) to ``copy`` with the header's cwd changed to the
    project of ``home``: the folder pi ran in is gone, and pi 1.6.0 refuses such a session.
    Every other byte stays. Returns the text written."""
    lines = lines if lines is not None else fixture.read_text().splitlines()
    cwd = json.loads(lines[0])["cwd"]
    header = lines[0].replace(f'"cwd":{json.dumps(cwd)}', f'"cwd":{json.dumps(str(home.project))}', 1)
    assert header != lines[0]
    text = "\n".join([header, *lines[1:]]) + "\n"
    copy.write_text(text)
    return text


@pytest.mark.parametrize("name", FILES)
def test_a_session_resumes_with_the_context_pi16_sends(name: str, tmp_path: Path) -> None:
    expected = json.loads((FIXTURES / f"{name}.resume.json").read_text())
    copy = tmp_path / "session.jsonl"
    with LoopbackLLMServer() as server:
        home = Home(tmp_path / "run", server.base_url("openai-completions"))
        original = _copy_into(home, FIXTURES / f"{name}.jsonl", copy)
        server.add(text_turn("Resumed."))
        result = home.run(our_pi(), ["--session", str(copy), "-p", "resume check"])
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        assert len(server.requests) == 1
        body = server.requests[0].body
    assert conversation(body) == expected["conversation"]
    after = copy.read_text()
    assert after.startswith(original)  # every line pi wrote is still there, byte for byte
    appended = [json.loads(line) for line in after[len(original) :].splitlines()]
    assert [item["message"]["role"] for item in appended if item["type"] == "message"][-2:] == [
        "user",
        "assistant",
    ]
    assert SessionManager.open(copy).load_issues == []


def _usage_keys(holder: dict[str, object]) -> list[str]:
    """The keys of ``holder["usage"]`` and of its ``cost`` (``cost.total``, ...), when it has one."""
    usage = holder.get("usage")
    if not isinstance(usage, dict):
        return []
    cost = usage.get("cost")
    return sorted(usage) + sorted(f"cost.{key}" for key in (cost if isinstance(cost, dict) else {}))


def _shape(path: Path) -> list[tuple[str, list[str], list[str], list[str]]]:
    """Per line: entry type (with the message role), its keys, its message's keys, and the keys
    of the usage it records (the entry's, as on a compaction, or its message's)."""
    out = []
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        kind = entry["type"]
        message = entry.get("message") or entry.get("systemMessage") or {}
        if kind == "message":
            kind = f"message:{message.get('role')}"
        usage = _usage_keys(entry) + _usage_keys(message)
        out.append((kind, sorted(set(entry) - {"id", "parentId", "timestamp"}), sorted(message), usage))
    return out


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_we_write_the_entries_pi16_writes(name: str) -> None:
    # Same scenario, same loopback answers: our file has pi 1.6.0's entries in pi's order, with
    # pi's keys on every entry and message (the system message before the first prompt, the
    # context_edit of a retried reply, the compaction's systemMessage and usage, durationMs, ...),
    # and pi's usage fields (usage.reasoning, cost.totalFromProvider; none on a failed reply).
    ours, theirs = _shape(FIXTURES / f"ours_{name}.jsonl"), _shape(FIXTURES / f"{name}.jsonl")
    assert ours == theirs


@pytest.mark.parametrize(
    ("flags", "declared"),
    [([], ["read"]), (["--tools", "+grep,-read"], ["grep"]), (["--tools", "read,bash"], ["bash", "read"])],
    ids=["recorded", "changes-on-top", "allowlist"],
)
def test_resume_restores_the_recorded_tools(tmp_path: Path, flags: list[str], declared: list[str]) -> None:
    # pi 1.6.0: with the default tool set, a resumed session declares the tools its system
    # messages record (here pi's file cut down to read), with --tools +x/-x on top; an
    # allowlist (--tools read,bash) decides by itself.
    from harness import PROVIDER_ARGS, tool_names

    from tests.e2e.example_plugins import disabled_plugins

    lines = (FIXTURES / "tool_call.jsonl").read_text().splitlines()
    kept = []
    for line in lines:
        entry = json.loads(line)
        message = entry.get("message") or {}
        if message.get("role") == "system" and message.get("toolsAdded"):
            message["toolsAdded"] = [tool for tool in message["toolsAdded"] if tool["name"] == "read"]
        kept.append(json.dumps(entry, separators=(",", ":")))
    copy = tmp_path / "session.jsonl"
    with LoopbackLLMServer() as server:
        home = Home(tmp_path / "run", server.base_url("openai-completions"))
        _copy_into(home, FIXTURES / "tool_call.jsonl", copy, kept)
        server.add(text_turn("Resumed."))
        result = subprocess.run(
            [*our_pi(), *PROVIDER_ARGS, "--session", str(copy), *flags, "-p", "resume check"],
            cwd=home.project,
            env={**home.env, "PI_DISABLED_PLUGINS": disabled_plugins()},  # only the built-in tools
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 0, result.stderr
        assert tool_names(server.requests[0].body) == declared
