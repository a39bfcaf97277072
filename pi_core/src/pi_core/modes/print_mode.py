"""Print mode (``pi -p``) and JSON mode (``pi --mode json``): run the prompts, write the result, exit.

Text mode writes the text blocks of the final assistant message to stdout (its error to stderr,
exit 1, when it failed or was aborted). JSON mode writes the session header and then every
session event as one JSON line, exactly as pi's ``JSON.stringify``; its exit status only reflects
prompts that could not start. Plugin errors go to stderr as ``Extension error (PLUGIN, HOOK): MESSAGE``.
With ``retry_notices`` (text mode, stderr a terminal) each automatic retry is announced on stderr
in one line, so a run that waits for a provider does not sit silent; pi 1.6.0 prints nothing
there, and nothing is added to stdout or to JSON mode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pi_core.ai.messages import AssistantMessage, ImageContent, TextContent
from pi_core.modes.jsonl import serialize_json_line
from pi_core.modes.wire import wire_event
from pi_core.runtime.events import AutoRetryStartEvent, ExtensionErrorEvent
from pi_core.runtime.host import RuntimeHost
from pi_core.runtime.ui import HeadlessUI


async def run_print_mode(
    host: RuntimeHost,
    *,
    mode: Literal["text", "json"],
    initial_message: str | None,
    initial_images: Sequence[ImageContent] = (),
    messages: Sequence[str] = (),
    write_out: Callable[[str], None],
    write_err: Callable[[str], None],
    retry_notices: bool = False,
) -> int:
    """Run the prompts one after another; returns the exit status."""
    unsubscribe: Callable[[], None] | None = None
    announce = retry_notices and mode == "text"

    def on_event(event: object) -> None:
        if isinstance(event, AutoRetryStartEvent):
            seconds = event.delay_ms / 1000
            write_err(
                f"Retrying ({event.attempt}/{event.max_attempts}) in {seconds:.0f}s: {event.error_message}\n"
            )

    def report(error: ExtensionErrorEvent) -> None:
        write_err(f"Extension error ({error.extension_path}, {error.event}): {error.error}\n")

    def notify(message: str, kind: str) -> None:
        write_err(f"{message}\n")

    async def bind() -> None:
        nonlocal unsubscribe
        if unsubscribe is not None:
            unsubscribe()
        if mode == "json":
            unsubscribe = host.session.subscribe(
                lambda event: write_out(serialize_json_line(wire_event(event)))
            )
        elif announce:
            unsubscribe = host.session.subscribe(on_event)
        await host.bind_mode(ui=HeadlessUI(notify, host.setting_theme), on_error=report, mode=mode)

    host.on_session_replaced(bind)
    try:
        if mode == "json":
            write_out(serialize_json_line(host.session.session_manager.get_header()))
        await bind()
        if initial_message:
            await host.session.prompt(initial_message, images=list(initial_images))
        for message in messages:
            await host.session.prompt(message)
        if mode == "text":
            return _print_final(host, write_out, write_err)
        return 0
    except Exception as error:  # a prompt that cannot start: pi prints the message and exits 1
        write_err(f"{error}\n")
        return 1
    finally:
        if unsubscribe is not None:
            unsubscribe()
        await host.dispose()


def _print_final(
    host: RuntimeHost, write_out: Callable[[str], None], write_err: Callable[[str], None]
) -> int:
    transcript = host.session.messages
    last = transcript[-1] if transcript else None
    if not isinstance(last, AssistantMessage):
        return 0
    if last.stop_reason in ("error", "aborted"):
        from pi_core.runtime.auth_guidance import rejected_key_hint

        hint = rejected_key_hint(host.services.model_registry, host.session.model, last.error_message)
        write_err(f"{last.error_message or f'Request {last.stop_reason}'}\n{hint or ''}")
        return 1
    for block in last.content:
        if isinstance(block, TextContent):
            write_out(f"{block.text}\n")
    return 0
