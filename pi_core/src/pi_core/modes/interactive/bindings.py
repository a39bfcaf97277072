"""The editor's keys: editing, sending, steering, aborting, quitting, models and thinking, plugin
shortcuts.

Built again whenever the plugins change (start-up, ``/reload``, a new session), since plugin
shortcuts are part of them; a plugin key added later wins over the REPL's own. Every key comes
from the keymap (pi's action ids, ``keybindings.json``): the editing actions (``tui.editor.*``)
run prompt-toolkit's own readline commands, so a moved key takes its command along, and a default
key no action has any more does nothing (rather than prompt-toolkit's emacs binding for it).
"""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import get_app, run_in_terminal
from prompt_toolkit.filters import Condition, has_completions, has_selection, is_searching
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.key_binding.bindings.basic import if_no_repeat
from prompt_toolkit.key_binding.bindings.named_commands import get_by_name
from prompt_toolkit.keys import Keys
from rich.text import Text

from pi_core.modes.interactive.keymap import ACTIONS, Keymap, default_keymap, scope
from pi_core.modes.interactive.keys import to_prompt_toolkit
from pi_core.modes.interactive.paste import clean

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from pi_core.modes.interactive.app import InteractiveMode
    from pi_core.plugins.registry import ShortcutSpec

#: Completions a PageUp/PageDown moves over in the completion menu (the rows it shows).
COMPLETION_PAGE = 8
#: Two presses within this many seconds count as a double press (Ctrl+C to quit, Esc for /tree).
DOUBLE_PRESS_SECONDS = 0.5


class _DoublePress:
    """Remembers the last press of one key; ``twice()`` says whether this one completes a pair."""

    def __init__(self) -> None:
        self._last = 0.0

    def twice(self) -> bool:
        now = time.monotonic()
        paired = now - self._last < DOUBLE_PRESS_SECONDS
        self._last = 0.0 if paired else now
        return paired


