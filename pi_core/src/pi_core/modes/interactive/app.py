"""The REPL loop: read the editor, run prompts in the background, steer while they run.

A prompt starts a run as a background task and the editor comes straight back: Enter then steers
the run, Alt+Enter queues a follow-up, Esc or Ctrl+C aborts it. Output goes through a rich console;
on a real terminal a stdout proxy (:func:`output_above_editor`) keeps it above the editor. Plugin
dialogs pause the editor (``dialog``) and hand it back with its text afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO, TypeVar, cast

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, DynamicCompleter
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples, to_formatted_text
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import DynamicKeyBindings, KeyBindings, KeyPress
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import StdoutProxy
from prompt_toolkit.styles import DynamicStyle
from rich.console import Console
from rich.text import Text

from pi_core.modes.interactive.bindings import build_key_bindings
from pi_core.modes.interactive.commands import BuiltinCommands
from pi_core.modes.interactive.completion import GuardedCompleter, SlashCompleter
from pi_core.modes.interactive.dialogs import ask
from pi_core.modes.interactive.editor_echo import EditorEcho
from pi_core.modes.interactive.editor_slot import EditorControl, EditorSlot
from pi_core.modes.interactive.keymap import default_keymap, load_keymap
from pi_core.modes.interactive.paste import Pastes
from pi_core.modes.interactive.picker import PickerKeys, Selector, pick
from pi_core.modes.interactive.program_status import Blocked, ProgramStatus
from pi_core.modes.interactive.render import EventRenderer, prompt_line
from pi_core.modes.interactive.row_division import share_rows_in_one_pass
from pi_core.modes.interactive.sanitize import sanitize
from pi_core.modes.interactive.screen_rows import set_mouse_handlers_by_row, skip_unchanged_rows
from pi_core.modes.interactive.styles import ReplStyles, styles_for
from pi_core.modes.interactive.ui import InteractiveUI
from pi_core.runtime.events import ExtensionErrorEvent
from pi_core.runtime.themes import Theme

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from pi_core.ai.abort import AbortSignal
    from pi_core.modes.interactive.custom import ComponentKeys
    from pi_core.modes.interactive.external_editor import Edited, ExternalEditor
    from pi_core.modes.interactive.overlay import OverlayRequest
    from pi_core.modes.interactive.terminal_colors import Question, TerminalColours
    from pi_core.runtime.colors import ColorMode
    from pi_core.runtime.host import RuntimeHost

T = TypeVar("T")

#: What the editor returns when a dialog took the terminal over (the text is kept and restored).
_PAUSED = "\x00paused"
HISTORY_FILE = "prompt-history"
#: Seconds the input parser waits after an Esc byte for the rest of an escape sequence, on a
#: local terminal and over SSH (where the bytes of one key may arrive apart); pi 1.6.0's waits.
ESCAPE_WAIT = 0.010
SSH_ESCAPE_WAIT = 0.100
#: Seconds the key processor waits after a complete key for the next one of a longer binding
#: (Alt+X is Esc then X). None at all: our only longer bindings are Alt ones, whose bytes a terminal
#: sends in one write, so the parser has both keys at once, or took Esc alone already.
SEQUENCE_WAIT = 0.0
#: How long prompt-toolkit may hold a redraw back while other callbacks are ready to run: none.
#: Its default (10 ms) lets a busy loop go first, and while an answer streams the loop is busy
#: with its chunks, so the redraw showing a typed key waited behind them. Output redraws are paced
#: by the REPL itself (:data:`LIVE_REFRESH`, the fullscreen mode's interval).
RENDER_POSTPONE = None
#: Seconds between two writes above the editor (each one redraws the editor below it): output
#: arriving meanwhile goes in the next write, as the fullscreen mode paces its redraws.
OUTPUT_PAUSE = 0.03
#: Seconds between two redraws for the block being streamed or a running tool's output: tokens
#: arriving faster are drawn together (one redraw per token kept the loop busy redrawing, and a
#: key waited behind those redraws); a key redraws at once, with what has arrived.
LIVE_REFRESH = 0.05
#: Laid out once while the first prompt is typed: paragraphs, emphasis, a list, inline code (a
#: fenced block would import pygments, a 0.1 s step the loop cannot split).
_MARKDOWN_SAMPLE = "Ready *to* **go**:\n\n- one `two`\n"


class InteractiveMode:
    """One REPL over a runtime host; ``console``/``input``/``output`` are injectable for tests."""

    #: Whether pi's ``tui.altScreen.*`` keys act (the fullscreen transcript's).
    transcript_keys = False

    def __init__(
        self,
        host: RuntimeHost,
        *,
        console: Console | None = None,
        input: Input | None = None,
        output: Output | None = None,
        history_file: Path | None = None,
        verbose: bool = False,
    ) -> None:
        self.host = host
        #: ``--verbose``: the start-up header even with the ``quietStartup`` setting.
        self.verbose = verbose
        self._own_terminal = console is None
        skip_unchanged_rows()  # a key's redraw writes the rows it changed, without reading the rest
        share_rows_in_one_pass()  # and lays the rows out without handing them out one by one
        set_mouse_handlers_by_row()  # and gives windows their mouse handlers a row at a time
        self.ui = InteractiveUI(self)
        self.console = console or terminal_console(self.ui.colour_mode)
        self.terminal: dict[str, Any] = {"input": input, "output": output}
        self._history_file = history_file
        #: The editor's place: the built-in editor or a plugin's (``set_editor_component``).
        self.editor_slot = EditorSlot(self)
        self._editor_control: EditorControl | None = None
        #: Draws typed characters by redrawing the editor's window alone.
        self._editor_echo: EditorEcho | None = None
        #: The styles the console was last given (:meth:`apply_theme`).
        self._applied_styles: ReplStyles | None = None
        self._applied_styles_pushed = False
        self._theme_problems: set[str] = set()
        self._theme_watch: asyncio.Task[None] | None = None
        self._branch_watch: asyncio.Task[None] | None = None
        self.commands = BuiltinCommands(self)
        #: Big pastes held aside while their markers stand in the editor.
        self.pastes = Pastes()
        self.renderer = EventRenderer(
            self.console,
            lambda: self.host.services.tools,
            self._tool_context,
            lambda: self.host.plugins.message_renderers,
            tool_renderers=lambda: self.host.plugins.tool_renderers,
            entry_renderers=lambda: self.host.plugins.entry_renderers,
            markdown_transformers=lambda: self.host.plugins.markdown_transformers,
            tool_owner=lambda name: self.host.plugins.tool_owners.get(name),
            report_error=self._report_render_error,
        )
        #: The editor's keys: the REPL's own plus plugin shortcuts, rebuilt when plugins reload.
        self._key_bindings = KeyBindings()
        self.keymap = default_keymap()
        self._plugins_of: object = None
        self.renderer.on_live_change = self._live_changed
        self._live_timer: asyncio.TimerHandle | None = None
        #: OSC 7501 reports to the terminal (working, blocked on a dialog, done, …).
        self.program_status = ProgramStatus(self._write_terminal, lambda: self.host.session.session_name)
        self._status_unsubscribe: Callable[[], None] | None = None
        #: What the dialogs and components in the editor's place wait for, the one shown last.
        self._waiting: list[tuple[object, Blocked | None]] = []
        #: When the live block was last drawn (``time.monotonic``).
        self._live_at = 0.0
        self._unsubscribe: Callable[[], None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._task_started = 0.0
        self._held: list[str] = []
        self._quit = False
        #: Set by Alt+Enter: the text being submitted is a follow-up, not a steer.
        self.follow_up_next = False
        self._editor: PromptSession[str] | None = None
        self._editor_free = asyncio.Event()
        self._editor_free.set()
        self._no_dialog = asyncio.Event()
        self._no_dialog.set()
        self._dialogs = 0
        self._restore_text = ""
        self._aborting: asyncio.Task[None] | None = None
        #: The session's ``load_issues`` list last shown, and how many of it were shown.
        self._issues_seen: tuple[object, int] = (None, 0)
        self._dialog_lock = asyncio.Lock()
        self._side_tasks: set[asyncio.Task[None]] = set()
        self._status_cache: tuple[int, float, list[str]] | None = None
        #: The toolbar's last text and its fragments (see _styled_toolbar).
        self._toolbar_fragments: tuple[str, StyleAndTextTuples] | None = None
        #: The working row's key hints, and the keymap and wording they were made for.
        self._run_hints: tuple[object, tuple[tuple[str, str], ...], list[str]] | None = None
        #: The footer's figures and what they were worked out from (:meth:`footer_text`).
        self._footer_cache: tuple[tuple[object, ...], str, tuple[object, ...]] | None = None
        #: The git branch of the working directory, read in a thread after each job.
        self.git_branch: str | None = None
        self._completer: Completer | None = None
        #: While plugins start (inline mode): what they print waits until the header is out.
        self._startup_capture = False
        #: The questions to a real terminal about its colours (``None``: not a terminal).
        self.colours: TerminalColours | None = None
        self._colour_question: Question | None = None
        #: The theme of the terminal's latest answer, being made (:meth:`terminal_colours_changed`).
        self._theme_making: asyncio.Future[None] | None = None
        self._editor_started = False
        #: Start-up is over: plugins have started and what is typed is handled (in fullscreen
        #: the editor runs before that).
        self.started_up = False

    # --- binding to the session ---------------------------------------------------------------

    async def bind(self) -> None:
        # First, so that the answer comes while the session binds; as pi, also after /reload
        # and when the session is replaced (/new, /resume, /fork), which bind again.
        self.ask_terminal_colours()
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = self.host.session.subscribe(self.renderer)
        if self._status_unsubscribe is not None:
            self._status_unsubscribe()
        self._status_unsubscribe = self.host.session.subscribe(self.program_status)
        self.program_status.reset()
        self._adopt_plugins()
        await self._plugins_starting()
        await self.host.bind_mode(ui=self.ui, on_error=self._report_error, mode="tui")

    async def _plugins_starting(self) -> None:
        """Plugins are about to start (``session_start``), the terminal asked for its colours:
        nothing to do here (the editor starts under the header, once they have)."""

    def show_load_issues(self) -> None:
        """Print the problems of the session file not shown yet, one line each: those found when
        it was opened, and those found later, when an entry that was only scanned then is first
        read (the context of a prompt, ``/tree``, ``/session``)."""
        issues = self.host.session.session_manager.load_issues
        seen, count = self._issues_seen
        start = count if seen is issues else 0
        for issue in issues[start:]:
            self.console.print(Text(str(issue), style="pi.warning"), soft_wrap=True)
        self._issues_seen = (issues, len(issues))

    def _report_error(self, error: ExtensionErrorEvent) -> None:
        self.renderer(error)

    def custom_entries(self) -> list[Any]:
        """The branch's ``custom`` entries, when a plugin draws some (replayed with the messages)."""
        if not self.renderer.custom_entries_wanted():
            return []
        return self.host.session.session_manager.get_branch(types=("custom",))

    def _report_render_error(self, plugin: str, part: str, error: BaseException) -> None:
        """A plugin's renderer failed while a block was laid out: reported after the layout (a
        line printed from inside one would land in the middle of it)."""

        def report() -> None:
            self.host.session.report_plugin_error(plugin, part, error)

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            report()
        else:
            loop.call_soon(report)

    def _tool_context(self) -> Any:
        return self.host.session.extension_context()

    # --- state ----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def request_quit(self) -> None:
        self._quit = True
        editor = self._editor
        if editor is not None:
            _exit_app(editor.app, "")

    def _check_shutdown(self) -> None:
        """A plugin called ``ctx.shutdown()``: leave once the current job is over."""
        if self.host.shutdown_requested and not self._quit:
            self.request_quit()

    def invalidate(self) -> None:
        if self._editor is not None and self._editor.app.is_running:
            self._editor.app.invalidate()

    def _live_changed(self) -> None:
        """The block being streamed or a running tool's output grew: drawn once the interval
        since it was last drawn is over (at once after a pause, so the first token is not held)."""
        if self._live_timer is None:
            wait = max(0.0, LIVE_REFRESH - (time.monotonic() - self._live_at))
            self._live_timer = asyncio.get_running_loop().call_later(wait, self._live_due)

    def _live_due(self) -> None:
        self._live_timer = None
        self._live_at = time.monotonic()
        self.invalidate()

    def _warm_up(self) -> None:
        """The model's SDK is imported in the background while the first prompt is typed."""
        from pi_core.modes.interactive.warmup import warm_up

        model = self.host.session.model
        warm_up(model.api if model is not None else None)

    def _prepare_first_prompt(self) -> None:
        """The first prompt's one-off work, done on the loop while it is typed (see warmup)."""
        from pi_core.modes.interactive.warmup import prepare_first_prompt

        model = self.host.session.model
        tools = list(self.host.services.tools.values())
        idle = lambda: not self.busy  # noqa: E731
        self.spawn(prepare_first_prompt(model.api if model else None, tools, self.lay_out_sample, idle))

    async def _warm_key_lookups(self) -> None:
        """Once the editor is up, look the printable keys' bindings up ahead of their first press
        (see TappedKeyProcessor.warm_lookups), a few keys per turn of the loop."""
        from pi_core.modes.interactive.custom import PRINTABLE_KEYS, TappedKeyProcessor

        for _ in range(100):  # the editor's application starts running within a few turns
            await asyncio.sleep(0.05)
            app = self._editor_app()
            if app is not None and app.is_running:
                break
        else:
            return
        processor = app.key_processor
        if not isinstance(processor, TappedKeyProcessor) or not self.editor_focused():
            return
        for start in range(0, len(PRINTABLE_KEYS), 8):
            processor.warm_lookups(PRINTABLE_KEYS[start : start + 8])
            await asyncio.sleep(0)

    def lay_out_sample(self) -> None:
        """Lay a small markdown block out as answers are (to a throwaway console here)."""
        import io

        from rich.markdown import Markdown

        sample = Console(file=io.StringIO(), width=self.console.size.width, force_terminal=True)
        sample.print(Markdown(_MARKDOWN_SAMPLE))

    def refresh_status(self) -> None:
        """Read the git branch again (in a thread) and redraw the status line."""

        async def read() -> None:
            self.git_branch = await asyncio.to_thread(_git_branch, self.host.session.cwd)
            self._status_cache = None
            self.invalidate()

        self._status_cache = None
        self._warm_up()  # a model chosen since: its SDK too
        self.spawn(read())

    def _ask_program_status(self) -> None:
        """Whether the terminal takes OSC 7501 reports: asked only of a real terminal, whose
        answer the colour questions' filter takes out of the keys and passes on."""
        if self.colours is not None:
            self.colours.answers.on_program_status = self.program_status.supported
            self.program_status.query()
        elif self.program_status.setting == "1":
            self.program_status.report()

    def _write_terminal(self, data: str) -> None:
        """Control sequences for the terminal itself (program status), past any output proxy."""
        if self._own_terminal:
            stream = sys.__stdout__
            if stream is not None and stream.isatty():
                stream.write(data)
                stream.flush()
            return
        output = self.terminal.get("output")
        if output is not None:
            output.write_raw(data)
            output.flush()

    def waiting(self, token: object, blocked: Blocked | None) -> None:
        """A dialog or component (``token``) is now shown in the editor's place, waiting for what
        ``blocked`` says (``None``: for nothing that counts as blocking the run)."""
        self._waiting = [entry for entry in self._waiting if entry[0] is not token]
        self._waiting.append((token, blocked))
        self.program_status.set_blocked("dialog", blocked)

    def done_waiting(self, token: object) -> None:
        """It is gone: the one shown under it, if any, is what the terminal hears of."""
        self._waiting = [entry for entry in self._waiting if entry[0] is not token]
        self.program_status.set_blocked("dialog", self._waiting[-1][1] if self._waiting else None)

    @contextlib.contextmanager
    def shown_waiting(self, blocked: Blocked | None) -> Iterator[None]:
        token = object()
        self.waiting(token, blocked)
        try:
            yield
        finally:
            self.done_waiting(token)

    async def _watch_branch(self) -> None:
        """Until cancelled: the git branch read again every :data:`BRANCH_POLL` seconds (a few
        small reads in a thread), so a checkout made elsewhere shows in the footer, as pi's
        footer follows ``.git/HEAD``."""
        while True:
            await asyncio.sleep(BRANCH_POLL)
            branch = await asyncio.to_thread(_git_branch, self.host.session.cwd)
            if branch != self.git_branch:
                self.git_branch = branch
                self._status_cache = None
                self.invalidate()

    def set_title(self, text: str) -> None:
        if self.console.is_terminal:
            self.console.file.write(f"\x1b]0;{text}\x07")
            self.console.file.flush()

    def redraw(self) -> None:
        """Draw the transcript again from the session (after /tree, /resume, /fork, /import): on a
        terminal the screen and its scrollback are cleared first, so the conversation shows once,
        in place, as it looked live — not as a second, poorer copy under the first."""
        if self.console.is_terminal:
            self.console.file.write("\x1b[H\x1b[2J\x1b[3J")
            self.console.file.flush()
            self._print_header()
        self.renderer.replay(self.host.session.messages, self.custom_entries())

    def editor_buffer(self) -> Buffer | None:
        """The buffer of the prompt being typed (``None`` before the editor exists)."""
        return self._editor.default_buffer if self._editor is not None else None

    def set_editor_text(self, text: str) -> None:
        """Replace the editor's text (pastes held for its markers are dropped, as pi)."""
        self.pastes.clear()
        if self.editor_slot.set_text(text):
            return
        if self._editor is not None and self._editor.app.is_running:
            self._editor.default_buffer.text = text
            self._editor.default_buffer.cursor_position = len(text)
        else:
            self._restore_text = text

    def get_editor_text(self) -> str:
        """The editor's text with big pastes in place of their markers."""
        own = self.editor_slot.get_text()
        if own is not None:
            return own
        if self._editor is not None and self._editor.app.is_running:
            return self.pastes.expand(self._editor.default_buffer.text)
        return self.pastes.expand(self._restore_text)

    # --- the loop -------------------------------------------------------------------------------

    async def run(self, initial: str | None, images: list[Any], messages: list[str]) -> int:
        from pi_core.modes.interactive.custom import quiet_cpr_warning

        quiet_cpr_warning()
        with _keys_held_raw() if self._own_terminal else contextlib.nullcontext():
            self._meet_terminal()
            try:
                if self.colours is not None:
                    self.colours.ask_for_key_reports()  # Shift+Enter and the like, as pi asks
                return await self._run(initial, images, messages)
            finally:
                if self.colours is not None:
                    kitty = self.colours.stop_key_reports()
                    self.colours.notify(False)
                    self.colours.stop_reading()
                    if kitty:
                        from pi_core.modes.interactive.keyboard_protocol import drain

                        # kitty's releases of the keys that quit stay out of the shell
                        await asyncio.to_thread(drain, sys.stdin.fileno())

    # --- the terminal's colours (the system theme) --------------------------------------------

    def _meet_terminal(self) -> None:
        """On a real terminal, keys are read through an input that takes the terminal's answers
        to the colour question out (:mod:`.terminal_colors`)."""
        if not (self._own_terminal and self.terminal["input"] is None):
            return
        if sys.platform == "win32" or not (sys.stdin.isatty() and sys.stdout.isatty()):
            return
        from pi_core.modes.interactive.terminal_colors import TerminalColours

        self.colours = TerminalColours(self.terminal_colours_changed, sys.stdin, sys.stdout)
        self.colours.on_scheme = self._terminal_scheme_changed
        self.terminal["input"] = self.colours.input

    def ask_terminal_colours(self) -> None:
        """Ask the terminal for its colours again (they arrive while the editor reads keys)."""
        if self.colours is not None:
            self._colour_question = self.colours.ask(read=not self._editor_started)

    async def terminal_colours_answered(self) -> None:
        """Until the terminal answered the colour question (:data:`WAIT` seconds at most) and
        the theme made of the answer is ready."""
        if self.colours is not None and self._colour_question is not None:
            await self.colours.wait(self._colour_question)
        if self._theme_making is not None:
            await asyncio.shield(self._theme_making)

    def terminal_colours_changed(self) -> None:
        """The terminal reported other colours: the theme that follows it is made again — in a
        thread, since a background near mid-grey takes the generator a tenth of a second or more
        — and drawn with once it is ready."""
        from pi_core.runtime import system_theme

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.ui.terminal_changed()
            return

        async def make() -> None:
            if self.ui.follows_terminal():
                with contextlib.suppress(Exception):  # made (and reported) on the loop instead
                    await asyncio.to_thread(system_theme.current)
            self.ui.terminal_changed()

        task = self._theme_making = asyncio.ensure_future(make())
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    def _terminal_scheme_changed(self, scheme: Literal["dark", "light"]) -> None:
        """The terminal turned light or dark: its colours changed too, so ask for them."""
        from pi_core.runtime import system_theme

        before = system_theme.appearance_now()
        system_theme.report_scheme(scheme)
        if system_theme.appearance_now() != before:
            self.ui.terminal_changed()
        self.ask_terminal_colours()

    def lend_terminal(self) -> None:
        """Another program gets the terminal (an external editor, the shell after Ctrl+Z): the
        terminal's light/dark reports and its extended key reports stop until it comes back."""
        if self.colours is not None:
            self.colours.notify(False)
            self.colours.stop_key_reports()

    def terminal_returned(self) -> None:
        self._follow_terminal()
        if self.colours is not None:
            self.colours.ask_for_key_reports()

    def external_editor(self) -> ExternalEditor:
        """The external editor (``app.editor.external``) as the settings and keys have it now."""
        from pi_core.modes.interactive.external_editor import ExternalEditor, edit_externally, editor_command

        command = editor_command(self.host.session.settings.settings.external_editor)

        async def edit(text: str) -> Edited:
            self.lend_terminal()
            try:
                return await edit_externally(command, text)
            finally:
                self.terminal_returned()

        keys = self.keymap.sequences("app.editor.external")
        return ExternalEditor(keys, self.keymap.text("app.editor.external"), edit)

    async def copy_message(self) -> None:
        """``app.message.copy`` (Ctrl+X): the last answer, as ``/copy``."""
        await self.commands.cmd_copy("")

    async def edit_externally(self) -> None:
        """Ctrl+G: the editor's text (big pastes in full) edited in the external editor, then back
        in the editor; when that fails, the text stays and a line says why."""
        edited = await self.external_editor().edit(self.get_editor_text())
        if edited.text is not None:
            self.set_editor_text(edited.text)
        elif edited.problem:
            self.console.print(Text(edited.problem, style="pi.warning"))

    def _follow_terminal(self) -> None:
        """The terminal's light/dark notifications are wanted while the theme follows it."""
        if self.colours is not None:
            self.colours.notify(self.ui.follows_terminal())

    async def _run(self, initial: str | None, images: list[Any], messages: list[str]) -> int:
        self.host.on_session_replaced(self.bind)
        self.renderer.hide_thinking = self.host.session.settings.settings.hide_thinking_block
        self.apply_theme()
        self._watch_theme()
        self._branch_watch = asyncio.create_task(self._watch_branch())
        await self._start_plugins()
        self.show_load_issues()
        self._warm_up()
        self._prepare_first_prompt()
        if initial is not None or images or messages:
            self.start_task(self._prompt_sequence(initial, images, messages))
        self._start_editor()
        self.spawn(self._warm_key_lookups())
        self._ask_program_status()
        self.refresh_status()
        self.started_up = True
        context = output_above_editor() if self._own_terminal else contextlib.nullcontext()
        with context:
            while not self._quit:
                text = await self._read()
                if text is None:
                    break
                await self.handle_input(text)
                self._check_shutdown()
        await self._shutdown()
        return 0

    async def _start_plugins(self) -> None:
        """Plugins start (``session_start``) with the REPL's UI; the header and the resumed
        conversation come out first. Output cannot be redrawn here, so what plugins print while
        starting is held back until the header — which a plugin may replace (``set_header``) —
        is printed; a dialog they open releases it early."""
        self._startup_capture = True
        self.console.begin_capture()
        try:
            await self.bind()
            await self.terminal_colours_answered()  # the header is drawn in the terminal's colours
        finally:
            self._release_startup_output()

    def _release_startup_output(self) -> None:
        if not self._startup_capture:
            return
        self._startup_capture = False
        held = self.console.end_capture()
        self._print_opening()
        if held:
            self.console.file.write(held)
            self.console.file.flush()

    def _print_opening(self) -> None:
        """The header, the conversation of a resumed session, and a note when there is no model."""
        self._print_header()
        if self.host.session.messages:
            self.renderer.replay(self.host.session.messages, self.custom_entries())  # --continue / --session
        if self.host.session.model is None:
            from pi_core.runtime.auth_guidance import repl_no_model_notice

            self.console.print(
                Text(repl_no_model_notice(self.host.services.model_registry), style="pi.warning")
            )

    # --- plugin components ---------------------------------------------------------------------

    def terminal_size(self) -> tuple[int, int]:
        """The terminal's columns and rows."""
        editor = self._editor
        if editor is not None:
            size = editor.app.output.get_size()
            return size.columns, size.rows
        return self.console.size.width, self.console.size.height

    def header_changed(self) -> None:
        """A plugin replaced the header: shown from the next time it is printed (start-up holds
        its output back until plugins have started, so ``session_start`` is in time)."""

    @property
    def completer(self) -> Completer:
        """The editor's completer: the built-in one wrapped by each plugin's provider in turn."""
        if self._completer is None:
            completer: Completer = SlashCompleter(self)
            for factory, plugin in self.ui.autocomplete:
                try:
                    completer = GuardedCompleter(factory(completer), completer, plugin, self)
                except Exception as error:
                    self.host.session.report_plugin_error(plugin, "ui.add_autocomplete_provider", error)
            self._completer = completer
        return self._completer

    async def show_component(
        self,
        factory: Callable[..., Any],
        theme: Any,
        keys: ComponentKeys,
        overlay: bool,
        request: OverlayRequest | None = None,
    ) -> Any:
        """A plugin's component in place of the editor until it is done (``overlay`` too: printed
        output cannot be drawn over, so the overlay's ``request`` — placement, handle — has
        nothing to act on); its value. Raises what the component raised."""
        from pi_core.modes.interactive.custom import run_custom

        async def run() -> Any:
            return await run_custom(factory, theme, size=self.terminal_size, keys=keys, **self.terminal)

        return await self.dialog(run, request.blocked if request is not None else None)

    def theme_changed(self) -> None:
        """Another theme: what is drawn from now on uses it."""
        self.apply_theme()

    # --- the theme ----------------------------------------------------------------------------

    @property
    def styles(self) -> ReplStyles:
        """The current theme's styles (made once per theme; a plugin's own theme object that is
        not one of ours leaves the REPL's colours to ``system``'s theme)."""
        theme = self.ui.theme
        if not isinstance(theme, Theme):
            from pi_core.runtime import themes

            theme = themes.load(themes.SYSTEM, [], self.ui.colour_mode)
        return styles_for(theme)

    def apply_theme(self) -> None:
        """Draw with the current theme: the console's styles (and the transcript's, fullscreen)."""
        styles = self.styles
        if styles is self._applied_styles:
            return
        self._applied_styles = styles
        self._use_styles(styles)
        self._follow_terminal()
        self.invalidate()

    def _use_styles(self, styles: ReplStyles) -> None:
        """What is printed from now on takes these styles (output already above the editor
        stays as it was drawn: the terminal holds it)."""
        if self._applied_styles_pushed:
            self.console.pop_theme()
        self.console.push_theme(styles.rich)
        self._applied_styles_pushed = True
        if self._editor is not None:
            self._editor.color_depth = styles.color_depth

    def report_theme_problem(self, message: str) -> None:
        """Why the named theme is not used, once (a file start-up already reported is not
        reported again); printed after the current redraw, since the theme is read while drawing."""
        reported = {diagnostic.message for diagnostic in self.host.diagnostics}
        if message in self._theme_problems or message in reported:
            return
        self._theme_problems.add(message)

        def show() -> None:
            self.console.print(Text(f"{message}; using the {self.ui.theme.name} theme", style="pi.warning"))

        try:
            asyncio.get_running_loop().call_soon(show)
        except RuntimeError:
            show()

    def _watch_theme(self) -> None:
        """Read the active user theme again when its file changes (as pi)."""
        from pi_core.modes.interactive.theme_watch import watch_theme

        def current() -> str | None:
            theme = self.ui.theme
            return theme.name if isinstance(theme, Theme) and theme.path is not None else None

        agent_dir = self.host.options.agent_dir
        watch = watch_theme(current, agent_dir, lambda: self.ui.colour_mode, self.ui.reload_theme)
        self._theme_watch = asyncio.create_task(watch)

    def _prompt_fragments(self) -> StyleAndTextTuples:
        return [(self.prompt_style(), self._prompt_message())]

    def prompt_style(self) -> str:
        """The prompt's colour: the thinking level's, or bash mode's while the text is a ``!``
        command (pi colours the editor's border the same way)."""
        buffer = self.editor_buffer()
        styles = self.styles
        if buffer is not None and buffer.text.startswith("!"):
            colour = styles.fg["bashMode"]
        else:
            colour = styles.thinking_border(self.host.session.thinking_level)
        return f"bold {colour}"

    def completer_changed(self) -> None:
        self._completer = None

    def _editor_app(self) -> Any:
        editor = self._editor
        return editor.app if editor is not None else None

    def echo_typed(self, app: Any) -> bool:
        """Draw the characters just typed by redrawing the editor alone (see editor_echo), a
        plugin's editor too (its rows are the editor window's): ``False`` when the editor has no
        focus or completions are shown, or the layout has to be drawn again anyway."""
        echo, control = self._editor_echo, self._editor_control
        if echo is None or control is None:
            return False
        if control.buffer.complete_state is not None or not self.editor_focused():
            return False
        return echo.redraw(app)

    def editor_focused(self) -> bool:
        """Whether keys go to the editor now (not to the search bar or a floating component)."""
        app = self._editor_app()
        return (
            app is not None
            and self._editor_control is not None
            and (app.layout.current_control is self._editor_control)
        )

    def paste_to_editor(self, text: str) -> None:
        """``text`` into the editor as a bracketed paste (the editor's paste handling applies)."""
        app = self._editor_app()
        if app is None or not app.is_running:
            self._restore_text += text
            return
        from pi_core.modes.interactive.custom import TappedKeyProcessor

        processor = app.key_processor
        press = KeyPress(Keys.BracketedPaste, text)
        if isinstance(processor, TappedKeyProcessor):
            processor.feed_untapped(press)  # a paste from a plugin is not terminal input
        else:
            processor.feed(press)
        processor.process_keys()

    def terminal_input(self, data: str) -> str | None:
        """Run the plugins' ``on_terminal_input`` handlers over one key's bytes: ``None`` when one
        consumed it, else the data (as the last handler left it)."""
        for entry in list(self.ui.input_handlers):
            handler, plugin = entry
            try:
                answer = handler(data)
            except Exception as error:
                if entry in self.ui.input_handlers:
                    self.ui.input_handlers.remove(entry)
                self.host.session.report_plugin_error(plugin, "ui.on_terminal_input", error)
                continue
            if isinstance(answer, dict):
                if answer.get("consume"):
                    return None
                if isinstance(answer.get("data"), str):
                    data = answer["data"]
        return data

    def _tap_input(self, app: Any) -> None:
        """Route the application's key presses through :meth:`terminal_input` first."""
        from pi_core.modes.interactive.custom import TappedKeyProcessor

        app.key_processor = TappedKeyProcessor(app.key_processor, self)

    async def _read(self) -> str | None:
        """The next submitted text; ``None`` to quit (Ctrl+D, double Ctrl+C, /quit)."""
        assert self._editor is not None
        while True:
            # Re-check: a dialog may have started between the event being set and this task waking.
            while not self._no_dialog.is_set():
                await self._no_dialog.wait()
            if self._quit:
                return None
            default, self._restore_text = self._restore_text, ""
            self._editor_free.clear()
            try:
                text = await self._editor.prompt_async(default=default)
            except (EOFError, KeyboardInterrupt):
                return None
            finally:
                self._editor_free.set()
            if text != _PAUSED:
                return text

    async def _shutdown(self) -> None:
        self.ui.stop_ticker()
        for watch in (self._theme_watch, self._branch_watch):
            if watch is not None:
                watch.cancel()
        if self.busy:
            await self.host.session.abort()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._status_unsubscribe is not None:
            self._status_unsubscribe()
        self.program_status.clear()
        await self.host.dispose()

    async def handle_input(self, raw: str) -> None:
        try:
            await self._handle_input(raw)
        finally:
            self.show_load_issues()

    async def _handle_input(self, raw: str) -> None:
        text = raw.strip()
        follow_up, self.follow_up_next = self.follow_up_next, False
        if not text:
            return
        if text.startswith("!"):
            self.echo(text)
            await self._bash(text)
            return
        if text.startswith("/"):
            self.echo(text)
            if await self.commands.handle(text):
                return
        if not self.busy:
            self.start_task(self._prompt_sequence(text, [], []))
            return
        session = self.host.session
        if not session.is_streaming:
            self._held.append(text)  # the run has not reached the agent yet; send it after
            self.console.print(Text(f"Queued: {text}", style="pi.dim"))
            return
        await self._report(session.prompt(text, streaming_behavior="followUp" if follow_up else "steer"))

    def echo(self, text: str) -> None:
        self.console.print(prompt_line(Text(text, style="pi.userMessageText")))

    async def _bash(self, text: str) -> None:
        exclude = text.startswith("!!")
        command = text[2:] if exclude else text[1:]
        if not command.strip():
            self.console.print(Text("Usage: !command or !!command", style="pi.warning"))
            return
        if self.busy and not self.host.session.is_streaming:
            self.console.print(Text("Wait for the current command to finish", style="pi.warning"))
            return

        async def run() -> None:
            outcome = await self.host.session.execute_bash(command, exclude_from_context=exclude)
            if outcome.output:
                self.console.print(Text(sanitize(outcome.output.rstrip("\n")), style="pi.toolOutput"))
            if outcome.cancelled:
                self.console.print(Text("Command cancelled", style="pi.warning"))
            elif outcome.exit_code:
                self.console.print(Text(f"Exit code {outcome.exit_code}", style="pi.warning"))
            if outcome.full_output_path:
                self.console.print(Text(f"Full output: {outcome.full_output_path}", style="pi.dim"))

        if self.busy:
            await self._report(run())  # alongside a run: its result joins before the next prompt
        else:
            self.start_task(run(), footer=False)

    async def _prompt_sequence(self, first: str | None, images: list[Any], rest: list[str]) -> None:
        session = self.host.session
        queue: list[tuple[str, list[Any]]] = []
        if first is not None or images:
            queue.append((first or "", images))
        queue.extend((m, []) for m in rest)
        while queue:
            text, pics = queue.pop(0)
            await session.prompt(text, images=pics)
            queue.extend((held, []) for held in self._held)
            self._held.clear()

    def start_task(self, work: Coroutine[Any, Any, Any], *, footer: bool = True) -> None:
        """Run ``work`` in the background as the REPL's current job (Esc/Ctrl+C abort it)."""

        async def job() -> None:
            try:
                await self._report(work)
                if footer:
                    self._print_footer()
            finally:
                self.show_load_issues()
                self._check_shutdown()
                self.refresh_status()
            if self._held and not self._quit:
                # Typed while a compaction or command ran: send now, as pi does after compaction.
                held, self._held = list(self._held), []
                self.start_task(self._prompt_sequence(held[0], [], held[1:]))

        self._task_started = time.monotonic()
        self._task = asyncio.create_task(job())
        self.ui.start_ticker()
        self.invalidate()

    async def _report(self, work: Awaitable[Any]) -> None:
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the session stays usable; the user sees why
            self.console.print(Text(f"Error: {error}", style="pi.error"))

    async def abort(self) -> None:
        """Abort the run, user bash or compaction; queued messages come back to the editor."""
        session = self.host.session
        steering, follow_up = session.clear_queue()
        queued = [*self._held, *steering, *follow_up]
        self._held.clear()
        session.abort_bash()
        await session.abort()
        if queued:
            current = self.get_editor_text()
            self.set_editor_text("\n".join([*queued, current] if current else queued))

    def restore_queue(self) -> None:
        """Alt+Up: queued messages come back into the editor, the run goes on."""
        steering, follow_up = self.host.session.clear_queue()
        queued = [*self._held, *steering, *follow_up]
        self._held.clear()
        if not queued:
            self.console.print(Text("No queued messages to restore", style="pi.dim"))
            return
        current = self.get_editor_text()
        self.set_editor_text("\n".join([*queued, current] if current else queued))
        self.console.print(Text(f"Restored {len(queued)} queued message(s) to editor", style="pi.dim"))

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` from a key handler, reporting its errors; kept referenced until done."""
        task = asyncio.create_task(self._report(work))
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    def abort_soon(self) -> None:
        """Start :meth:`abort` from a key handler (which cannot await)."""
        if self._aborting is None or self._aborting.done():
            self._aborting = asyncio.create_task(self.abort())

    # --- dialogs ---------------------------------------------------------------------------------

    async def dialog(self, run: Callable[[], Awaitable[T]], blocked: Blocked | None = None) -> T:
        """Take the terminal from the editor for ``run`` (a plugin dialog), then give it back;
        while it asks, the terminal hears that pi waits for what ``blocked`` says."""
        self._release_startup_output()  # a plugin asks while starting: the question must show
        self._dialogs += 1
        self._no_dialog.clear()
        try:
            while not self._editor_free.is_set():
                editor = self._editor
                if editor is not None and editor.app.is_running:
                    if not self._restore_text:
                        self._restore_text = editor.default_buffer.text
                    _exit_app(editor.app, _PAUSED)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._editor_free.wait(), 0.05)
            async with self._dialog_lock:  # one dialog at a time on the terminal
                with self.shown_waiting(blocked):
                    return await run()
        finally:
            self._dialogs -= 1
            if self._dialogs == 0:
                self._no_dialog.set()

    async def pick(
        self,
        title: str,
        rows: Sequence[str],
        *,
        initial: int = 0,
        extra_keys: PickerKeys | None = None,
        timeout_ms: float | None = None,
        signal: AbortSignal | None = None,
        on_highlight: Callable[[int | None], None] | None = None,
        blocked: Blocked | None = None,
    ) -> int | None:
        """An arrow-key list (:mod:`.picker`) as a dialog, in the theme's colours; once answered
        it leaves nothing in the transcript, as pi's. ``on_highlight`` hears of each row the
        highlight moves to; ``blocked`` is what the terminal hears pi waits for meanwhile (a
        plugin's question)."""
        return await self.show_picker(
            title,
            rows,
            initial=initial,
            extra_keys=extra_keys or {},
            timeout_ms=timeout_ms,
            signal=signal,
            on_highlight=on_highlight,
            blocked=blocked,
        )

    async def show_selector(self, selector: Selector) -> Any:
        """A selector (/tree, /model) in the editor's place: here, a dialog under the output."""
        return await self.dialog(lambda: selector.run(styles=lambda: self.styles, **self.terminal))

    async def show_picker(
        self,
        title: str,
        rows: Sequence[str],
        *,
        initial: int,
        extra_keys: PickerKeys,
        timeout_ms: float | None,
        signal: AbortSignal | None,
        on_highlight: Callable[[int | None], None] | None,
        blocked: Blocked | None,
    ) -> int | None:
        """The list as a dialog under the output."""

        async def run() -> int | None:
            return await pick(
                title,
                rows,
                initial=initial,
                extra_keys=extra_keys,
                timeout_ms=timeout_ms,
                signal=signal,
                style=lambda: self.styles.toolkit,
                color_depth=lambda: self.styles.color_depth,
                on_highlight=on_highlight,
                keymap=self.keymap.keys,
                **self.terminal,
            )

        return await self.dialog(run, blocked)

    async def question(
        self,
        title: str,
        *,
        message: str = "",
        prompt: str = "> ",
        default: str = "",
        placeholder: str | None = None,
        multiline: bool = False,
        secret: bool = False,
        timeout_ms: float | None = None,
        signal: AbortSignal | None = None,
        blocked: Blocked | None = None,
        external: ExternalEditor | None = None,
    ) -> str | None:
        """A plugin's question (``input``, ``editor``, a login's key) as a dialog: its title (and
        ``message``) printed, then the answer read after ``prompt``; ``None`` when cancelled.
        ``external``: the external editor a multi-line answer can be written in."""

        async def run() -> str | None:
            self.console.print(Text(title, style="bold"))
            if message:
                self.console.print(Text(message))  # not rich markup: "[/tmp]" is text
            if multiline:
                hint = "Enter finishes · Ctrl+J new line · Esc cancels"
                if external is not None and external.label:
                    hint += f" · {external.label} external editor"
                self.console.print(Text(hint, style="pi.dim"))
            return await ask(
                prompt,
                default=default,
                placeholder=placeholder,
                multiline=multiline,
                secret=secret,
                timeout_ms=timeout_ms,
                signal=signal,
                external=external,
                **self.terminal,
            )

        return await self.dialog(run, blocked)

    # --- editor ----------------------------------------------------------------------------------

    def toggle_tool_output(self) -> None:
        """Ctrl+O: tool results in full from now on (the last one again in full), or collapsed."""
        renderer = self.renderer
        renderer.expand_tools = not renderer.expand_tools
        state = "expanded" if renderer.expand_tools else "collapsed"
        self.console.print(Text(f"Tool output {state} from now on", style="pi.dim"))
        if renderer.expand_tools:
            renderer.print_last_tool_result()

    def toggle_thinking(self) -> None:
        """Ctrl+T: thinking blocks hidden or shown, and the choice saved as ``hideThinkingBlock``
        in the global settings, as pi does."""
        hidden = not self.renderer.hide_thinking
        self.set_thinking_hidden(hidden)
        self.host.session.settings.set("hideThinkingBlock", hidden)
        state = "hidden" if hidden else "visible"
        self.console.print(Text(f"Thinking blocks: {state}", style="pi.dim"))

    def set_thinking_hidden(self, hidden: bool) -> None:
        with self.redrawn_in_place():
            self.renderer.hide_thinking = hidden

    def set_hidden_thinking_label(self, label: str) -> None:
        with self.redrawn_in_place():
            self.renderer.hidden_thinking_label = label

    def redrawn_in_place(self) -> contextlib.AbstractContextManager[None]:
        """Around a change to how output already printed is drawn: here nothing (output is
        printed once, the change acts on what comes next); fullscreen draws its transcript again."""
        return contextlib.nullcontext()

    def _start_editor(self) -> None:
        self._editor_reads()
        self._editor = self._make_editor()

    def _editor_reads(self) -> None:
        """The editor reads keys from now on (and the terminal's late answers with them)."""
        self._editor_started = True
        if self.colours is not None:
            self.colours.stop_reading()

    def _make_editor(self) -> PromptSession[str]:
        history = (
            FileHistory(str(self._history_file))
            if self._history_file is not None
            else _default_history(self.host.options.agent_dir)
        )
        session: PromptSession[str] = PromptSession(
            message=self._prompt_fragments,
            style=DynamicStyle(lambda: self.styles.toolkit),
            color_depth=self.styles.color_depth,
            multiline=True,
            key_bindings=DynamicKeyBindings(lambda: self._key_bindings),
            history=history,
            completer=DynamicCompleter(lambda: self.completer),
            complete_while_typing=True,
            bottom_toolbar=self._styled_toolbar,
            erase_when_done=True,
            refresh_interval=1.0,  # the toolbar's elapsed seconds while the agent works
            prompt_continuation=lambda width, line, wrap: "." * (width - 1) + " ",
            **self.terminal,
        )
        # Esc alone aborts at once. Two waits could hold it back: the input parser's for the rest
        # of an escape sequence (ttimeoutlen) and the key processor's for a longer binding that
        # starts with Esc, such as Alt+Enter (timeoutlen, 1 s by default). A terminal sends the
        # bytes of one key in one write: a few milliseconds for the first, none for the second.
        session.app.ttimeoutlen = escape_wait()
        session.app.timeoutlen = SEQUENCE_WAIT
        session.app.max_render_postpone_time = RENDER_POSTPONE
        self._tap_input(session.app)
        self._adopt_editor_window(session)
        self._adopt_toolbar_window(session)
        return session

    def _adopt_toolbar_window(self, session: PromptSession[str]) -> None:
        """The toolbar (the block being streamed, running tools, the working row, the status
        line) is drawn by a :class:`~.screen_rows.RowsWindow`: its rows' screen cells are made
        once per row, not again at every key."""
        from prompt_toolkit.layout import ConditionalContainer, FormattedTextControl, Window, walk

        from pi_core.modes.interactive.screen_rows import RowsWindow, split_rows

        split: list[Any] = [None, []]  # the fragments last split, and their rows

        def rows(width: int) -> list[StyleAndTextTuples]:
            fragments = self._styled_toolbar()
            if fragments is None:
                return []
            if fragments is not split[0]:
                split[:] = [fragments, split_rows(fragments)]
            return split[1]

        for container in walk(session.app.layout.container):
            if not isinstance(container, ConditionalContainer):
                continue
            window = container.content
            control = window.content if isinstance(window, Window) else None
            if isinstance(control, FormattedTextControl) and control.style == "class:bottom-toolbar.text":
                container.content = RowsWindow(rows, style="class:bottom-toolbar class:bottom-toolbar.text")
                return

    def _adopt_editor_window(self, session: PromptSession[str]) -> None:
        """The prompt's buffer is drawn by an :class:`EditorControl`, so that a plugin editor's
        rows can stand in its place (without the prompt in front of them)."""
        for window in session.app.layout.find_all_windows():
            original = window.content
            if isinstance(original, BufferControl) and original.buffer is session.default_buffer:
                control = EditorControl(
                    session.default_buffer,
                    self.editor_slot,
                    input_processors=original.input_processors,
                    include_default_input_processors=False,
                    lexer=original.lexer,
                    preview_search=original.preview_search,
                    search_buffer_control=original._search_buffer_control,
                )
                window.content = control
                window.get_line_prefix = self._editor_line_prefix(window.get_line_prefix)
                self._editor_control = control
                self._editor_echo = EditorEcho(window)
                return

    def _editor_line_prefix(self, prompt_prefix: Any) -> Callable[[int, int], Any]:
        """The prompt in front of the buffer's lines, none in front of a plugin editor's rows."""
        slot = self.editor_slot

        def line_prefix(line: int, wrap: int) -> Any:
            return [] if slot.draws_rows() or prompt_prefix is None else prompt_prefix(line, wrap)

        return line_prefix

    def _prompt_message(self) -> str:
        return "… " if self.busy else "> "

    def _styled_toolbar(self) -> StyleAndTextTuples | None:
        """The toolbar as drawn: plugin statuses and widgets keep their colour escapes (all
        other text in it was sanitised). Only lines with an escape in them are parsed as ANSI:
        the parser makes a fragment of every character, and the streaming block's rows, redrawn
        with each key, are plain text."""
        text = self._toolbar()
        if not text:
            return None
        # Asked for three times a redraw (twice to measure the layout, once to draw it), with the
        # same text unless something changed in between.
        cached = self._toolbar_fragments
        if cached is not None and cached[0] == text:
            return cached[1]
        fragments: StyleAndTextTuples = []
        for line in text.split("\n"):
            if fragments:
                fragments.append(("", "\n"))
            if "\x1b" in line:
                fragments.extend(to_formatted_text(ANSI(line)))
            else:
                fragments.append(("", line))
        self._toolbar_fragments = (text, fragments)
        return fragments

    def _toolbar(self) -> str | None:
        size = self._editor.app.output.get_size() if self._editor is not None else None
        width, height = (size.columns, size.rows) if size is not None else (80, 24)
        lines = self.ui.toolbar_lines(width)
        # The block being streamed, as much of it as the screen holds above the editor.
        lines.extend(self._streaming_tail(width, max(3, height - 8 - len(lines))))
        for name, tail in self.renderer.live_output.values():
            lines.append(f"{name} running…")
            lines.extend(f"  {line}" for line in tail)
        theme = self.ui.theme
        if self.busy:
            if self.ui.working_visible:
                elapsed = int(time.monotonic() - self._task_started)
                message = self.ui.working_prefix() + (self.ui.working_message or "working…")
                hints = self.run_hints(
                    ("tui.input.submit", "steers"),
                    ("app.message.followUp", "queues a follow-up"),
                    ("app.interrupt", "aborts"),
                )
                keys = " · ".join([f" {elapsed}s", ", ".join(hints)] if hints else [f" {elapsed}s"])
                lines.append(message + theme.fg("muted", keys))
        else:
            custom = self.ui.component_rows("footer", width)
            if custom is None:
                custom = [theme.fg("dim", row) for row in self._status_lines(width)]
            lines.extend(custom)
        return "\n".join(lines) or None

    def run_hints(self, *actions: tuple[str, str]) -> list[str]:
        """What keys do while the agent works, named as bound (``Esc aborts``): one hint per
        ``(action id, what it does)`` whose action has a key a terminal can send. Made again only
        when the keymap changes (the working row asks at every redraw)."""
        cached = self._run_hints
        if cached is not None and cached[0] is self.keymap and cached[1] == actions:
            return cached[2]
        hints = [f"{key} {does}" for action, does in actions if (key := self.keymap.hint(action))]
        self._run_hints = (self.keymap, actions, hints)
        return hints

    def _status_lines(self, width: int) -> list[str]:
        """The idle status line: the footer's figures, the directory and its git branch — on a
        row of their own when both do not fit on one, so a long path does not hide the branch."""
        now = time.monotonic()
        cached = self._status_cache
        if cached is not None and cached[0] == width and now - cached[1] < 1.0:
            return cached[2]
        # Two spaces between the parts: the status line reads apart from the footer lines that
        # close each run in the transcript.
        figures = "  ".join(self.footer_text().split(" · "))
        line = f"{figures}  {self.place()}"
        rows = [line] if len(line) <= width - 1 else [_cut(figures, width), self.place_row(width)]
        self._status_cache = (width, now, rows)
        return rows

    def place(self) -> str:
        """The working directory (``~`` for home) and its git branch."""
        place = _short_home(self.host.session.cwd)
        return f"{place} ({self.git_branch})" if self.git_branch else place

    def place_row(self, width: int) -> str:
        """:meth:`place` for a row ``width`` wide (one column kept free): a directory too long
        loses its start (``…/work/notes (main)``), so its own name and the branch stay in view."""
        place = self.place()
        if len(place) <= width - 1:
            return place
        branch = f" ({self.git_branch})" if self.git_branch else ""
        room = width - 2 - len(branch)
        if room < 8:
            return _cut(place, width)
        return "…" + _short_home(self.host.session.cwd)[-room:] + branch

    def _streaming_tail(self, width: int, rows: int) -> list[str]:
        """The last rows of the text block still being streamed (printed once it is complete)."""
        pending = self.renderer.pending_text().strip()
        if not pending:
            return []
        width = max(20, width - 1)
        wrapped: list[str] = []
        for line in pending.split("\n")[-rows:]:
            wrapped.extend(line[i : i + width] for i in range(0, max(len(line), 1), width))
        return wrapped[-rows:]

    def _adopt_plugins(self) -> None:
        """New plugin instances (start-up, reload, new session): their keys, a clean toolbar.

        As pi resets extension UI on reload: statuses and widgets of the old instances go, the new
        ones set theirs again in ``session_start``.
        """
        plugins = self.host.plugins
        if plugins is self._plugins_of:
            return
        if self._plugins_of is not None:
            self.ui.reset_working_row()
        self._plugins_of = plugins
        self.ui.clear_plugin_state()
        self.keymap = load_keymap(self.host.options.agent_dir)  # keybindings.json, again on /reload
        for warning in self.keymap.warnings:
            self.console.print(Text(warning, style="pi.warning"))
        self._key_bindings = build_key_bindings(self, plugins.shortcuts, self.keymap)
        if self._editor_started:
            self.spawn(self._warm_key_lookups())  # the new bindings' lookups

    # --- header and footer -------------------------------------------------------------------------

    def _print_header(self) -> None:
        """Model, directory, keys and what was loaded — unless the ``quietStartup`` setting (and
        no ``--verbose``) asks for silence."""
        session = self.host.session
        if session.settings.settings.quiet_startup and not self.verbose:
            return
        for part in self.header_parts(self.console.size.width):
            self.console.print(part)
        loaded = self._loaded_summary()
        if loaded:
            self.console.print(Text(loaded, style="pi.dim"), soft_wrap=True)

    def header_parts(self, width: int) -> list[Text]:
        """The header's rows: a plugin's (``set_header``) or pi's model, directory (``~`` for the
        home directory, as in the footer) and keys, each cut to the terminal's width rather than
        wrapped."""
        custom = self.ui.component_rows("header", width)
        if custom is not None:
            return [Text.from_ansi(row, no_wrap=True, overflow="ellipsis") for row in custom]
        session = self.host.session
        model = session.model
        where = f"{model.provider}/{model.id}" if model else "no model"
        abort, leave = self.keymap.hint("app.interrupt"), self.keymap.hint("app.exit")
        keys = " · ".join(
            [
                "/help for commands",
                *([f"{abort} aborts"] if abort else []),
                *([f"{leave} quits"] if leave else []),
            ]
        )
        title = f"pi · {where} · {_short_home(session.cwd)}"
        return [
            Text(title, style="bold", no_wrap=True, overflow="ellipsis"),
            Text(keys, style="pi.dim", no_wrap=True, overflow="ellipsis"),
        ]

    def _loaded_summary(self) -> str:
        resources = self.host.session.resources
        cwd = self.host.session.cwd
        parts = [
            ("Context", [_short_path(f.path, cwd) for f in resources.context_files]),
            ("Skills", [s.name for s in resources.skills]),
            ("Templates", [f"/{t.name}" for t in resources.prompt_templates]),
            ("Plugins", list(self.host.plugins.plugin_names)),
        ]
        return " · ".join(f"{label}: {', '.join(names)}" for label, names in parts if names)

    def footer_text(self) -> str:
        """The footer's figures: model, thinking level, context usage, tokens, cost, session name.

        Worked out again only when what they are read from changed (another model or thinking
        level, an entry appended or the entries replaced, the leaf moved, the agent's messages
        grown or replaced): the fullscreen footer is drawn on every redraw, a key's included,
        and the figures walk the branch since its last compaction, its messages and the
        session's entries (for the name)."""
        key, held = self._footer_key()
        cached = self._footer_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        text = self._compose_footer()
        self._footer_cache = (key, text, held)
        return text

    def _footer_key(self) -> tuple[tuple[object, ...], tuple[object, ...]]:
        """What the footer's figures are read from, by identity and size (compared cheaply), and
        the objects behind those identities (held with the figures, so no id is reused)."""
        session = self.host.session
        model = session.model
        manager = session.session_manager
        messages = session.messages
        last = messages[-1] if messages else None
        key = (
            id(model),
            session.thinking_level,
            id(manager),
            manager.entries_generation,
            manager.entry_count,
            len(manager.load_issues),
            manager.get_leaf_id(),
            id(messages),
            len(messages),
            id(last),
        )
        return key, (model, manager, messages, last)

    def _compose_footer(self) -> str:
        session = self.host.session
        model = session.model
        parts = [f"{model.provider}/{model.id}" if model else "no model"]
        if model is not None and model.reasoning:
            parts.append(f"thinking {session.thinking_level}")
        # The statistics carry the context usage: asking for it apart walked the branch twice
        # per footer, and the fullscreen footer is drawn on every redraw (keys included).
        stats = session.get_session_stats()
        usage = stats.context_usage
        if usage is not None:
            from pi_core.ai.resolve import format_token_count

            if usage.percent is not None and usage.tokens is not None:
                parts.append(
                    f"context {usage.percent:.1f}% of {format_token_count(usage.context_window)}"
                    f" ({format_token_count(usage.tokens)})"
                )
            else:
                parts.append(f"context ? of {format_token_count(usage.context_window)}")
        parts.extend(_usage_parts(stats))
        if session.session_name:
            parts.append(session.session_name)
        return " · ".join(parts)

    def _print_footer(self) -> None:
        self.console.print(Text(self.footer_text(), style="pi.dim"))


@contextlib.contextmanager
def output_above_editor() -> Iterator[StdoutProxy]:
    """``sys.stdout``/``sys.stderr`` through prompt-toolkit's proxy, which writes above the editor,
    pausing :data:`OUTPUT_PAUSE` between writes (prompt-toolkit's ``patch_stdout`` pauses 0.2 s:
    an abort's "Operation aborted" waited behind the answer's last block for that long)."""
    with StdoutProxy(raw=True, sleep_between_writes=OUTPUT_PAUSE) as proxy:
        original = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = cast(TextIO, proxy)
        try:
            yield proxy
        finally:
            sys.stdout, sys.stderr = original


def escape_wait() -> float:
    """Seconds to wait after an Esc byte: ``PI_TUI_ESC_TIMEOUT`` (milliseconds) when it is a
    positive number, else :data:`SSH_ESCAPE_WAIT` in an SSH session, else :data:`ESCAPE_WAIT`."""
    try:
        configured = float(os.environ.get("PI_TUI_ESC_TIMEOUT", ""))
    except ValueError:
        configured = 0.0
    if configured > 0 and configured != float("inf"):
        return configured / 1000
    if os.environ.get("SSH_CONNECTION") or os.environ.get("SSH_TTY"):
        return SSH_ESCAPE_WAIT
    return ESCAPE_WAIT


def _usage_parts(stats: Any) -> list[str]:
    """pi's footer figures for the session so far: ↑input ↓output, cache R/W, cost."""
    from pi_core.ai.resolve import format_token_count

    tokens = stats.tokens
    if not (tokens.input or tokens.output):
        return []
    figures = f"↑{format_token_count(tokens.input)} ↓{format_token_count(tokens.output)}"
    if tokens.cache_read or tokens.cache_write:
        figures += f" R{format_token_count(tokens.cache_read)} W{format_token_count(tokens.cache_write)}"
    return [figures, f"${stats.cost:.3f}"] if stats.cost else [figures]


def _short_path(path: str, cwd: str) -> str:
    """``path`` relative to ``cwd`` when inside it, with ``~`` for the home directory otherwise."""
    here = Path(path)
    if here.is_relative_to(cwd):
        return str(here.relative_to(cwd))
    home = Path.home()
    return "~/" + str(here.relative_to(home)) if here.is_relative_to(home) else path


def terminal_console(mode: ColorMode = "256color") -> Console:
    """A console that follows the terminal's size as it is resized: ``COLUMNS``/``LINES`` left in
    the environment by a shell or a multiplexer would pin it to a stale size. On a terminal it
    sends colours at the theme's depth (pi sends 24-bit or 256 colours, whatever ``TERM`` says)."""
    environ = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    console = Console(highlight=False, _environ=environ)
    if console.color_system is not None:
        system: Literal["truecolor", "256"] = "truecolor" if mode == "truecolor" else "256"
        console = Console(highlight=False, _environ=environ, color_system=system)
    return console


def _cut(text: str, width: int) -> str:
    """``text`` cut to fit a row ``width`` wide (one column kept free), ending in ``…`` if cut."""
    return text if len(text) <= width - 1 else text[: max(1, width - 2)] + "…"


def _short_home(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + os.sep) else path


#: Seconds between two looks at the git branch (pi polls ``.git/HEAD`` once a second where it
#: cannot watch it).
BRANCH_POLL = 1.0


def _git_branch(cwd: str) -> str | None:
    """The branch checked out in the repository holding ``cwd`` (read from ``.git/HEAD``, no
    subprocess); a short commit id when HEAD is detached; ``None`` outside a repository."""
    here = Path(cwd)
    for directory in (here, *here.parents):
        git = directory / ".git"
        try:
            if git.is_file():  # a worktree or submodule: "gitdir: <path>"
                pointer = git.read_text(encoding="utf-8").strip()
                if not pointer.startswith("gitdir:"):
                    return None
                git = (directory / pointer[len("gitdir:") :].strip()).resolve()
            head = (git / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if head.startswith("ref: refs/heads/"):
            return head[len("ref: refs/heads/") :]
        return head[:8] or None
    return None


def _exit_app(app: Any, result: str) -> None:
    if app.is_running and app.future is not None and not app.future.done():
        app.exit(result=result)


def _keys_held_raw() -> contextlib.AbstractContextManager[Any]:
    """Keep the terminal in raw mode for the whole REPL, not only while the editor is drawn.

    Otherwise keys typed before the editor first appears, or while a slash command runs, go
    through the tty's line discipline: they are echoed over the output and Enter arrives as a
    newline (Ctrl+J) instead of a submit. Raw mode leaves output processing alone, so printing
    is unaffected; the terminal's settings are restored on the way out.
    """
    import sys

    if sys.platform == "win32" or not sys.stdin.isatty():
        return contextlib.nullcontext()
    from prompt_toolkit.input.vt100 import raw_mode

    return raw_mode(sys.stdin.fileno())


def _default_history(agent_dir: str) -> FileHistory | InMemoryHistory:
    directory = Path(agent_dir)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(directory / HISTORY_FILE))
