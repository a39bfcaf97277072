"""runtime/session_input.py: a plugin's ``/command`` in place of a prompt, the ``input`` hook, and
``/skill:`` and prompt-template expansion from files on disk, as pi 1.6.0 does them."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pi_core.plugins.registry import CommandSpec
from pi_core.runtime import session_input
from pi_core.testing.faux import text_message

from pi_core import hookimpl

if TYPE_CHECKING:
    from conftest import Harness


def _skill_and_template(harness: Harness) -> str:
    """A skill ``tidy`` and a prompt template ``review`` in the agent folder; the skill's file."""
    skill = harness.tmp / "agent" / "skills" / "tidy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(
        "---\nname: tidy\ndescription: Tidy the code\n---\nSort the imports.\n", encoding="utf-8"
    )
    prompts = harness.tmp / "agent" / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("Review $1 carefully.\n", encoding="utf-8")
    return str(skill)


async def test_skills_and_templates_expand_and_an_unreadable_skill_is_reported_as_pi_does(
    harness: Harness,
) -> None:
    path = _skill_and_template(harness)
    session = harness.build()
    errors: list[Any] = []
    await session.bind_mode(on_error=errors.append)
    expanded = session_input.expand(session, "/skill:tidy  now please ")
    assert expanded.startswith(f'<skill name="tidy" location="{path}">\nReferences are relative to ')
    assert expanded.endswith("Sort the imports.\n</skill>\n\nnow please")
    assert session_input.expand(session, "/review main.py") == "Review main.py carefully.\n"  # as pi
    assert session_input.expand(session, "/skill:unknown x") == "/skill:unknown x"
    (harness.tmp / "agent" / "skills" / "tidy" / "SKILL.md").unlink()
    assert session_input.expand(session, "/skill:tidy") == "/skill:tidy"  # sent as typed
    (error,) = errors
    assert (error.extension_path, error.event) == (path, "skill_expansion")
    assert "No such file or directory" in error.error and not error.error.startswith(path)


async def test_a_command_gets_the_text_after_its_name_and_unknown_ones_are_left_alone(
    harness: Harness,
) -> None:
    seen: list[str] = []

    def note(args: str, ctx: Any) -> None:
        seen.append(args)

    session = harness.build(commands=[CommandSpec("note", "note", note, None, None, "notes")])
    assert await session_input.run_extension_command(session, "/note  two  words ") is True
    assert await session_input.run_extension_command(session, "/note") is True
    assert await session_input.run_extension_command(session, "/nothing here") is False
    assert seen == [" two  words ", ""]  # as pi: everything after the first space, kept


async def test_input_handlers_hear_how_a_queued_input_waits_only_while_streaming(harness: Harness) -> None:
    heard: list[tuple[str, str | None, str]] = []

    class Listener:
        @hookimpl
        def input(self, event: Any) -> None:
            heard.append((event.text, event.streaming_behavior, event.source))

    harness.provider.delay = 0.02
    harness.provider.responses += [text_message("a long enough answer"), text_message("done")]
    session = harness.build(plugins=[Listener()])
    await session.follow_up("after this", source="rpc")
    run = asyncio.create_task(session.prompt("go"))
    await asyncio.sleep(0.01)
    await session.steer("meanwhile")
    await run
    assert heard == [
        ("after this", None, "rpc"),  # idle: pi passes no streaming behaviour
        ("go", None, "interactive"),
        ("meanwhile", "steer", "interactive"),
    ]
