"""The /model selector: pi's rows and order, fuzzy search, scopes, keys through a pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from pi_core.ai.provider import Model
from pi_core.modes.interactive.model_selector import ModelList, ModelSelector, distinct_name
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

UP, DOWN, ENTER, ESC, TAB, BACKSPACE = "\x1b[A", "\x1b[B", "\r", "\x1b", "\t", "\x7f"


def model(provider: str, model_id: str, name: str = "") -> Model:
    return Model(id=model_id, name=name, provider=provider, api="openai-completions", base_url="http://x")


MODELS = [
    model("zeta", "z-one"),
    model("loop", "fake-large"),
    model("loopa", "fake-claude", "Claude Fake (EU edition)"),
    model("loop", "fake-model"),
]


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


def listed(query: str = "", scoped: list[Model] | None = None) -> ModelList:
    return ModelList(
        MODELS, current=MODELS[3], default=("loop", "fake-large"), scoped=scoped or [], query=query
    )


def screen(selector: ModelSelector) -> list[str]:
    return "".join(text for _, text, *_ in selector.fragments()).splitlines()


def test_current_first_then_default_then_by_provider() -> None:
    state = listed()
    assert [m.id for m in state.shown] == ["fake-model", "fake-large", "fake-claude", "z-one"]
    assert state.selected is not None and state.selected.id == "fake-model"


def test_rows_mark_the_current_model_and_the_default(pipe: PipeInput) -> None:
    lines = screen(ModelSelector(listed()))
    assert "Only showing models from configured providers. Use /login to add providers." in lines
    assert "→ ✓ fake-model [loop]" in lines
    assert "    fake-large [loop] · default" in lines
    assert "    fake-claude (Claude Fake (EU edition)) [loopa]" in lines  # a name that says more
    assert "  Model Name: fake-model" in lines
    assert "  Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel" in lines


def test_fuzzy_search_and_the_default_word() -> None:
    state = listed("la")
    assert [m.id for m in state.shown][:2] == ["fake-large", "fake-claude"]
    assert state.index == 0
    state.query = "def"
    state.refilter()
    assert state.shown[0].id == "fake-large"  # "def…" puts the default first
    state.query = "qqq"
    state.refilter()
    assert state.shown == [] and state.selected is None


def test_distinct_names() -> None:
    assert distinct_name(model("a", "claude-sonnet-4-5", "Claude Sonnet 4.5")) is None
    assert distinct_name(model("a", "m3", "MiniMax M3 [proxy]")) == "MiniMax M3 [proxy]"


async def test_keys_pick_wrap_and_cancel(pipe: PipeInput) -> None:
    async def run(keys: str, state: ModelList) -> Model | None:
        selector = ModelSelector(state)
        task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
        await asyncio.sleep(0.05)
        pipe.send_text(keys)
        return await asyncio.wait_for(task, 5)

    chosen = await run(UP + ENTER, listed())  # wraps from the top to the bottom
    assert chosen is not None and chosen.id == "z-one"
    chosen = await run("clau" + BACKSPACE + "u" + ENTER, listed())
    assert chosen is not None and chosen.id == "fake-claude"
    assert await run(ESC, listed()) is None
    scoped = listed(scoped=[MODELS[0], MODELS[2]])
    assert scoped.scope == "scoped" and [m.id for m in scoped.shown] == ["z-one", "fake-claude"]
    chosen = await run(TAB + DOWN + ENTER, scoped)  # Tab: all models
    assert chosen is not None and chosen.id == "fake-large"


def test_scope_lines(pipe: PipeInput) -> None:
    lines = screen(ModelSelector(listed(scoped=[MODELS[0]])))
    assert "Scope: all | scoped" in lines and "tab scope (all/scoped)" in lines


def test_under_the_fullscreen_status_row_the_opening_rule_is_left_out() -> None:
    selector = ModelSelector(listed())
    assert "".join(text for _, text, *_ in selector.fragments()).startswith("─")
    selector.rule_above = False
    assert "".join(text for _, text, *_ in selector.fragments()).startswith("\nOnly showing models")


async def test_keybindings_json_rebinds_the_list_keys(pipe: PipeInput) -> None:
    keymap = {"tui.select.down": ["ctrl+j"], "tui.select.cancel": ["ctrl+g"]}
    selector = ModelSelector(listed(), keymap=keymap)
    assert "  Enter to select · Ctrl+S to set as default · Ctrl+G to cancel" in screen(selector)
    task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
    await asyncio.sleep(0.05)
    pipe.send_text("\x0a")  # Ctrl+J: down
    await asyncio.sleep(0.05)
    assert selector.state.index == 1
    pipe.send_text("\x07")  # Ctrl+G: cancel
    assert await asyncio.wait_for(task, 5) is None


async def test_ctrl_s_chooses_the_model_as_the_default(pipe: PipeInput) -> None:
    for keys, as_default in ((DOWN + "\x13", True), (DOWN + ENTER, False)):
        selector = ModelSelector(listed())
        task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
        await asyncio.sleep(0.05)
        pipe.send_text(keys)
        chosen = await asyncio.wait_for(task, 5)
        assert chosen is not None and chosen.id == "fake-large"
        assert selector.as_default is as_default


async def test_the_search_field_edits_as_pi_input(pipe: PipeInput) -> None:
    """A pattern given to /model starts in the field with the cursor at its start, as pi's."""
    selector = ModelSelector(listed("large"))
    assert selector.search.cursor == 0 and "> large" in screen(selector)
    task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
    await asyncio.sleep(0.05)
    pipe.send_text("\x0b")  # Ctrl+K: the search is empty, every model back
    await asyncio.sleep(0.05)
    assert len(selector.state.shown) == 4
    pipe.send_text("clade" + "\x1b[D" * 2 + "u" + "\x1b[H" + "\x1b[3~" + ENTER)  # Left, Home, Delete
    chosen = await asyncio.wait_for(task, 5)
    assert selector.state.query == "laude" and chosen is not None and chosen.id == "fake-claude"
