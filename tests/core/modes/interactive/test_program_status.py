"""OSC 7501 program status as pi 1.6.0 reports it: the encoding, the states a run goes through,
dialogs (and components with ``blocked``) reported as blocked, and the terminal's answer to the
support query taken out of the keys."""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from pi_core.modes.interactive.program_status import Blocked, ProgramStatus, Status, encode
from pi_core.modes.interactive.terminal_colors import AnswerFilter
from pi_core.testing import LoopbackLLMServer, Text, Turn

REPORT = re.compile(r"\x1b\]7501;(state=[^\x1b]*)\x1b\\")  # reports, not the support query


def _decoded(sequence: str) -> dict[str, str]:
    match = REPORT.fullmatch(sequence)
    assert match, repr(sequence)
    pairs = dict(pair.split("=", 1) for pair in match.group(1).split(":"))
    if "msg" in pairs:
        pairs["msg"] = base64.b64decode(pairs["msg"]).decode()
    return pairs


def _reports(writes: list[str]) -> list[dict[str, str]]:
    return [_decoded(match.group(0)) for chunk in writes for match in REPORT.finditer(chunk)]


def test_encoding_names_the_state_the_app_and_what_a_dialog_waits_for() -> None:
    assert encode(Status("idle")) == "\x1b]7501;state=idle:app=pi\x1b\\"
    blocked = _decoded(encode(Status("blocked", kind="permission", message="Allow\nrm -rf?\x07")))
    assert blocked == {"state": "blocked", "app": "pi", "kind": "permission", "msg": "Allow rm -rf?"}
    assert "kind" not in _decoded(encode(Status("working", kind="question", message="s")))
    assert "app" not in _decoded(encode(Status("done"), app="not a valid name"))
    long = _decoded(encode(Status("error", message="é" * 3000)))["msg"]
    assert len(long.encode()) <= 2048 and set(long) == {"é"}  # cut on a character's edge


def _event(kind: str, **fields: Any) -> Any:
    return SimpleNamespace(type=kind, **fields)


def _answer(stop_reason: str = "stop", error: str | None = None) -> Any:
    return _event(
        "message_end", message=SimpleNamespace(role="assistant", stop_reason=stop_reason, error_message=error)
    )


def test_a_run_reports_working_then_done_or_the_first_line_of_its_error() -> None:
    writes: list[str] = []
    status = ProgramStatus(writes.append, lambda: "my session", setting="1")
    status.report()
    status(_event("agent_start"))
    status(_answer("error", "rate limited\nretry later"))
    status(_answer())  # the retry worked: done, not error
    status(_event("agent_settled", aborted=False))
    status(_event("agent_start"))
    status(_answer("error", "boom\nstack"))
    status(_event("agent_settled", aborted=False))
    status(_event("agent_start"))
    status(_event("agent_settled", aborted=True))
    states = [(r["state"], r.get("msg")) for r in _reports(writes)]
    assert states == [
        ("idle", None),
        ("working", "my session"),
        ("done", "my session"),
        ("working", "my session"),
        ("error", "boom"),
        ("working", "my session"),
        ("idle", None),
    ]


def test_compaction_and_blocked_dialogs_the_newest_reported() -> None:
    writes: list[str] = []
    status = ProgramStatus(writes.append, lambda: None, setting="1")
    status(_event("compaction_start", reason="manual"))
    assert status.current() == Status("working", message="Compacting context")
    status(_event("compaction_end", reason="manual", aborted=False, error_message=None))
    assert status.current() == Status("done")
    first, second = object(), object()
    status.set_blocked(first, Blocked(kind="question", message="Pick"))
    status.set_blocked(second, Blocked(kind="auth", message="Log in"))
    assert status.current() == Status("blocked", kind="auth", message="Log in")
    status.set_blocked(second, None)
    assert status.current() == Status("blocked", kind="question", message="Pick")
    status.set_blocked(first, None)
    assert status.current() == Status("done")
    count = len(writes)
    status.report()  # nothing changed: nothing written
    assert len(writes) == count
    status.clear()
    assert _reports(writes)[-1] == {"state": "clear", "app": "pi"}


def test_without_the_setting_reports_wait_for_the_terminal_to_answer_the_query() -> None:
    writes: list[str] = []
    status = ProgramStatus(writes.append, lambda: None, setting="")
    status.query()
    assert writes == ["\x1b]7501;?\x1b\\"] and not status.enabled
    status(_event("agent_start"))
    assert len(writes) == 1  # not reported: support is not known yet
    answers = AnswerFilter(lambda reported: None, lambda scheme: None)
    answers.on_program_status = status.supported
    assert answers.feed("a\x1b]7501;?\x1b\\b") == "ab"  # the answer never reaches the keys
    assert status.enabled and _reports(writes[1:]) == [{"state": "working", "app": "pi"}]
    never = ProgramStatus(writes.append, lambda: None, setting="0")
    count = len(writes)
    never.query()
    never.supported()
    never(_event("agent_start"))
    assert len(writes) == count


