"""A session opened again (``--session``, ``-c``, ``-r``) and one forked from it are drawn as they
looked live, in both TUI modes: the edit's diff under its call, the image a message carried, the
compaction marker and the marker of a summarised branch — and the branch left behind is not shown."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.ai.messages import AssistantMessage, ImageContent, TextContent, Usage, UserMessage
from pi_core.session.manager import SessionManager
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn


def _answer(text: str) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)],
        api="openai-completions",
        provider="loop",
        model="fake-model",
        usage=Usage(),
        stop_reason="stop",
    )


async def _session_with_markers(repl_factory: Callable[..., Any], server: LoopbackLLMServer) -> Path:
    """A real edit made in the REPL, then (written as pi would) a message with an image, a
    compaction, a branch that was left with a summary, and one more exchange."""
    server.add(
        tool_turn(ToolUse("edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]})),
        text_turn("edit made"),
    )
    first = await repl_factory()
    (first.project / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    await first.submit("change beta")
    await first.wait_for("edit made", 15)
    assert await first.quit() == 0
    path = Path(str(first.mode.host.session.session_file))
    manager = SessionManager.open(path)
    kept = manager.get_entries()[0].id
    manager.append_message(
        UserMessage(
            content=[
                TextContent(text="what is in this picture"),
                ImageContent(data="aGk=", mime_type="image/png"),
            ]
        )
    )
    manager.append_message(_answer("a small square"))
    compaction = manager.append_compaction("SUMMARY-OF-EARLIER-WORK", kept, 1234)
    manager.append_message(UserMessage(content="ABANDONED-QUESTION"))
    manager.append_message(_answer("ABANDONED-ANSWER"))
    manager.branch_with_summary(compaction, "TRIED-ANOTHER-WAY")
    manager.append_message(UserMessage(content="after the summary"))
    manager.append_message(_answer("LAST-ANSWER"))
    manager.close()
    return path


def _assert_drawn_as_live(out: str) -> None:
    assert "-2 beta" in out and "+2 BETA" in out and "Successfully replaced" not in out
    assert out.index("edit notes.txt") < out.index("+2 BETA") < out.index("edit made")
    assert "> what is in this picture" in out and "[image image/png]" in out
    assert "── context compacted (1234 tokens before) ──" in out
    assert "── summary of the branch left ──" in out and "TRIED-ANOTHER-WAY" in out
    assert "ABANDONED" not in out
    assert out.index("context compacted") < out.index("summary of the branch left") < out.index("LAST-ANSWER")


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_an_opened_session_shows_diffs_images_and_both_markers(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    path = await _session_with_markers(repl_factory, pi_llm_server)
    repl = await repl_factory(session=str(path), fullscreen=fullscreen)
    await repl.wait_for("LAST-ANSWER")
    await repl.wait_idle_editor()
    _assert_drawn_as_live(repl.output)
    assert await repl.quit() == 0


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_a_fork_redraws_the_kept_part_with_its_markers(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    path = await _session_with_markers(repl_factory, pi_llm_server)
    pi_llm_server.add(text_turn("FORKED-ANSWER"))
    repl = await repl_factory(session=str(path), fullscreen=fullscreen)
    await repl.wait_for("LAST-ANSWER")
    await repl.submit("/fork")
    await repl.in_dialog()
    repl.send("after the summary\r")  # typing filters the rows to that message
    await repl.wait_for("Forked into a new session")
    await repl.until(lambda: repl.mode.get_editor_text() == "after the summary")
    out = repl.output
    # regular mode clears the screen and prints the fork below: the part after the last marker
    forked = out[out.rindex("── context compacted") :]
    assert out.count("> change beta") == (1 if fullscreen else 2)
    assert "LAST-ANSWER" not in forked  # the message forked from and its answer are not in the fork
    assert "-2 beta" in forked and "[image image/png]" in forked
    assert "context compacted (1234 tokens before)" in forked and "TRIED-ANOTHER-WAY" in forked
    repl.send("\x15")
    assert await repl.quit() == 0


async def test_ctrl_o_opens_and_closes_the_compaction_summary_in_place(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    """Fullscreen, live and after a resume: the summary shows under its marker while tool output
    is expanded."""
    pi_llm_server.add(text_turn("first answer"), text_turn("## Goal\nSUMMARY-OF-THE-WORK"))
    repl = await repl_factory(fullscreen=True)
    await repl.submit("first question")
    await repl.wait_for("first answer")
    await repl.idle()
    await repl.submit("/compact")
    await repl.wait_for("── context compacted")
    await repl.idle()
    assert "SUMMARY-OF-THE-WORK" not in repl.output
    blocks = len(repl.mode.transcript.blocks)
    repl.send("\x0f")  # Ctrl+O
    await repl.wait_for("SUMMARY-OF-THE-WORK")
    assert len(repl.mode.transcript.blocks) == blocks  # drawn again in place, nothing appended
    repl.send("\x0f")
    await repl.until(lambda: "SUMMARY-OF-THE-WORK" not in repl.output)
    path = str(repl.mode.host.session.session_file)
    assert await repl.quit() == 0
    again = await repl_factory(session=path, fullscreen=True)
    await again.wait_for("── context compacted")
    await again.wait_idle_editor()
    assert "SUMMARY-OF-THE-WORK" not in again.output
    again.send("\x0f")
    await again.wait_for("SUMMARY-OF-THE-WORK")
    assert await again.quit() == 0
