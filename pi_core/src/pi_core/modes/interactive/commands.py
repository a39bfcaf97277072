"""The REPL's built-in slash commands (handled before ``AgentSession.prompt``, also while a run goes).

Anything else starting with ``/`` goes to the session: plugin commands, skills, prompt templates.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from rich import box
from rich.padding import Padding
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from pi_core.ai.resolve import format_token_count
from pi_core.modes.interactive.commands_models import ModelCommands
from pi_core.modes.interactive.commands_session import SessionCommands
from pi_core.modes.interactive.keymap import hotkey_sections
from pi_core.modes.interactive.sanitize import sanitize
from pi_core.modes.interactive.tree_view import FILTER_MODES


@dataclass(frozen=True)
class Builtin:
    name: str
    usage: str
    description: str
    #: Refused while the agent works (the user is told to wait or press Esc).
    needs_idle: bool = False


BUILTINS = (
    Builtin("help", "/help", "list commands and keys"),
    Builtin("settings", "/settings", "change settings: thinking, queue modes, compaction, display"),
    Builtin("model", "/model [pattern]", "switch model (exact or fuzzy match; a list to choose from)"),
    Builtin("scoped-models", "/scoped-models", "choose the models Ctrl+P cycles through"),
    Builtin("thinking", "/thinking [level]", "choose the thinking level (a list of the model's levels)"),
    Builtin(
        "compact", "/compact [instructions]", "summarize older messages to free context", needs_idle=True
    ),
    Builtin("new", "/new", "start a fresh session", needs_idle=True),
    Builtin("name", "/name [name]", "show or set the session name"),
    Builtin("session", "/session", "session file, id, message counts, tokens and cost"),
    Builtin("export", "/export [file]", "export the session as HTML (a .jsonl file: the current branch)"),
    Builtin(
        "import", "/import <file.jsonl>", "replace the session with a copy of a session file", needs_idle=True
    ),
    Builtin("share", "/share", "upload the session as a secret GitHub gist (needs gh)"),
    Builtin("copy", "/copy", "copy the last answer to the clipboard"),
    Builtin("resume", "/resume", "switch to another session of this project", needs_idle=True),
    Builtin(
        "tree",
        "/tree [filter]",
        "go to any point of this session's tree (filter: " + ", ".join(FILTER_MODES) + ")",
        needs_idle=True,
    ),
    Builtin("fork", "/fork", "continue from an earlier message in a new session", needs_idle=True),
    Builtin("clone", "/clone", "copy the current conversation into a new session", needs_idle=True),
    Builtin("login", "/login [provider]", "save an API key for a provider in auth.json"),
    Builtin("logout", "/logout [provider]", "remove a provider's saved credentials from auth.json"),
    Builtin("hotkeys", "/hotkeys", "list the keyboard shortcuts"),
    Builtin("changelog", "/changelog", "what changed in this version of pi"),
    Builtin("reload", "/reload", "re-read settings, context files, skills, templates", needs_idle=True),
    Builtin("quit", "/quit", "exit pi"),
)
BUILTIN_NAMES = {b.name: b for b in BUILTINS}

#: Keys that are not actions of pi's table (those come from the keymap, see :mod:`.keymap`).
FIXED_KEYS = (
    ("\\ then Enter", "new line"),
    ("Ctrl+R", "search the history"),
    ("@path + Tab", "complete a file path"),
    ("wheel, mouse drag", "scroll the transcript; select rows and copy them (fullscreen)"),
)


class BuiltinCommands(SessionCommands, ModelCommands):
    """Runs ``/name args`` for the built-ins; :meth:`handle` says whether the text was one.

    Each ``/name`` is the method ``cmd_name`` (dashes become underscores); the groups of
    :mod:`.commands_session` and :mod:`.commands_models` hold most of them.
    """

    async def handle(self, text: str) -> bool:
        name, _, args = text[1:].partition(" ")
        builtin = BUILTIN_NAMES.get(name)
        if builtin is None:
            return False
        if builtin.needs_idle and self.mode.busy:
            self._warn(f"/{name} waits until the agent is done (Esc aborts the run)")
            return True
        handler: Callable[[str], Awaitable[None]] = getattr(self, f"cmd_{name.replace('-', '_')}")
        try:
            await handler(args.strip())
        except Exception as error:  # a failing command is reported; the REPL goes on
            self.mode.console.print(Text(f"Error: {error}", style="pi.error"))
        return True

    async def cmd_help(self, args: str) -> None:
        table = Table(show_header=False, box=None, padding=(0, 2))
        for builtin in BUILTINS:
            table.add_row(Text(builtin.usage), Text(builtin.description))
        for command in self._session.get_commands():
            what = f"{command.get('description', '')} ({command['source']})"
            table.add_row(Text(f"/{command['name']}"), Text(what))
        for key, what in self._key_rows():
            table.add_row(Text(key), Text(what))
        self.mode.console.print(table)

    async def cmd_settings(self, args: str) -> None:
        from pi_core.modes.interactive.settings_menu import run_settings_menu

        await run_settings_menu(self.mode)

    async def cmd_compact(self, args: str) -> None:
        if len(self._session.messages) < 2:
            self._warn("Nothing to compact (no messages yet)")
            return
        self.mode.start_task(self._session.compact(args or None))

    async def cmd_name(self, args: str) -> None:
        if not args:
            current = self._session.session_name
            if current:
                self._info(f"Session name: {current}")
            else:
                self._warn("Usage: /name <name>")
            return
        self._session.set_session_name(args)
        self._info(f"Session name: {args}")

    async def cmd_session(self, args: str) -> None:
        stats = self._session.get_session_stats()
        table = Table(show_header=False, box=None, padding=(0, 2))
        table.add_column(no_wrap=True)
        table.add_column(overflow="fold")  # a long session path wraps, never cut short
        table.add_row("Name", Text(sanitize(self._session.session_name or "-")))  # not markup
        table.add_row("File", stats.session_file or "In-memory")
        table.add_row("ID", stats.session_id)
        table.add_row(
            "Messages",
            f"{stats.user_messages} user, {stats.assistant_messages} assistant, "
            f"{stats.tool_results} tool results ({stats.total_messages} total)",
        )
        tokens = stats.tokens
        table.add_row(
            "Tokens",
            f"{format_token_count(tokens.input)} in, {format_token_count(tokens.output)} out, "
            f"{format_token_count(tokens.cache_read)} cache read, "
            f"{format_token_count(tokens.cache_write)} cache write",
        )
        table.add_row("Cost", f"${stats.cost:.4f}")
        self.mode.console.print(table)

    async def cmd_copy(self, args: str) -> None:
        from pi_core.modes.interactive.clipboard import copy_to_clipboard

        text = self._session.get_last_assistant_text()
        if not text:
            self._warn("No agent messages to copy yet.")
            return
        terminal = self.mode.console.file if self.mode.console.is_terminal else None
        if await copy_to_clipboard(text, terminal):
            self._info("Copied last agent message to clipboard")
        else:
            self._warn("No clipboard here: install xclip, xsel or wl-copy, or use a terminal with OSC 52")

    async def cmd_changelog(self, args: str) -> None:
        from importlib.resources import files

        from pi_core.modes.interactive.code_blocks import ThemedMarkdown

        text = await asyncio.to_thread((files("pi_core") / "CHANGELOG.md").read_text, encoding="utf-8")
        self.mode.console.print(ThemedMarkdown(self.mode.renderer.markdown(text, "changelog")))

    def _key_rows(self) -> list[tuple[str, str]]:
        """The keys as bound now (``keybindings.json`` applied), then the fixed ones."""
        sections = hotkey_sections(self.mode.keymap, fullscreen=self.mode.transcript_keys)
        return [*(row for _, rows in sections for row in rows), *FIXED_KEYS]

    async def cmd_hotkeys(self, args: str) -> None:
        """pi's /hotkeys: the keys as bound now, a boxed table per section, the plugins'
        shortcuts last."""
        shortcuts = [
            (key, spec.description or spec.plugin) for key, spec in self.mode.host.plugins.shortcuts.items()
        ]
        console = self.mode.console
        console.print(Rule(style="pi.border"))
        console.print(Text(" Keyboard Shortcuts", style="pi.accent bold"))
        for title, rows in hotkey_sections(self.mode.keymap, shortcuts, fullscreen=self.mode.transcript_keys):
            table = Table(box=box.SQUARE, show_lines=True, border_style="pi.border", header_style="pi.title")
            table.add_column("Key", style="markdown.code", no_wrap=True)
            table.add_column("Action")
            for keys, what in rows:
                table.add_row(Text(keys), Text(what))
            console.print(Text(f"\n {title}\n", style="pi.title"))
            console.print(Padding(table, (0, 0, 0, 1)))
        console.print(Rule(style="pi.border"))

    async def cmd_reload(self, args: str) -> None:
        await self.mode.host.reload()
        self._info("Reloaded settings, models, context files, skills, prompt templates and plugins")

    async def cmd_quit(self, args: str) -> None:
        self.mode.request_quit()
