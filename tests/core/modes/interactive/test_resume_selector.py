"""The /resume selector: forks threaded under their parent, pi's search, its keys through a pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pi_core.modes.interactive.resume_selector import (
    MessageText,
    ResumeSelector,
    age,
    match_score,
    parse_query,
    threaded,
)
from pi_core.session.listing import SessionInfo
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

UP, DOWN, ENTER, ESC, TAB = "\x1b[A", "\x1b[B", "\r", "\x1b", "\t"
CTRL_D, CTRL_N, CTRL_P, CTRL_R, CTRL_S = "\x04", "\x0e", "\x10", "\x12", "\x13"
NOW = datetime.now(UTC)


class WideOutput(DummyOutput):
    def get_size(self) -> Size:
        return Size(rows=40, columns=120)


def info(
    path: str, first: str, hours: float, name: str | None = None, parent: str | None = None
) -> SessionInfo:
    when = NOW - timedelta(hours=hours)
    return SessionInfo(
        path=path,
        id=f"id-{path}",
        cwd="/work/calc",
        name=name,
        parent_session_path=parent,
        created=when,
        modified=when,
        message_count=4,
        first_message=first,
    )


SESSIONS = [
    info("/s/c", "Explain the parser", 1),
    info("/s/b", "Fork: try a regex tokenizer", 20, parent="/s/a"),
    info("/s/a", "Write a tokenizer", 300, name="tokenizer work"),
    info("/s/d", "Another fork", 30, parent="/s/a"),
]
ELSEWHERE = [*SESSIONS, info("/t/e", "In another project", 2)]


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


def test_forks_hang_under_their_parent_latest_first() -> None:
    rows = [(row.prefix, row.info.path) for row in threaded(SESSIONS)]
    assert rows == [("", "/s/c"), ("", "/s/a"), ("   ├─ ", "/s/b"), ("   └─ ", "/s/d")]


def test_search_words_phrases_and_regex() -> None:
    named, plain = SESSIONS[2], SESSIONS[0]
    in_name, in_text = match_score(named, parse_query("tokenizer")), match_score(plain, parse_query("parser"))
    assert in_name is not None and in_text is not None and in_name < in_text  # a name hit ranks first
    assert match_score(plain, parse_query('"explain the"')) is not None
    assert match_score(plain, parse_query('"the explain"')) is None
    assert match_score(plain, parse_query("re:^explain")) is not None
    assert parse_query("re:(").error is not None
    assert match_score(plain, parse_query("xyzzy")) is None


def test_ages() -> None:
    assert [age(NOW - timedelta(**delta), NOW) for delta in (
        {"seconds": 5}, {"minutes": 5}, {"hours": 3}, {"days": 2}, {"days": 9}, {"days": 100}, {"days": 800},
    )] == ["now", "5m", "3h", "2d", "1w", "3mo", "2y"]  # fmt: skip


async def start(pipe: PipeInput, **options: object) -> tuple[ResumeSelector, asyncio.Task[object]]:
    async def load(scope: str) -> list[SessionInfo]:
        return list(SESSIONS if scope == "current" else ELSEWHERE)

    selector = ResumeSelector(load, current_path="/s/c", **options)  # type: ignore[arg-type]
    await selector.start()
    task = asyncio.create_task(selector.run(input=pipe, output=WideOutput()))
    await asyncio.sleep(0.05)
    return selector, task


async def press(pipe: PipeInput, *keys: str) -> None:
    for key in keys:
        pipe.send_text(key)
        await asyncio.sleep(0.03)
    await asyncio.sleep(0.1)


def screen(selector: ResumeSelector) -> str:
    return "".join(text for _, text, *_ in selector.fragments())


async def test_rows_and_keys(pipe: PipeInput) -> None:
    selector, task = await start(pipe)
    shown = screen(selector)
    assert (
        "Resume Session (Current Folder)" in shown
        and "◉ Current Folder | ○ All  Name: All  Sort: Threaded" in shown
    )
    assert "ctrl+s sort · ctrl+n named · ctrl+d delete · ctrl+p path (off)" in shown
    assert "› Explain the parser" in shown and "   └─ Another fork" in shown
    await press(pipe, TAB)
    assert "Resume Session (All)" in screen(selector) and "/work/calc 4 2h" in screen(selector)
    await press(pipe, TAB, CTRL_S)
    assert "Sort: Recent" in screen(selector)
    await press(pipe, CTRL_N)
    assert "Name: Named" in screen(selector) and "Explain the parser" not in screen(selector)
    await press(pipe, CTRL_N, CTRL_P)
    assert "path (on)" in screen(selector) and "/s/c 4 1h" in screen(selector)
    await press(pipe, CTRL_D)  # the session in use
    assert "Cannot delete the currently active session" in screen(selector)
    await press(pipe, "regex", DOWN, UP, ENTER)
    assert await asyncio.wait_for(task, 5) == "/s/b"


async def test_delete_after_enter_and_rename_in_place(pipe: PipeInput) -> None:
    deleted: list[str] = []
    renamed: list[tuple[str, str]] = []

    async def delete(path: str) -> str:
        deleted.append(path)
        return "Session deleted"

    async def rename(path: str, name: str) -> None:
        renamed.append((path, name))

    selector, task = await start(pipe, delete=delete, rename=rename)
    await press(pipe, DOWN, CTRL_D)
    assert "Delete session? enter confirm · escape/ctrl+c cancel" in screen(selector)
    await press(pipe, ESC)
    assert deleted == [] and not task.done()
    await press(pipe, CTRL_D, ENTER)
    assert deleted == ["/s/a"] and "Session deleted" in screen(selector)
    await press(pipe, CTRL_R)
    assert "Rename Session" in screen(selector)
    await press(pipe, "named", ENTER)
    assert renamed and renamed[0][1] == "named"
    await press(pipe, ESC)
    assert await asyncio.wait_for(task, 5) is None


async def test_a_rename_that_fails_says_so(pipe: PipeInput) -> None:
    async def rename(path: str, name: str) -> None:
        raise PermissionError(13, "Permission denied", path)

    selector, task = await start(pipe, rename=rename)
    await press(pipe, DOWN, CTRL_R, "x", ENTER)
    assert "Failed to rename: [Errno 13] Permission denied: '/s/a'" in screen(selector)
    assert "Rename Session" not in screen(selector)
    await press(pipe, ESC)
    assert await asyncio.wait_for(task, 5) is None


async def test_keybindings_json_rebinds_its_keys_and_hints(pipe: PipeInput) -> None:
    selector, task = await start(pipe, keymap={"app.session.toggleSort": ["ctrl+o"]})
    assert "ctrl+o sort · ctrl+n named" in screen(selector)
    await press(pipe, "\x0f")  # Ctrl+O
    assert "Sort: Recent" in screen(selector)
    await press(pipe, CTRL_S)  # no longer bound
    assert "Sort: Recent" in screen(selector)
    await press(pipe, ESC)
    assert await asyncio.wait_for(task, 5) is None


async def test_the_rename_field_edits_as_pi_input(pipe: PipeInput) -> None:
    renamed: list[tuple[str, str]] = []

    async def rename(path: str, name: str) -> None:
        renamed.append((path, name))

    selector, task = await start(pipe, rename=rename)
    await press(pipe, DOWN, CTRL_R)  # "tokenizer work": the cursor starts on its first letter
    assert "> tokenizer work" in screen(selector) and selector.rename_field.cursor == 0
    keys = ("the ", "\x1bf", "\x17", "\x05", " log", "\x1b[D" * 3, "\x1b[3~", "\x1b[1;5D")
    await press(pipe, *keys)  # Alt+F, Ctrl+W, Ctrl+E, typing, Left, Delete, Ctrl+Left
    assert selector.rename_field.text == "the  work og" and selector.rename_field.cursor == 5
    await press(pipe, ENTER)
    assert renamed == [("/s/a", "the  work og")]
    await press(pipe, CTRL_R)  # pi keeps one field: the cursor stays where it was (at most the end)
    assert selector.renaming == "/s/a" and selector.rename_field.cursor == 5
    await press(pipe, CTRL_D, ESC, ESC)  # Ctrl+D erases forward here; Esc leaves, then closes
    assert renamed == [("/s/a", "the  work og")]
    assert await asyncio.wait_for(task, 5) is None


async def test_the_search_field_edits_and_the_list_keys_still_win(pipe: PipeInput) -> None:
    deleted: list[str] = []

    async def delete(path: str) -> str:
        deleted.append(path)
        return "Session deleted"

    selector, task = await start(pipe, delete=delete)
    await press(pipe, "tokenzer", "\x1b[D" * 3, "i")
    assert selector.state.query == "tokenizer" and "› tokenizer work" in screen(selector)
    await press(pipe, "\x1b[H", "\x0b")  # Home, Ctrl+K: the search is empty again
    assert selector.state.query == "" and "Explain the parser" in screen(selector)
    await press(pipe, "fork", "\x01", DOWN, CTRL_D, ENTER)  # Ctrl+D deletes a session, as in pi
    assert deleted == ["/s/d"] and selector.state.query == "fork"
    await press(pipe, ESC)
    assert await asyncio.wait_for(task, 5) is None


def test_search_finds_words_of_any_message_once_read() -> None:
    from pi_core.modes.interactive.resume_selector import MessageText

    plain = SESSIONS[0]
    text = MessageText("explain the parser, its tokens\n  come   later")
    assert match_score(plain, parse_query("tokens")) is None  # the first message alone
    assert match_score(plain, parse_query("tokens"), text) is not None
    assert match_score(plain, parse_query('"tokens come later"'), text) is not None  # spaces as one
    assert match_score(plain, parse_query(r"re:TOKENS\s+come"), text) is not None
    assert match_score(plain, parse_query("tkns"), text) is None  # messages match literally only


async def test_typing_searches_all_messages_of_the_sessions_on_disk(pipe: PipeInput, tmp_path: Path) -> None:
    from pi_core.session.listing import list_sessions
    from pi_core.session.manager import SessionManager

    from tests.core.session.session_helpers import assistant, user

    for first, later in (("a first question", "nothing to see"), ("another question", "a zebra appears")):
        sm = SessionManager.create("/work/calc", tmp_path)
        sm.append_message(user(first))
        sm.append_message(assistant(later))
    sessions = list_sessions(tmp_path)

    async def load(scope: str) -> list[SessionInfo]:
        return sessions

    selector = ResumeSelector(load)
    await selector.start()
    task = asyncio.create_task(selector.run(input=pipe, output=WideOutput()))
    await asyncio.sleep(0.05)
    await press(pipe, "zebra")
    for _ in range(50):  # the texts are read in a thread
        if not selector.reading:
            break
        await asyncio.sleep(0.02)
    assert [row.info.first_message for row in selector.state.rows] == ["another question"]
    assert "› another question" in screen(selector) and "Searching messages" not in screen(selector)
    await press(pipe, ENTER)
    chosen = next(info.path for info in sessions if info.first_message == "another question")
    assert await asyncio.wait_for(task, 5) == chosen


@pytest.mark.parametrize(
    "typed",
    ["tokenizer", 'the "fork tr', "fork: try", "tokenizer work x", "a1", "re:tok", "wr tok"],
)
def test_a_search_typed_on_finds_what_a_fresh_search_finds(typed: str) -> None:
    """Each key narrows the last search's matches rather than searching every session again."""
    from pi_core.modes.interactive.resume_selector import MessageText, SessionList

    texts = {info.path: MessageText(f"{info.first_message} the a1 answer".lower()) for info in SESSIONS}
    typing = SessionList(loaded={"current": list(SESSIONS)}, texts=dict(texts), sort="relevance")
    for end in range(1, len(typed) + 1):
        typing.query = typed[:end]
        typing.refilter()
        fresh = SessionList(loaded={"current": list(SESSIONS)}, texts=dict(texts), sort="relevance")
        fresh.query = typed[:end]
        fresh.refilter()
        assert [row.info.path for row in typing.rows] == [row.info.path for row in fresh.rows], typed[:end]


def test_typing_on_searches_only_the_last_matches() -> None:
    from pi_core.modes.interactive.resume_selector import SessionList

    state = SessionList(loaded={"current": list(SESSIONS)}, query="fork")
    state.refilter()
    pool = list(SESSIONS)
    assert len(state._narrowed(pool, parse_query("fork:"))) == 2  # the two forks, of four
    assert len(state._narrowed(pool, parse_query("for"))) == 4  # a shorter word: all again
    assert len(state._narrowed(pool, parse_query("re:fork"))) == 4
    state.texts["/s/c"] = MessageText("a fork after all")  # a text read since: all again
    assert len(state._narrowed(pool, parse_query("fork:"))) == 4
