"""The shared ripgrep runner of ``find`` and ``grep``: early stop, abort, failures, reader errors."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pi_builtin_tools.binaries import find_rg
from pi_builtin_tools.ripgrep import run_ripgrep
from pi_core.agent.tools import ToolError
from pi_core.ai.abort import AbortController

RG = find_rg()
pytestmark = pytest.mark.skipif(RG is None, reason="ripgrep not installed")


@pytest.fixture
def big(tmp_path: Path) -> Path:
    (tmp_path / "many.txt").write_text("match\n" * 50000)
    return tmp_path


async def _first_line(stdout: asyncio.StreamReader) -> bool:
    await stdout.readline()
    return True


async def test_reader_stopping_early_kills_rg_and_returns(big: Path) -> None:
    assert RG is not None
    run = await asyncio.wait_for(run_ripgrep(RG, ["match", str(big)], None, _first_line), 20)
    assert run.stopped and run.code != 0


async def test_a_full_read_reports_exit_codes(big: Path) -> None:
    assert RG is not None

    async def read_all(stdout: asyncio.StreamReader) -> bool:
        await stdout.read()
        return False

    found = await run_ripgrep(RG, ["match", str(big)], None, read_all)
    assert (found.code, found.failed, found.stopped) == (0, False, False)
    none = await run_ripgrep(RG, ["absent", str(big)], None, read_all)
    assert (none.code, none.failed) == (1, False)
    bad = await run_ripgrep(RG, ["(unclosed", str(big)], None, read_all)
    assert bad.failed and "regex parse error" in str(bad.error())
    assert str(type(bad)(2, b"", False).error()) == "ripgrep exited with code 2"


async def test_abort_kills_rg_and_says_operation_aborted(big: Path) -> None:
    assert RG is not None
    controller = AbortController()

    async def abort_then_read(stdout: asyncio.StreamReader) -> bool:
        await stdout.readline()
        controller.abort()
        await stdout.read()  # ends because the abort killed rg
        return False

    with pytest.raises(ToolError, match="Operation aborted"):
        await asyncio.wait_for(run_ripgrep(RG, ["match", str(big)], controller.signal, abort_then_read), 20)


async def test_a_failing_reader_kills_rg_and_propagates(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert RG is not None
    started: list[asyncio.subprocess.Process] = []
    spawn = asyncio.create_subprocess_exec

    async def spawn_and_keep(*args: Any, **kwargs: Any) -> asyncio.subprocess.Process:
        started.append(await spawn(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(asyncio, "create_subprocess_exec", spawn_and_keep)

    async def explode(stdout: asyncio.StreamReader) -> bool:
        await stdout.readline()
        raise ValueError("reader broke")

    with pytest.raises(ValueError, match="reader broke"):
        await asyncio.wait_for(run_ripgrep(RG, ["match", str(big)], None, explode), 20)
    (process,) = started
    assert process.stdout is not None
    await asyncio.wait_for(process.stdout.read(), 5)  # ends: rg was killed, not left streaming
    assert await asyncio.wait_for(process.wait(), 5) < 0