def build_key_bindings(
    mode: InteractiveMode, shortcuts: Mapping[str, ShortcutSpec], keymap: Keymap | None = None
) -> KeyBindings:
    """The REPL's keys (``keymap``: pi's action ids → keys, from ``keybindings.json``) and then the
    plugin shortcuts, which win a clash."""
    keymap = keymap or default_keymap()
    bindings = KeyBindings()
    busy = Condition(lambda: mode.busy)
    escape, ctrl_c = _DoublePress(), _DoublePress()

    def on(action_id: str, **options: Any) -> Callable[[KeyHandler], KeyHandler]:
        """Bind a handler to every key of an action."""

        def register(handler: KeyHandler) -> KeyHandler:
            for sequence in keymap.sequences(action_id):
                bindings.add(*sequence, **options)(handler)
            return handler

        return register

    def put_pastes_back(buffer: Buffer) -> None:
        """The big pastes in place of their markers, before the text is sent or edited outside."""
        if len(mode.pastes) and buffer is mode.editor_buffer():
            text = mode.pastes.expand(buffer.text)
            mode.pastes.clear()
            if text != buffer.text:
                buffer.text = text

    jump = _Jump()
    _editing_keys(bindings, keymap, on, jump)

    @on("tui.input.submit")
    def _submit(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.text.endswith("\\") and buffer.document.is_cursor_at_the_end:
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
            return
        put_pastes_back(buffer)
        buffer.validate_and_handle()

    @bindings.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer is mode.editor_buffer():
            mode.pastes.paste(buffer, event.data)
        else:  # the search field
            text = clean(event.data)
            buffer.insert_text(text if buffer.multiline() else text.replace("\n", " "))

    after_marker = Condition(
        lambda: (
            bool(len(mode.pastes))
            and get_app().current_buffer is mode.editor_buffer()
            and get_app().current_buffer.document.char_before_cursor == "]"
        )
    )

    @on("tui.editor.deleteCharBackward", filter=after_marker)
    def _delete_marker(event: KeyPressEvent) -> None:
        if not mode.pastes.delete_marker_before_cursor(event.current_buffer):
            event.current_buffer.delete_before_cursor(1)

    @on("tui.input.newLine")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @on("app.message.followUp")
    def _follow_up(event: KeyPressEvent) -> None:
        mode.follow_up_next = True
        put_pastes_back(event.current_buffer)
        event.current_buffer.validate_and_handle()

    @on("app.interrupt", filter=busy)
    def _abort(event: KeyPressEvent) -> None:
        mode.abort_soon()

    @on("app.interrupt", filter=~busy)
    def _double_escape(event: KeyPressEvent) -> None:
        # pi's doubleEscapeAction: Esc twice on an empty editor opens /tree (or /fork). Not
        # eager, so that Esc and a key after it in one read are Alt+that key (Alt+B, Alt+Enter);
        # the key processor waits for nothing more (SEQUENCE_WAIT), so Esc alone acts at once.
        action = mode.host.session.settings.settings.double_escape_action
        if escape.twice() and not event.current_buffer.text and action != "none":
            mode.spawn(_run_builtin(mode, f"/{action}"))

    @on("app.message.dequeue")
    def _dequeue(event: KeyPressEvent) -> None:
        mode.restore_queue()

    @on("app.model.cycleForward")
    def _cycle_model(event: KeyPressEvent) -> None:
        mode.spawn(_next_model(mode))

    @on("app.model.cycleBackward")
    def _cycle_model_back(event: KeyPressEvent) -> None:
        mode.spawn(_next_model(mode, backward=True))

    @on("app.message.copy")
    def _copy_answer(event: KeyPressEvent) -> None:
        mode.spawn(mode.copy_message())

    @on("app.thinking.toggle")
    def _toggle_thinking(event: KeyPressEvent) -> None:
        mode.toggle_thinking()

    @on("app.tools.expand")
    def _toggle_tool_output(event: KeyPressEvent) -> None:
        mode.toggle_tool_output()

    @on("app.model.select")
    def _choose_model(event: KeyPressEvent) -> None:
        mode.spawn(mode.commands.cmd_model(""))

    @on("app.clipboard.pasteImage")
    def _paste_image(event: KeyPressEvent) -> None:
        mode.spawn(_paste_clipboard_image(mode, event.current_buffer))

    @on("app.editor.external")
    def _external_editor(event: KeyPressEvent) -> None:
        mode.spawn(mode.edit_externally())

    @on("app.suspend", filter=Condition(lambda: hasattr(signal, "SIGTSTP")))
    def _suspend(event: KeyPressEvent) -> None:
        mode.lend_terminal()  # the shell gets the terminal without pi's light/dark reports

        def stop() -> None:
            os.kill(0, signal.SIGTSTP)  # the whole group, as prompt-toolkit's suspend does
            mode.terminal_returned()

        run_in_terminal(stop)

    @on("app.thinking.cycle")
    def _cycle_thinking(event: KeyPressEvent) -> None:
        level = mode.host.session.cycle_thinking_level()
        note = f"Thinking level: {level}" if level else "The current model does not support thinking"
        mode.console.print(Text(note, style="pi.dim"))

    for action_id, command in _SESSION_ACTIONS.items():
        on(action_id)(_command_key(mode, command))

    # The completion menu is pi's autocomplete list: its list keys move in it and Esc closes it
    # (back to the text as typed), before Esc aborts; Ctrl+C still clears (app.clear, below).
    @on("tui.select.up", filter=has_completions)
    def _completion_up(event: KeyPressEvent) -> None:
        event.current_buffer.complete_previous()

    @on("tui.select.down", filter=has_completions)
    def _completion_down(event: KeyPressEvent) -> None:
        event.current_buffer.complete_next()

    @on("tui.select.pageUp", filter=has_completions)
    def _completion_page_up(event: KeyPressEvent) -> None:
        event.current_buffer.complete_previous(count=COMPLETION_PAGE, disable_wrap_around=True)

    @on("tui.select.pageDown", filter=has_completions)
    def _completion_page_down(event: KeyPressEvent) -> None:
        event.current_buffer.complete_next(count=COMPLETION_PAGE, disable_wrap_around=True)

    @on("tui.select.cancel", filter=has_completions)
    def _completion_cancel(event: KeyPressEvent) -> None:
        event.current_buffer.cancel_completion()

    @on("app.clear")
    def _ctrl_c(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if mode.busy:
            mode.abort_soon()
            return
        if buffer.text:
            buffer.reset()
            return
        if ctrl_c.twice():
            event.app.exit(exception=EOFError())
            return
        mode.console.print(Text("Press Ctrl+C again to exit", style="pi.dim"))

    editor_empty = Condition(
        lambda: get_app().current_buffer is mode.editor_buffer() and not get_app().current_buffer.text
    )

    @on("app.exit", filter=editor_empty)
    def _exit(event: KeyPressEvent) -> None:
        event.app.exit(exception=EOFError())

    @on("tui.input.copy", filter=has_selection)
    def _copy_selection(event: KeyPressEvent) -> None:
        # The editor's selection (Ctrl+Space marks its start, as in emacs); the fullscreen
        # transcript copies a mouse selection as soon as the drag ends.
        text = event.current_buffer.copy_selection().text
        mode.spawn(_copy_text(mode, text))

    for key, spec in shortcuts.items():
        sequence = to_prompt_toolkit(key)
        if sequence is None:
            note = f"Shortcut {key!r} of plugin {spec.plugin} cannot be used in this terminal"
            mode.console.print(Text(note, style="pi.warning"))
            continue
        bindings.add(*sequence)(_shortcut_handler(mode, spec))

    # After a jump key: the next character typed is the one to jump to (a key bound to something
    # else does that instead, and a key that changes the text or moves the cursor ends the wait).
    @bindings.add(Keys.Any, filter=Condition(jump.waiting))
    def _jump_to(event: KeyPressEvent) -> None:
        forward = jump.take()
        if len(event.data) == 1 and event.data.isprintable():
            _jump_to_char(event.current_buffer, event.data, forward, event.arg)

    return bindings


KeyHandler = Callable[[KeyPressEvent], object]
Binder = Callable[..., Callable[[KeyHandler], KeyHandler]]

#: The editing actions that are prompt-toolkit's readline commands.
_READLINE_COMMANDS = {
    "tui.editor.historyPrevious": "previous-history",
    "tui.editor.historyNext": "next-history",
    "tui.editor.cursorLeft": "backward-char",
    "tui.editor.cursorRight": "forward-char",
    "tui.editor.cursorWordLeft": "backward-word",
    "tui.editor.cursorWordRight": "forward-word",
    "tui.editor.cursorLineStart": "beginning-of-line",
    "tui.editor.cursorLineEnd": "end-of-line",
    "tui.editor.deleteCharBackward": "backward-delete-char",
    "tui.editor.deleteCharForward": "delete-char",
    "tui.editor.deleteWordBackward": "backward-kill-word",
    "tui.editor.deleteWordForward": "kill-word",
    "tui.editor.deleteToLineStart": "unix-line-discard",
    "tui.editor.deleteToLineEnd": "kill-line",
    "tui.editor.yank": "yank",
    "tui.editor.yankPop": "yank-pop",
    "tui.input.tab": "menu-complete",
}


def _editing_keys(bindings: KeyBindings, keymap: Keymap, on: Binder, jump: _Jump) -> None:
    """The ``tui.editor.*`` actions and Tab, as prompt-toolkit's own commands on the keymap's keys.

    Bound before the REPL's actions, which win a key they share (Ctrl+D quits on an empty editor,
    else erases). A default key no editor action has any more is swallowed, so that prompt-
    toolkit's emacs binding for it (Ctrl+B moving left) goes too.
    """
    editor_actions = [action.id for action in ACTIONS if scope(action.id) == "editor"]
    bound = {sequence for action_id in editor_actions for sequence in keymap.sequences(action_id)}
    defaults = default_keymap()
    for action_id in editor_actions:
        for sequence in defaults.sequences(action_id):
            if sequence not in bound:
                bound.add(sequence)
                bindings.add(*sequence)(_nothing)
                if action_id in _JUMPS:  # prompt-toolkit's own jump: the key and a character
                    bindings.add(*sequence, Keys.Any)(_nothing)

    for action_id, command in _READLINE_COMMANDS.items():
        # Erasing a character again and again is one undo step, as in prompt-toolkit.
        repeats = {"save_before": if_no_repeat} if "Char" in action_id else {}
        on(action_id, **repeats)(get_by_name(command).handler)
    on("tui.editor.undo", save_before=lambda event: False)(get_by_name("undo").handler)

    # In Ctrl+R's history search, Up/Down stay prompt-toolkit's: the older / newer match.
    @on("tui.editor.cursorUp", filter=~is_searching)
    def _up(event: KeyPressEvent) -> None:
        event.current_buffer.auto_up(count=event.arg)

    @on("tui.editor.cursorDown", filter=~is_searching)
    def _down(event: KeyPressEvent) -> None:
        event.current_buffer.auto_down(count=event.arg)

    def page(event: KeyPressEvent) -> int:
        """pi's editor page: 30 % of the terminal's rows, at least 5 lines."""
        return max(5, int(event.app.output.get_size().rows * 0.3))

    @on("tui.editor.pageUp")
    def _page_up(event: KeyPressEvent) -> None:
        event.current_buffer.cursor_up(count=page(event))

    @on("tui.editor.pageDown")
    def _page_down(event: KeyPressEvent) -> None:
        event.current_buffer.cursor_down(count=page(event))

    # A jump waits for the next character as pi's does (the key again: no jump), however long
    # it takes to come, and looks for it in the whole text, not only the cursor's line.
    for action_id, forward in _JUMPS.items():
        on(action_id)(jump.key(forward))


_JUMPS = {"tui.editor.jumpForward": True, "tui.editor.jumpBackward": False}


def _nothing(event: KeyPressEvent) -> None:
    """A key that has no action (any more)."""


class _Jump:
    """A jump key was pressed: its direction, until the next character (or a change of the text
    or the cursor) ends the wait."""

    def __init__(self) -> None:
        self._pending: tuple[bool, Buffer, object] | None = None

    def start(self, buffer: Buffer, forward: bool) -> None:
        again = self._pending is not None and self._pending[0] == forward and self.waiting()
        self._pending = None if again else (forward, buffer, buffer.document)

    def key(self, forward: bool) -> KeyHandler:
        """The handler of a jump key."""
        return lambda event: self.start(event.current_buffer, forward)

    def waiting(self) -> bool:
        pending = self._pending
        if pending is None:
            return False
        _, buffer, document = pending
        if get_app().current_buffer is not buffer or buffer.document is not document:
            self._pending = None  # another key edited or moved the cursor meanwhile
            return False
        return True

    def take(self) -> bool:
        assert self._pending is not None
        forward = self._pending[0]
        self._pending = None
        return forward


def _jump_to_char(buffer: Buffer, char: str, forward: bool, count: int) -> None:
    if forward:
        found = buffer.document.find(char, in_current_line=False, count=count)
    else:
        found = buffer.document.find_backwards(char, in_current_line=False, count=count)
    if found is not None:
        buffer.cursor_position += found


#: The session actions pi lets users bind (no default keys): each runs its slash command.
_SESSION_ACTIONS = {
    "app.session.new": "/new",
    "app.session.tree": "/tree",
    "app.session.fork": "/fork",
    "app.session.resume": "/resume",
}


def _command_key(mode: InteractiveMode, command: str) -> KeyHandler:
    def handler(event: KeyPressEvent) -> None:
        mode.spawn(_run_builtin(mode, command))

    return handler


def _shortcut_handler(mode: InteractiveMode, spec: ShortcutSpec) -> Callable[[KeyPressEvent], None]:
    async def call() -> None:
        from pi_core.plugins.dispatch import CURRENT_HANDLER

        acting = (spec.plugin, f"shortcut {spec.key}")
        CURRENT_HANDLER.set(acting)  # this task's own context: ctx.ui calls are the plugin's
        ctx = mode.host.session.extension_context(acting=acting)
        result = spec.handler(ctx)
        if asyncio.iscoroutine(result):
            await result

    def handler(event: KeyPressEvent) -> None:
        mode.spawn(call())

    return handler


async def _next_model(mode: InteractiveMode, *, backward: bool = False) -> None:
    cycled = await mode.host.session.cycle_model(backward=backward)
    if cycled is None:
        mode.console.print(Text("Only one model available", style="pi.warning"))
        return
    model, level, _ = cycled
    suffix = f" (thinking {level})" if model.reasoning else ""
    mode.console.print(Text(f"Model: {model.provider}/{model.id}{suffix}", style="pi.dim"))


async def _paste_clipboard_image(mode: InteractiveMode, buffer: Buffer) -> None:
    """Ctrl+V: the clipboard's image goes to a temporary file whose path is typed into the editor,
    as pi does; the model reads it with the read tool."""
    from pi_core.modes.interactive.clipboard import read_clipboard_image

    image = await read_clipboard_image()
    if image is None:
        mode.console.print(
            Text("No image in the clipboard (text pastes with the terminal's paste)", style="pi.dim")
        )
        return
    data, kind = image
    suffix = "." + kind.split("/")[1].replace("jpeg", "jpg")
    path = await asyncio.to_thread(_write_temp, data, suffix)
    buffer.insert_text(path)


async def _copy_text(mode: InteractiveMode, text: str) -> None:
    from pi_core.modes.interactive.clipboard import copy_to_clipboard

    terminal = mode.console.file if mode.console.is_terminal else None
    if text and await copy_to_clipboard(text, terminal):
        mode.console.print(Text(f"Copied {len(text)} character(s)", style="pi.dim"))


def _write_temp(data: bytes, suffix: str) -> str:
    directory = tempfile.gettempdir()
    path = os.path.join(directory, f"pi-clipboard-{uuid.uuid4()}{suffix}")
    with open(path, "wb") as handle:
        handle.write(data)
    return path


async def _run_builtin(mode: InteractiveMode, text: str) -> None:
    """A built-in command from a key (double Esc): echoed and run as if typed."""
    mode.echo(text)
    await mode.commands.handle(text)
