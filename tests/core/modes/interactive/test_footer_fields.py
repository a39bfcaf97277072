"""Every field of the footer (fullscreen) and of the idle status line (regular): model, thinking
level, context use, tokens, cost, directory, git branch and plugin statuses."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from pi_core.testing import LoopbackLLMServer, text_turn


def _drawn(mode: Any, fullscreen: bool) -> str:
    if fullscreen:
        return "".join(text for _, text, *_ in mode._footer())
    return mode._toolbar() or ""


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_the_footer_shows_every_field(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool, tmp_path: Any
) -> None:
    models = json.loads((tmp_path / "agent" / "models.json").read_text())
    for model in models["providers"]["loop"]["models"]:
        model["cost"] = {"input": 1000, "output": 1000, "cacheRead": 0, "cacheWrite": 0}
    (tmp_path / "agent" / "models.json").write_text(json.dumps(models))
    project = tmp_path / "project"
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature/footer\n")
    pi_llm_server.add(text_turn("priced answer"))
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.submit("/model loop/other-model")
    await repl.wait_for("Model: loop/other-model")
    await repl.submit("/thinking high")
    await repl.wait_for("Thinking level: high")
    await repl.submit("what does it cost")
    await repl.wait_for("priced answer")
    await repl.idle()
    await repl.wait_idle_editor()
    ui = repl.mode.ui
    ui.set_status("build", ui.theme.fg("success", "BUILD-OK") + "\x1b]0;retitled\x07")
    ui.set_status("lint", "LINT-CLEAN")
    await repl.until(lambda: "feature/footer" in _drawn(repl.mode, fullscreen), 3)
    drawn = _drawn(repl.mode, fullscreen)
    for field in (
        "loop/other-model",
        "thinking high",
        "context ",
        "% of 64K",
        "↑10 ↓5",
        "$0.015",
        "/project (feature/footer)",  # a long directory loses its start, not its branch
        "BUILD-OK",
        "LINT-CLEAN",
    ):
        assert field in drawn, (field, drawn)
    assert "retitled" not in drawn and "\x1b]" not in drawn
    width = 80  # DummyOutput's
    if len(f"{project} (feature/footer)") >= width:  # pytest's directories are long
        row = next(row for row in drawn.split("\n") if "(feature/footer)" in row)
        assert "…" in row and f"{str(project)[-40:]} (feature/footer)" in row
    assert all(len(re.sub(r"\x1b\[[0-9;]*m", "", row)) < width for row in drawn.split("\n"))
    await repl.quit()


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_a_checkout_made_elsewhere_shows_in_the_footer(
    repl_factory: Callable[..., Any], fullscreen: bool, tmp_path: Any
) -> None:
    head = tmp_path / "project" / ".git" / "HEAD"
    head.parent.mkdir()
    head.write_text("ref: refs/heads/main\n")
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.until(lambda: "(main)" in _drawn(repl.mode, fullscreen), 5)
    head.write_text("ref: refs/heads/topic\n")  # as `git checkout topic` in another terminal
    await repl.until(lambda: "(topic)" in _drawn(repl.mode, fullscreen), 5)
    await repl.quit()
    assert repl.mode._branch_watch is not None and repl.mode._branch_watch.cancelled()