BLOCKING_PLUGIN = """
from pi_core import hookimpl


class Question:
    def __init__(self, done):
        self.done = done

    def render(self, width):
        return ["QUESTION-COMPONENT Enter answers"]

    def handle_input(self, data):
        if data == "\\r":
            self.done("answered")


async def ask(args, ctx):
    value = await ctx.ui.custom(
        lambda tui, theme, done: Question(done), blocked={"kind": "question", "message": "Which way?"}
    )
    ctx.ui.notify(f"GOT {value}")


async def bad(args, ctx):
    value = await ctx.ui.custom(
        lambda tui, theme, done: Question(done), blocked={"kind": "nap", "message": 1}
    )
    ctx.ui.notify(f"BAD GOT {value}")


@hookimpl
def register_commands(register):
    register("ask", ask, description="a blocking component")
    register("bad", bad, description="a bad blocked option")
"""


@pytest.fixture(params=["regular", "fullscreen"])
def fullscreen(request: pytest.FixtureRequest) -> bool:
    return bool(request.param == "fullscreen")


async def test_the_repl_reports_a_plugin_dialog_as_blocked_while_a_run_goes(
    repl_factory: Callable[..., Any],
    pi_llm_server: LoopbackLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    fullscreen: bool,
) -> None:
    monkeypatch.setenv("PI_PROGRAM_STATUS", "1")
    pi_llm_server.add(Turn(blocks=[Text("slow " * 60, chunks=60)], delay=0.02))
    repl = await repl_factory(fullscreen=fullscreen)
    writes: list[str] = []
    repl.mode.program_status._write = writes.append
    await repl.submit("go")
    await repl.until(lambda: any(r["state"] == "working" for r in _reports(writes)))
    if fullscreen:  # asked while the answer streams
        picked = asyncio.ensure_future(repl.mode.ui.select("Pick a colour", ["red", "green"]))
        await repl.in_dialog()
        repl.send("\r")
        assert await asyncio.wait_for(picked, 5) == "red"
    await repl.idle()
    answer = asyncio.ensure_future(repl.mode.ui.confirm("Delete it?", "for good"))
    await repl.in_dialog()
    repl.send("\r")  # Yes
    assert await asyncio.wait_for(answer, 5) is True
    await repl.wait_idle_editor()
    states = [(r["state"], r.get("kind"), r.get("msg")) for r in _reports(writes)]
    expected = [("idle", None, None), ("working", None, None)]
    if fullscreen:
        expected += [("blocked", "question", "Pick a colour"), ("working", None, None)]
    expected += [("done", None, None), ("blocked", "permission", "Delete it?"), ("done", None, None)]
    assert states == expected
    await repl.quit()
    assert _reports(writes)[-1]["state"] == "clear"


async def test_a_component_with_blocked_is_reported_and_a_bad_option_is_refused(
    repl_factory: Callable[..., Any],
    pi_llm_server: LoopbackLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    fullscreen: bool,
) -> None:
    monkeypatch.setenv("PI_PROGRAM_STATUS", "1")
    path = tmp_path / "blocking.py"
    path.write_text(BLOCKING_PLUGIN)
    repl = await repl_factory(extensions=(str(path),), fullscreen=fullscreen)
    writes: list[str] = []
    repl.mode.program_status._write = writes.append
    await repl.submit("/ask")
    await repl.in_component()
    await repl.until(lambda: any(r["state"] == "blocked" for r in _reports(writes)))
    assert _reports(writes)[-1] == {"state": "blocked", "app": "pi", "kind": "question", "msg": "Which way?"}
    repl.send("\r")
    await repl.wait_for("GOT answered")
    assert _reports(writes)[-1]["state"] == "idle"
    await repl.submit("/bad")
    await repl.wait_for("blocked: kind")
    await repl.in_component()
    repl.send("\r")
    await repl.wait_for("BAD GOT answered")
    assert not any(r.get("msg") == "1" for r in _reports(writes))
    await repl.quit()


async def test_blocked_is_taken_and_ignored_where_there_is_no_terminal() -> None:
    from pi_core.modes.rpc.ui import RpcExtensionUI
    from pi_core.runtime.ui import HeadlessUI

    blocked = {"kind": "question", "message": "Pick"}
    assert await HeadlessUI().custom(lambda *args: None, blocked=blocked) is None
    assert await RpcExtensionUI(lambda request: None).custom(lambda *args: None, blocked=blocked) is None


async def test_a_login_reports_pi_as_waiting_for_auth(
    repl_factory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, fullscreen: bool
) -> None:
    monkeypatch.setenv("PI_PROGRAM_STATUS", "1")
    repl = await repl_factory(fullscreen=fullscreen)
    writes: list[str] = []
    repl.mode.program_status._write = writes.append
    await repl.submit("/login loop")
    await repl.in_dialog()
    await repl.until(lambda: any(r["state"] == "blocked" for r in _reports(writes)))
    assert _reports(writes)[-1] == {"state": "blocked", "app": "pi", "kind": "auth", "msg": "Log in to loop"}
    repl.send("sk-typed-in\r")
    await repl.wait_for("Saved the API key for loop")
    assert _reports(writes)[-1]["state"] == "idle"
    await repl.quit()
