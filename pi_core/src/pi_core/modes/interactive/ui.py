"""``ctx.ui`` in the REPL: dialogs in the editor's place, notices on the console.

Statuses (``set_status``) and widgets (``set_widget``: lines, or a factory's component drawn at
each redraw) are shown above and below the editor (fullscreen) or in the toolbar under it.
Plugin components (``custom``, ``set_header``, ``set_footer``) are described in :mod:`.custom`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from rich.text import Text

from pi_core.ai.abort import AbortSignal
from pi_core.modes.interactive.program_status import Blocked
from pi_core.modes.interactive.render import HIDDEN_THINKING_LABEL
from pi_core.modes.interactive.sanitize import keep_style, sanitize
from pi_core.plugins.context import UITheme
from pi_core.plugins.dispatch import CURRENT_HANDLER
from pi_core.runtime.ui import Theme, ThemeInfo, ThemeResult
from pi_core.settings_file import SettingsError

if TYPE_CHECKING:
    from pi_core.modes.interactive.app import InteractiveMode
    from pi_core.runtime.colors import ColorMode

#: pi shows an info notice as status text (dim), a warning and an error in their colours.
_NOTIFY_STYLES = {"info": "pi.dim", "warning": "pi.warning", "error": "pi.error"}
#: A widget given as lines shows this many of them, then a note that it was cut (as pi).
MAX_WIDGET_LINES = 10
#: Seconds between two frames of the working indicator when a plugin names no interval (pi's).
INDICATOR_INTERVAL = 0.08
#: The working row's spinner when no plugin sets frames of its own (pi's, in the accent colour).
SPINNER_FRAMES = ("⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏")


class InteractiveUI:
    """The UI plugins get in interactive mode."""

    has_ui = True

    def __init__(self, mode: InteractiveMode) -> None:
        self._mode = mode
        self._theme: Theme | None = None
        self._theme_setting: str | None = None
        self._theme_override: UITheme | None = None
        self._colour_mode: ColorMode | None = None
        #: ``--use-theme``: the theme setting for this run, until a theme is chosen (not saved).
        self.theme_for_run: str | None = None
        self.statuses: dict[str, str] = {}
        #: Widgets by key, in the order set: their lines, or (component, plugin) from a factory.
        self.widgets: dict[str, list[str] | tuple[Any, str]] = {}
        #: Where each widget goes: ``aboveEditor`` or ``belowEditor`` (the fullscreen mode
        #: honours it; the inline toolbar shows them all under the editor).
        self.placements: dict[str, str] = {}
        #: ``set_working_message``: shown instead of ``working…`` while the agent works.
        self.working_message: str | None = None
        #: ``set_working_visible(False)`` hides the working row.
        self.working_visible = True
        #: ``set_working_indicator``: the frames shown in turn before the message (``None``: the
        #: built-in spinner, :data:`SPINNER_FRAMES`).
        self.working_frames: list[str] | None = None
        self._frame_interval = INDICATOR_INTERVAL
        self._frames_since = 0.0
        self._ticker: asyncio.Task[None] | None = None
        #: ``set_header`` / ``set_footer``: (component, plugin) replacing the built-in rows.
        self.header: tuple[Any, str] | None = None
        self.footer: tuple[Any, str] | None = None
        #: ``on_terminal_input`` handlers with the plugin that added each.
        self.input_handlers: list[tuple[Callable[[str], Any], str]] = []
        #: ``add_autocomplete_provider`` factories, in the order added.
        self.autocomplete: list[tuple[Callable[[Any], Any], str]] = []

    @property
    def theme(self) -> UITheme:
        """The theme the ``theme`` setting names (a ``light/dark`` pair: by the terminal's
        background), or the one a plugin or the theme picker set for this run; when the named
        one is missing or broken, ``system``'s built-in theme (the reason is reported once)."""
        if self._theme_override is not None:
            return self._theme_override
        setting = self.theme_for_run or self._mode.host.session.settings.settings.theme
        if self._theme is None or self._theme_setting != setting:
            from pi_core.runtime import themes

            try:
                self._theme = themes.load(
                    themes.resolve_setting(setting), self._theme_paths(), self.colour_mode
                )
            except themes.ThemeError as error:
                self._theme = themes.load(themes.SYSTEM, [], self.colour_mode)
                self._mode.report_theme_problem(str(error))
            self._theme_setting = setting
        return self._theme

    @property
    def colour_mode(self) -> ColorMode:
        """24-bit or 256 colours: the ``terminal.trueColor`` setting, else the terminal's."""
        if self._colour_mode is None:
            from pi_core.runtime.colors import color_mode

            setting = self._mode.host.session.settings.settings.terminal.true_color
            self._colour_mode = color_mode(setting=setting)
        return self._colour_mode

    def _theme_paths(self) -> list[str]:
        return list(self._mode.host.session.resources.theme_paths)

    def get_all_themes(self) -> list[ThemeInfo]:
        """``system``, ``dark``, ``light`` and the theme files found (``~/.pi/agent/themes``, the
        project's ``.pi/themes``, the ``themes`` setting, ``--theme``)."""
        from pi_core.runtime import themes

        return themes.available(self._theme_paths())

    def get_theme(self, name: str) -> Theme | None:
        from pi_core.runtime import themes

        try:
            return themes.load(name, self._theme_paths(), self.colour_mode)
        except themes.ThemeError:
            return None

    def set_theme(self, theme: str | UITheme) -> ThemeResult:
        """By name: the ``theme`` setting (global) changes when the theme loads; an object: this
        run draws with it. Either way everything drawn from now on uses it."""
        from pi_core.runtime import themes

        if not isinstance(theme, str):
            self.preview_theme(theme)
            return ThemeResult(True)
        try:
            themes.load(themes.resolve_setting(theme), self._theme_paths(), self.colour_mode)
        except themes.ThemeError as error:
            return ThemeResult(False, str(error))
        settings = self._mode.host.session.settings
        if settings.settings.theme != theme:
            try:
                settings.set("theme", theme)
            except SettingsError as error:
                return ThemeResult(False, str(error))
        self.theme_for_run = None
        self._theme_override = None
        self._theme = None
        self._mode.theme_changed()
        return ThemeResult(True)

    def preview_theme(self, theme: UITheme | None) -> None:
        """Draw with ``theme`` for now, saving nothing (``None``: the setting's theme again)."""
        if theme is self._theme_override:
            return
        self._theme_override = theme
        self._mode.theme_changed()

    def follows_terminal(self) -> bool:
        """Whether the theme in use follows the terminal: ``system``, or a ``light/dark`` pair."""
        from pi_core.runtime import themes

        if self._theme_override is not None:
            return False
        setting = self.theme_for_run or self._mode.host.session.settings.settings.theme
        return themes.parse_pair(setting) is not None or themes.resolve_setting(setting) == themes.SYSTEM

    def terminal_changed(self) -> None:
        """The terminal reported other colours or turned light or dark: the theme that follows
        it is made again (and everything drawn from now on uses it)."""
        if self.follows_terminal():
            self._theme = None
        self._mode.theme_changed()

    def reload_theme(self, theme: Theme) -> None:
        """The active theme's file changed and still reads: draw with the new colours."""
        if self._theme_override is None and self._theme is not None and self._theme.name == theme.name:
            self._theme = theme
            self._mode.theme_changed()

    def set_working_message(self, text: str | None = None) -> None:
        self.working_message = text or None
        self._mode.invalidate()

    def set_working_visible(self, visible: bool) -> None:
        self.working_visible = bool(visible)
        self._mode.invalidate()

    def set_hidden_thinking_label(self, text: str | None = None) -> None:
        self._mode.set_hidden_thinking_label(HIDDEN_THINKING_LABEL if text is None else str(text))

    def set_working_indicator(
        self, frames: Sequence[str] | None = None, *, interval_ms: float | None = None
    ) -> None:
        """Frames are drawn as given (colour escapes kept, other control sequences removed)."""
        shown = None if frames is None else [keep_style(str(frame)).replace("\n", " ") for frame in frames]
        self.working_frames = shown
        self._frame_interval = interval_ms / 1000 if interval_ms and interval_ms > 0 else INDICATOR_INTERVAL
        self._frames_since = time.monotonic()
        self.stop_ticker()
        self.start_ticker()
        self._mode.invalidate()

    def working_prefix(self) -> str:
        """The indicator's frame for now, with a space after it ("" when it has no frames): the
        plugin's frames as given, else pi's spinner in the theme's accent colour."""
        frames: Sequence[str] = self.working_frames if self.working_frames is not None else SPINNER_FRAMES
        if not frames:
            return ""
        frame = frames[int((time.monotonic() - self._frames_since) / self._frame_interval) % len(frames)]
        if self.working_frames is None:
            frame = self.theme.fg("accent", frame)
        return f"{frame} " if frame else ""

    def start_ticker(self) -> None:
        """Turn the indicator while the agent works (the mode calls this when a job starts)."""
        frames = self.working_frames if self.working_frames is not None else SPINNER_FRAMES
        if len(frames) <= 1 or (self._ticker is not None and not self._ticker.done()):
            return
        with contextlib.suppress(RuntimeError):  # no running loop: drawn at the next redraw
            self._ticker = asyncio.get_running_loop().create_task(self._tick(self._frame_interval))

    async def _tick(self, interval: float) -> None:
        """Redraw at each frame while the agent works (the row shows only then)."""
        while self._mode.busy:
            await asyncio.sleep(interval)
            if self.working_visible:
                self._mode.invalidate()

    def stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    def get_tools_expanded(self) -> bool:
        return self._mode.renderer.expand_tools

    def set_tools_expanded(self, expanded: bool) -> None:
        """As Ctrl+O: from the other state, results are drawn again (fullscreen) or from now on."""
        if bool(expanded) != self._mode.renderer.expand_tools:
            self._mode.toggle_tool_output()

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
    ) -> str | None:
        choices = list(options)
        if not choices:
            return None
        # What plugins ask often quotes the model (a command to approve): drawn without its
        # control sequences; the option picked is returned as the plugin gave it.
        shown = [sanitize(str(choice)) for choice in choices]
        # As in pi's list, Ctrl+O (app.tools.expand) still expands or collapses tool output.
        mode = self._mode
        expand = {
            sequence[0]: lambda picker: mode.toggle_tool_output()
            for sequence in mode.keymap.sequences("app.tools.expand")
            if len(sequence) == 1
        }
        index = await mode.pick(
            sanitize(title),
            shown,
            timeout_ms=timeout,
            signal=signal,
            extra_keys=expand,
            blocked=Blocked(kind="question", message=title),
        )
        return None if index is None else choices[index]

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> bool:
        """pi's Yes/No list under the title and the message (Yes first; typing ``y`` or ``n``
        filters to one); true only for Yes."""
        question = sanitize(title) + (f"\n{sanitize(message)}" if message else "")
        index = await self._mode.pick(
            question,
            ["Yes", "No"],
            timeout_ms=timeout,
            signal=signal,
            blocked=Blocked(kind="permission", message=title),
        )
        return index == 0

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
        secret: bool = False,
    ) -> str | None:
        """One line of text; ``secret`` hides what is typed (an API key)."""
        return await self._mode.question(
            sanitize(title),
            placeholder=None if placeholder is None else sanitize(placeholder),
            timeout_ms=timeout,
            signal=signal,
            secret=secret,
            blocked=Blocked(kind="question", message=title),
        )

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        """Several lines (Enter finishes, Ctrl+J starts a new line, Ctrl+G opens them in the
        external editor), starting with ``prefill``."""
        return await self._mode.question(
            sanitize(title),
            prompt="",
            default=prefill or "",
            multiline=True,
            blocked=Blocked(kind="question", message=title),
            external=self._mode.external_editor(),
        )

    async def custom(
        self,
        factory: Callable[..., Any],
        *,
        overlay: bool = False,
        overlay_options: Any = None,
        on_handle: Callable[[Any], Any] | None = None,
        blocked: Any = None,
    ) -> Any:
        """Show the plugin's component until it calls ``done(value)``; that value.

        ``factory(tui, theme, keybindings, done)`` (pi's arguments; ``(tui, theme, done)`` works
        too) returns a prompt-toolkit container or an object with ``render(width)`` (and
        ``handle_input(data)``). It takes the editor's place; with ``overlay`` it floats over the
        transcript in fullscreen while the rest stays drawn — placed by ``overlay_options`` (pi's
        ``OverlayOptions``, a dict or a function returning one; see :mod:`.overlay`), and
        ``on_handle(handle)`` gets the handle that hides, shows and focuses it. Regular mode has
        no screen to float over: it shows an overlay in place and calls no ``on_handle``.
        ``blocked`` (pi's ``{"kind": "question" | "permission" | "auth", "message": ...}``) has
        the terminal told that pi waits for the user while the component is up (in the editor's
        place: while it is the one shown; an overlay: until it is done). A component that raises
        is reported as the plugin's; ``None`` then.
        """
        from pi_core.modes.interactive.custom import ComponentKeys
        from pi_core.modes.interactive.overlay import OverlayRequest, options_source

        plugin = _plugin_of(factory)
        mode = self._mode

        def report(error: BaseException) -> None:
            mode.host.session.report_plugin_error(plugin, "ui.custom", error)

        request = OverlayRequest(
            options_source(overlay_options, report), on_handle, report, _blocked(blocked, report)
        )
        try:
            return await mode.show_component(
                factory, self.theme, ComponentKeys(mode.keymap.keys), overlay, request
            )
        except Exception as error:
            report(error)
            return None

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        """``factory(tui, theme)`` makes the rows shown instead of pi's start-up header (``None``:
        the built-in one again)."""
        self.header = self._make(factory, "ui.set_header") if factory is not None else None
        self._mode.header_changed()

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        """``factory(tui, theme, footer_data)`` makes the rows shown instead of the built-in footer
        (``footer_data.git_branch``, ``footer_data.statuses``); ``None`` restores it."""
        self.footer = self._make(factory, "ui.set_footer", FooterData(self)) if factory is not None else None
        self._mode.invalidate()

    def _make(self, factory: Callable[..., Any], where: str, *extra: Any) -> tuple[Any, str] | None:
        from pi_core.modes.interactive.custom import TerminalSize

        plugin = _plugin_of(factory)
        tui = TerminalSize(self._mode.terminal_size, self._mode.invalidate)
        try:
            return factory(tui, self.theme, *extra), plugin
        except Exception as error:
            self._mode.host.session.report_plugin_error(plugin, where, error)
            return None

    def component_rows(self, which: str, width: int) -> list[str] | None:
        """The rows of the custom header or footer at ``width``; ``None`` without one (or once it
        raised: it is reported and dropped, the built-in rows come back)."""
        from pi_core.modes.interactive.custom import rows_of

        held = self.header if which == "header" else self.footer
        if held is None:
            return None
        component, plugin = held
        try:
            return rows_of(component, width)
        except Exception as error:
            if which == "header":
                self.header = None
            else:
                self.footer = None
            self._mode.host.session.report_plugin_error(plugin, f"ui.set_{which}", error)
            return None

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        """Call ``handler(data)`` with each key's raw bytes before the editor sees it; a result
        ``{"consume": True}`` swallows the key, ``{"data": text}`` replaces it. Returns the
        function that removes the handler."""
        entry = (handler, _plugin_of(handler))
        self.input_handlers.append(entry)

        def unsubscribe() -> None:
            if entry in self.input_handlers:
                self.input_handlers.remove(entry)

        return unsubscribe

    def paste_to_editor(self, text: str) -> None:
        """Insert ``text`` into the editor as if pasted (at the cursor, not submitted)."""
        self._mode.paste_to_editor(text)

    def add_autocomplete_provider(self, factory: Callable[[Any], Any]) -> None:
        """``factory(current)`` gets the editor's completer (a prompt-toolkit ``Completer``) and
        returns the one to use instead, usually delegating to ``current``."""
        self.autocomplete.append((factory, _plugin_of(factory)))
        self._mode.completer_changed()

    def notify(self, message: str, type: str = "info") -> None:
        """A line in the transcript; colour escapes (``theme.fg``) are kept, other control
        sequences removed."""
        style = _NOTIFY_STYLES.get(type, "pi.dim")
        self._mode.console.print(Text.from_ansi(keep_style(str(message)), style=style))

    def set_status(self, key: str, text: str | None) -> None:
        """Status text may be styled with SGR colour escapes (``ctx.ui.theme.fg``); every other
        control sequence is removed."""
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = keep_style(text).replace("\n", " ")
        self._mode.invalidate()

    def set_widget(self, key: str, content: Any, *, placement: str = "aboveEditor") -> None:
        """``content``: lines (the first ten shown), a factory ``factory(tui, theme)`` whose
        component's ``render(width)`` gives the rows at each redraw, or ``None`` to remove it."""
        self._drop_widget(key)
        where = placement if placement == "belowEditor" else "aboveEditor"
        if isinstance(content, list) and all(isinstance(line, str) for line in content):
            lines = [keep_style(line).replace("\n", " ") for line in content[:MAX_WIDGET_LINES]]
            if len(content) > MAX_WIDGET_LINES:
                lines.append(self.theme.fg("muted", "... (widget truncated)"))
            self.widgets[key] = lines
            self.placements[key] = where
        elif callable(content):
            made = self._make(content, "ui.set_widget")
            if made is not None:
                self.widgets[key] = made
                self.placements[key] = where
        self._mode.invalidate()

    def _drop_widget(self, key: str) -> None:
        old = self.widgets.pop(key, None)
        self.placements.pop(key, None)
        if isinstance(old, tuple):
            component, plugin = old
            dispose = getattr(component, "dispose", None)
            if callable(dispose):
                try:
                    dispose()
                except Exception as error:
                    self._mode.host.session.report_plugin_error(plugin, "ui.set_widget", error)

    def set_title(self, text: str) -> None:
        self._mode.set_title(sanitize(str(text)).replace("\n", " "))

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        """``factory(tui, theme, keybindings)`` makes the editor shown from now on (subclass
        ``pi_core.plugins.editor.CustomEditor`` to start from the built-in one); it starts with
        the editor's text. ``None``: the built-in editor again, with the plugin editor's text."""
        plugin = _plugin_of(factory) if factory is not None else ""
        self._mode.editor_slot.set(factory, plugin)

    def get_editor_component(self) -> Callable[..., Any] | None:
        """The factory ``set_editor_component`` was given last (``None``: the built-in editor)."""
        return self._mode.editor_slot.factory

    def set_editor_text(self, text: str) -> None:
        self._mode.set_editor_text(text)

    def get_editor_text(self) -> str:
        return self._mode.get_editor_text()

    def clear_plugin_state(self) -> None:
        """Forget statuses, widgets and components (their plugin instances were replaced)."""
        self.statuses.clear()
        for key in list(self.widgets):
            self._drop_widget(key)
        self.input_handlers.clear()
        if self._mode.editor_slot.factory is not None:
            self._mode.editor_slot.set(None, "")
        changed = self.header is not None or bool(self.autocomplete)
        self.header = self.footer = None
        self.autocomplete.clear()
        if changed:
            self._mode.header_changed()
            self._mode.completer_changed()
        self._mode.invalidate()

    def reset_working_row(self) -> None:
        """The working row as built in (the plugins that changed it were replaced)."""
        self.working_message = None
        self.working_visible = True
        self.working_frames = None
        self.stop_ticker()
        self.start_ticker()

    def has_widgets(self, placement: str) -> bool:
        """Whether a widget is placed ``aboveEditor`` or ``belowEditor`` (nothing is drawn)."""
        return any(where == placement for where in self.placements.values())

    def widget_lines(self, placement: str | None, width: int | None = None) -> list[str]:
        """The rows of the widgets placed ``aboveEditor`` or ``belowEditor`` (``None``: both),
        components drawn at ``width`` (the terminal's by default). A component whose ``render``
        raises is reported as its plugin's and removed."""
        from pi_core.modes.interactive.custom import rows_of

        columns = width if width is not None else self._mode.terminal_size()[0]
        lines: list[str] = []
        for key, widget in list(self.widgets.items()):
            if placement is not None and self.placements.get(key, "aboveEditor") != placement:
                continue
            if isinstance(widget, list):
                lines.extend(widget)
                continue
            component, plugin = widget
            try:
                lines.extend(rows_of(component, columns))
            except Exception as error:
                self.widgets.pop(key, None)
                self.placements.pop(key, None)
                self._mode.host.session.report_plugin_error(plugin, "ui.set_widget", error)
        return lines

    def toolbar_lines(self, width: int | None = None) -> list[str]:
        lines = self.widget_lines(None, width)
        if self.statuses:
            lines.append("  ".join(self.statuses[key] for key in sorted(self.statuses)))
        return lines


class FooterData:
    """What a custom footer's factory gets besides the theme: data it cannot read from ``ctx``."""

    def __init__(self, ui: InteractiveUI) -> None:
        self._ui = ui

    @property
    def git_branch(self) -> str | None:
        return self._ui._mode.git_branch

    @property
    def statuses(self) -> dict[str, str]:
        """The plugins' ``set_status`` texts by key."""
        return dict(self._ui.statuses)


def _blocked(raw: Any, report: Callable[[BaseException], None]) -> Blocked | None:
    """``custom``'s ``blocked`` option; a bad one is reported and left out."""
    if raw is None or isinstance(raw, Blocked):
        return raw
    try:
        return Blocked.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc']) or 'blocked'}: {problem['msg']}"
            for problem in error.errors()
        )
        report(ValueError(f"blocked: {problems}"))
        return None


def _plugin_of(thing: Any) -> str:
    """The plugin to blame for ``thing``: the handler running now, else the module it comes from."""
    current = CURRENT_HANDLER.get()
    if current is not None:
        return current[0]
    module = getattr(thing, "__module__", None) or getattr(type(thing), "__module__", None)
    return str(module or "extension")
