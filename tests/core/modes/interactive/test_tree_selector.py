"""The /tree selector's keys, driven through a prompt-toolkit pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from pi_core.modes.interactive.tree_selector import TreeSelector, tree_keys
from pi_core.modes.interactive.tree_view import TreeState
from pi_core.session.manager import SessionManager
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.core.modes.interactive.test_tree_view import assistant, branched_session, user

UP, DOWN, ENTER, ESC, BACKSPACE = "\x1b[A", "\x1b[B", "\r", "\x1b", "\x7f"
CTRL_LEFT, CTRL_RIGHT, ALT_LEFT = "\x1b[1;5D", "\x1b[1;5C", "\x1b[1;3D"
CTRL_U, CTRL_O, CTRL_X, CTRL_D = "\x15", "\x0f", "\x18", "\x04"
CTRL_K, CTRL_W, ALT_B, END = "\x0b", "\x17", "\x1bb", "\x1b[F"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


def selector(pipe: PipeInput, **options: Any) -> tuple[TreeSelector, dict[str, str]]:
    manager, ids = branched_session()
    state = TreeState(manager.get_tree(), manager.get_leaf_id(), page=20)
    return TreeSelector(state, **options), ids


async def press(pipe: PipeInput, tree: TreeSelector, *keys: str) -> asyncio.Task[str | None]:
    """Start the tree (once) and send ``keys``, each in its own write as a terminal does."""
    task: asyncio.Task[str | None] = getattr(tree, "_task", None) or asyncio.create_task(
        tree.run(input=pipe, output=DummyOutput())
    )
    tree._task = task  # type: ignore[attr-defined]
    await asyncio.sleep(0.05)
    for key in keys:
        pipe.send_text(key)
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)  # a lone Esc waits a moment for the rest of a sequence
    return task


def screen(tree: TreeSelector) -> str:
    return "".join(text for _, text, *_ in tree.fragments())


async def test_enter_picks_and_esc_cancels(pipe: PipeInput) -> None:
    tree, ids = selector(pipe)
    assert await asyncio.wait_for(await press(pipe, tree, UP, UP, ENTER), 5) == ids["hi"]
    tree, _ = selector(pipe)
    assert await asyncio.wait_for(await press(pipe, tree, ESC), 5) is None


async def test_what_the_tree_draws(pipe: PipeInput) -> None:
    tree, _ = selector(pipe)
    await press(pipe, tree)
    shown = screen(tree)
    assert "   Session Tree" in shown
    assert "↑/↓ move · ←/→ page · ctrl+←/→ branch · ctrl+x copy · shift+l label" in shown
    assert "  Type to search: " in shown
    assert "› │     • assistant: done B" in shown
    assert "  (4/7)" in shown
    await press(pipe, tree, ESC)


async def test_ctrl_and_alt_arrows_fold_and_jump(pipe: PipeInput) -> None:
    tree, ids = selector(pipe)
    await press(pipe, tree, CTRL_LEFT, ALT_LEFT)  # up to the segment start, then fold it
    assert tree.state.folded == {ids["b"]}
    assert "├⊞ • [favourite] user: approach B" in screen(tree) and "(3/6)" in screen(tree)
    await press(pipe, tree, CTRL_RIGHT)
    assert not tree.state.folded
    task = await press(pipe, tree, CTRL_RIGHT, ENTER)
    assert await asyncio.wait_for(task, 5) == ids["done_b"]


async def test_filter_keys_and_search(pipe: PipeInput) -> None:
    tree, _ = selector(pipe)
    await press(pipe, tree, CTRL_U)
    assert tree.state.mode == "user-only" and "(2/3) [user]" in screen(tree)
    await press(pipe, tree, CTRL_U)
    assert tree.state.mode == "default"
    await press(pipe, tree, CTRL_O, CTRL_O)
    assert tree.state.mode == "user-only"
    await press(pipe, tree, "\x1b[111;6u")  # Shift+Ctrl+O, as the kitty protocol reports it
    assert tree.state.mode == "no-tools"
    await press(pipe, tree, CTRL_O)
    await press(pipe, tree, CTRL_D, "T")
    assert tree.state.mode == "default" and "[+label time]" in screen(tree)
    await press(pipe, tree, "can you", BACKSPACE, "u")
    assert "Type to search: can you" in screen(tree) and len(tree.state.visible) == 1
    await press(pipe, tree, ESC)  # the search goes first
    assert tree.state.query == "" and len(tree.state.visible) == 7
    task = await press(pipe, tree, ESC)
    assert await asyncio.wait_for(task, 5) is None


async def test_shift_l_edits_the_label_in_place(pipe: PipeInput) -> None:
    written: list[tuple[str, str | None]] = []
    tree, ids = selector(pipe, on_label=lambda entry_id, label: written.append((entry_id, label)))
    await press(pipe, tree, UP, "L")
    assert "Label (empty to remove):" in screen(tree) and "> favourite" in screen(tree)
    # The cursor starts on the first character, as in pi: typing goes in front.
    assert ("reverse", "f") in [(style.strip(), text) for style, text, *_ in tree.fragments()]
    await press(pipe, tree, "my ", END, " one", ALT_B, CTRL_W, ENTER)
    assert written == [(ids["b"], "my one")]
    assert "[my one] user: approach B" in screen(tree)
    await press(pipe, tree, "L", "x", ESC)  # Esc leaves the field without writing
    assert written == [(ids["b"], "my one")] and "Session Tree" in screen(tree)
    await press(pipe, tree, "L", CTRL_K, ENTER)  # empty: the label goes
    assert written[-1] == (ids["b"], None)
    task = await press(pipe, tree, ESC)
    assert await asyncio.wait_for(task, 5) is None


async def test_ctrl_x_copies_the_entry_text(pipe: PipeInput) -> None:
    copied: list[str] = []

    async def copy(text: str) -> str:
        copied.append(text)
        return "Copied selected message to clipboard"

    tree, _ = selector(pipe, on_copy=copy)
    await press(pipe, tree, CTRL_X)
    await asyncio.sleep(0.05)
    assert copied == ["done B"] and "Copied selected message to clipboard" in screen(tree)
    await press(pipe, tree, ESC)


async def test_keybindings_json_rebinds_tree_actions(pipe: PipeInput) -> None:
    assert tree_keys({"app.tree.filter.userOnly": ["ctrl+k"]})["app.tree.filter.userOnly"] == ["ctrl+k"]
    tree, _ = selector(pipe, keys={"app.tree.filter.userOnly": ["ctrl+k"]})
    await press(pipe, tree, "\x0b")
    assert tree.state.mode == "user-only"
    await press(pipe, tree, CTRL_U)  # no longer bound: a control key, not typed
    assert tree.state.mode == "user-only" and tree.state.query == ""
    await press(pipe, tree, ESC)


async def test_deep_rows_pan_left_to_keep_the_highlighted_text_in_view(pipe: PipeInput) -> None:
    manager = SessionManager.in_memory("/p")
    current = manager.append_message(user("root question"))
    for index in range(30):
        manager.append_message(user(f"side {index}"))
        manager.branch(current)
        current = manager.append_message(assistant(f"main {index}"))
    tree = TreeSelector(TreeState(manager.get_tree(), manager.get_leaf_id(), page=20))
    await press(pipe, tree)  # 80 columns
    lines = screen(tree).splitlines()
    chosen = next(line for line in lines if line.startswith("› "))
    assert "• assistant: main 29" in chosen and len(chosen) <= 80  # its text in view, the guides cut
    assert "│  │" in chosen[:8]  # a few guides are left on its left
    assert await asyncio.wait_for(await press(pipe, tree, ESC), 5) is None
