# ruff: noqa: ASYNC240 - tests inspect files synchronously on purpose
from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pi_core.agent.tools import AgentToolResult, ToolError
from pi_core.ai.abort import AbortController
from pi_core.session.manager import SessionManager
from pi_core.testing.faux import faux_model

RunTool = Any


def text_of(result: AgentToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_runs_in_session_cwd(run: RunTool, tmp_path: Path) -> None:
    result = await run("bash", {"command": "pwd"})
    assert text_of(result) == f"{tmp_path}\n" and result.details is None


async def test_no_output(run: RunTool) -> None:
    assert text_of(await run("bash", {"command": "true"})) == "(no output)"


async def test_exit_code_is_a_failure_with_output(run: RunTool) -> None:
    with pytest.raises(ToolError) as info:
        await run("bash", {"command": "echo out; echo err 1>&2; exit 2"})
    assert str(info.value) == "out\nerr\n\n\nCommand exited with code 2"


async def test_exit_code_without_output(run: RunTool) -> None:
    # pi's own code puts its "(no output)" placeholder in front (the spec's table says otherwise).
    with pytest.raises(ToolError, match=r"^\(no output\)\n\nCommand exited with code 3$"):
        await run("bash", {"command": "exit 3"})


async def test_tail_truncation_and_full_output_file(run: RunTool) -> None:
    result = await run("bash", {"command": "seq 1 3000"})
    text = text_of(result)
    match = re.search(
        r"\n\n\[Showing lines 1002-3001 of 3001\. Full output: (.*pi-bash-[0-9a-f]{16}\.log)\]$", text
    )
    assert match, text[-200:]
    assert text.startswith("1001\n") is False and text.startswith("1002\n")
    full = Path(match.group(1))
    assert full.read_text() == "".join(f"{i}\n" for i in range(1, 3001))
    assert result.details["fullOutputPath"] == str(full)
    assert result.details["truncation"]["truncatedBy"] == "lines"
    full.unlink()


async def test_byte_truncation_notice(run: RunTool) -> None:
    result = await run("bash", {"command": "for i in $(seq 1 700); do printf '%099d\\n' $i; done"})
    text = text_of(result)
    assert re.search(r"\[Showing lines 189-701 of 701 \(50\.0KB limit\)\. Full output: .*\]$", text), text[
        -120:
    ]
    Path(result.details["fullOutputPath"]).unlink()


async def test_streams_partial_tail(run: RunTool) -> None:
    updates: list[AgentToolResult] = []
    await run("bash", {"command": "echo one; sleep 0.3; echo two"}, on_update=updates.append)
    assert updates[0].content == [] and updates[0].details is None
    texts = [text_of(u) for u in updates[1:]]
    assert "one\n" in texts and texts[-1] == "one\ntwo\n"


async def test_timeout_kills_the_process_group(run: RunTool, tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(ToolError) as info:
        await run(
            "bash", {"command": "echo start; (sleep 30; echo late > late.txt) & sleep 30", "timeout": 0.5}
        )
    assert str(info.value) == "start\n\n\nCommand timed out after 0.5 seconds"
    assert time.monotonic() - started < 5
    await asyncio.sleep(0.2)
    assert not (tmp_path / "late.txt").exists()


async def test_abort_kills_and_reports(run: RunTool) -> None:
    controller = AbortController()
    task = asyncio.create_task(run("bash", {"command": "echo start; sleep 5"}, signal=controller.signal))
    await asyncio.sleep(0.3)
    controller.abort()
    with pytest.raises(ToolError) as info:
        await asyncio.wait_for(task, 3)
    assert str(info.value) == "start\n\n\nCommand aborted"


async def test_grandchild_holding_pipes_does_not_hang(run: RunTool) -> None:
    started = time.monotonic()
    result = await run("bash", {"command": "echo hi; (sleep 3 &) ; exit 0"})
    assert text_of(result).startswith("hi") and time.monotonic() - started < 2


async def test_missing_working_directory(run: RunTool, tmp_path: Path) -> None:
    gone = SimpleNamespace(cwd=str(tmp_path / "gone"))
    with pytest.raises(
        ToolError, match=r"^Working directory does not exist: .*gone\nCannot execute bash commands\.$"
    ):
        await run("bash", {"command": "true"}, context=gone)


async def test_agent_bin_dir_is_on_path(run: RunTool, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "bin").mkdir(parents=True)
    context = SimpleNamespace(cwd=str(tmp_path), agent_dir=str(agent))
    result = await run("bash", {"command": "echo $PATH"}, context=context)
    assert text_of(result).split(os.pathsep)[0] == str(agent / "bin")


async def test_session_variables_describe_the_session(
    run: RunTool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_MODEL", "inherited-from-a-parent-pi")
    monkeypatch.setenv("PI_SESSION_FILE", "/parent/session.jsonl")
    manager = SessionManager.create(str(tmp_path), tmp_path / "sessions")
    context = SimpleNamespace(
        cwd=str(tmp_path), session_manager=manager, model=faux_model("m-7", "prov"), thinking_level="high"
    )
    result = await run("bash", {"command": "env | grep '^PI_' | sort"}, context=context)
    expected = {
        "PI_MODEL": "m-7",
        "PI_PROVIDER": "prov",
        "PI_REASONING_LEVEL": "high",
        "PI_SESSION_FILE": str(manager.get_session_file()),
        "PI_SESSION_ID": manager.get_session_id(),
    }
    assert dict(line.split("=", 1) for line in text_of(result).splitlines()) == expected


async def test_without_a_session_the_inherited_variables_are_dropped(
    run: RunTool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_SESSION_ID", "parent-session")
    monkeypatch.setenv("PI_REASONING_LEVEL", "low")
    manager = SessionManager.in_memory(str(tmp_path))
    context = SimpleNamespace(cwd=str(tmp_path), session_manager=manager, model=None)
    result = await run(
        "bash",
        {"command": "env | grep '^PI_\\(SESSION\\|REASONING\\|MODEL\\|PROVIDER\\)' | sort"},
        context=context,
    )
    assert text_of(result).splitlines() == [f"PI_SESSION_ID={manager.get_session_id()}"]
