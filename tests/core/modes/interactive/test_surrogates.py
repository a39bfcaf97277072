"""A lone surrogate (valid JSON, ``"\\ud800"``, but no character) in what a model streams: shown as
U+FFFD, written to the session file as U+FFFD (UTF-8 cannot hold it), and the session goes on."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.testing import LoopbackLLMServer, text_turn


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_a_lone_surrogate_in_model_text(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    pi_llm_server.add(text_turn("bad \ud800 here"), text_turn("after the surrogate"))
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.submit("surrogate please")
    await repl.wait_for("bad \ufffd here")
    await repl.idle()
    await repl.submit("and again")
    await repl.wait_for("after the surrogate")
    await repl.idle()
    assert "\ud800" not in repl.output
    records = _records(Path(str(repl.mode.host.session.session_file)))
    roles = [
        r["message"]["role"] for r in records if r["type"] == "message" and r["message"]["role"] != "system"
    ]
    assert roles == ["user", "assistant", "user", "assistant"]
    answer = next(
        r["message"] for r in records if r["type"] == "message" and r["message"]["role"] == "assistant"
    )
    assert answer["content"][0]["text"] == "bad \ufffd here"
    assert not repl.mode.host.session.session_manager.load_issues
    await repl.quit()
