from __future__ import annotations

import asyncio
from pathlib import Path

from pi_core.ai.abort import AbortController
from pi_core.runtime.bash_executor import execute_bash, sanitize_output


def test_sanitize_output_strips_ansi_and_control_characters() -> None:
    assert sanitize_output("\x1b[31mred\x1b[0m\tok\x07\n\ufffa") == "red\tok\n"


async def test_exit_code_and_stderr_are_collected(tmp_path: Path) -> None:
    outcome = await execute_bash("echo out; echo err >&2; exit 3", str(tmp_path))
    assert sorted(outcome.output.splitlines()) == ["err", "out"]
    assert (outcome.exit_code, outcome.cancelled, outcome.truncated) == (3, False, False)
    assert outcome.full_output_path is None


def test_large_output_is_tail_truncated_with_a_full_log(tmp_path: Path) -> None:
    outcome = asyncio.run(execute_bash("seq 1 30000", str(tmp_path)))
    assert outcome.truncated and outcome.output.endswith("30000\n")
    assert len(outcome.output.splitlines()) <= 2000
    assert outcome.full_output_path is not None
    full = Path(outcome.full_output_path).read_text()
    assert full.startswith("1\n2\n") and full.endswith("30000\n")
    Path(outcome.full_output_path).unlink()


async def test_abort_kills_the_process_group(tmp_path: Path) -> None:
    controller = AbortController()
    run = asyncio.create_task(
        execute_bash("echo start; sleep 30 & wait", str(tmp_path), signal_=controller.signal)
    )
    await asyncio.sleep(0.3)
    controller.abort()
    outcome = await asyncio.wait_for(run, 5)
    assert outcome.cancelled and outcome.exit_code is None and outcome.output == "start\n"


def test_bash_result_message_for_the_transcript(tmp_path: Path) -> None:
    outcome = asyncio.run(execute_bash("printf hi", str(tmp_path)))
    message = outcome.to_message("printf hi", exclude_from_context=True)
    assert message.to_json_dict()["excludeFromContext"] is True and message.output == "hi"
