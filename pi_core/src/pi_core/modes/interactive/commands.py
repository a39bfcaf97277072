"""The REPL's built-in slash commands (handled before ``AgentSession.prompt``, also while a run goes).

Anything else starting with ``/`` goes to the session: plugin commands, skills, prompt templates.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from pi_core.ai.provider import THINKING_LEVELS, Model
from pi_core.ai.resolve import find_exact_model, format_token_count, fuzzy_filter
from pi_core.modes.interactive.picker import Picker
from pi_core.modes.interactive.tree_view import FILTER_MODES, FilterMode, TreeRow, active_index, tree_rows
from pi_core.runtime.compaction.navigate import collect_entries_for_branch_summary

if TYPE_CHECKING:
    from pi_core.modes.interactive.app import InteractiveMode
    from pi_core.runtime.session import AgentSession


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
    Builtin(
        "thinking", "/thinking [level]", "show or set the thinking level (" + ", ".join(THINKING_LEVELS) + ")"
    ),
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
    Builtin("reload", "/reload", "re-read settings, context files, skills, templates", needs_idle=True),
    Builtin("quit", "/quit", "exit pi"),
)
BUILTIN_NAMES = {b.name: b for b in BUILTINS}

KEYS = (
    ("Enter", "send (while the agent works: steer it)"),
    ("Alt+Enter", "while the agent works: queue a follow-up"),
    ("Ctrl+J, or \\ then Enter", "new line"),
    ("Esc / Ctrl+C", "abort the run (queued messages come back to the editor)"),
    ("Ctrl+C twice, Ctrl+D", "quit (at an empty prompt)"),
    ("Alt+Up", "queued messages back into the editor (the run goes on)"),
    ("Ctrl+P / Shift+Tab", "next model / next thinking level"),
    ("Ctrl+L", "choose a model"),
    ("Ctrl+T", "hide or show thinking blocks"),
    ("Ctrl+G", "edit the message in $VISUAL / $EDITOR"),
    ("Ctrl+Z", "suspend pi (fg brings it back)"),
    ("Up / Down, Ctrl+R", "history; search the history"),
    ("@path + Tab", "complete a file path"),
    ("!cmd / !!cmd", "run a shell command (!! keeps its output out of the model's context)"),
)


SUMMARY_CHOICES = ("No summary", "Summarize", "Summarize with custom instructions")


def _filter_note(mode: str) -> str:
    return f"filter: {mode} (Ctrl+O)"


class BuiltinCommands:
    """Runs ``/name args`` for the built-ins; :meth:`handle` says whether the text was one."""

    def __init__(self, mode: InteractiveMode) -> None:
        self.mode = mode

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
            self.mode.console.print(Text(f"Error: {error}", style="bold red"))
        return True

    @property
    def _session(self) -> AgentSession:
        return self.mode.host.session

    def _info(self, text: str) -> None:
        self.mode.console.print(Text(text, style="cyan"))

    def _warn(self, text: str) -> None:
        self.mode.console.print(Text(text, style="yellow"))

    async def cmd_help(self, args: str) -> None:
        table = Table(show_header=False, box=None, padding=(0, 2))
        for builtin in BUILTINS:
            table.add_row(Text(builtin.usage), Text(builtin.description))
        for command in self._session.get_commands():
            what = f"{command.get('description', '')} ({command['source']})"
            table.add_row(Text(f"/{command['name']}"), Text(what))
        for key, what in KEYS:
            table.add_row(Text(key), Text(what))
        self.mode.console.print(table)

    async def cmd_settings(self, args: str) -> None:
        from pi_core.modes.interactive.settings_menu import run_settings_menu

        await run_settings_menu(self.mode)

    async def cmd_model(self, args: str) -> None:
        models: list[Model] = await self._session.get_available_models()
        if not models:
            self._warn("No models available: set an API key (see /help) or add models.json")
            return
        chosen = find_exact_model(args, models) if args else None
        if chosen is None:
            matches = fuzzy_filter(models, args) if args else models
            if not matches:
                self._warn(f"No model matches {args!r}")
                return
            if len(matches) == 1:
                chosen = matches[0]
            else:
                labels = [f"{m.provider}/{m.id}" for m in matches]
                picked = await self.mode.ui.select("Select a model", labels)
                if picked is None:
                    return
                chosen = matches[labels.index(picked)]
        await self._session.set_model(chosen)
        self._info(f"Model: {chosen.provider}/{chosen.id}")

    async def cmd_scoped_models(self, args: str) -> None:
        session = self._session
        available: list[Model] = await session.get_available_models()
        if not available:
            self._warn("No models available: set an API key (see /login) or add models.json")
            return
        levels = {(m.provider, m.id): level for m, level in session.services.scoped_models}
        chosen = set(levels)
        actions = ("Use the checked models in this session", "Use them and save them to settings")
        title = "Models for Ctrl+P (Enter checks; none checked: all)"
        row = 0
        while True:
            rows = [
                f"[{'x' if (m.provider, m.id) in chosen else ' '}] {m.provider}/{m.id}" for m in available
            ]
            picked = await self.mode.pick(title, [*rows, *actions], initial=row, numbered=False)
            if picked is None:
                self._info("Scoped models unchanged")
                return
            if picked >= len(available):
                break
            chosen.symmetric_difference_update({(available[picked].provider, available[picked].id)})
            row = picked
        models = [m for m in available if (m.provider, m.id) in chosen]
        session.services.scoped_models = [(m, levels.get((m.provider, m.id))) for m in models]
        names = [f"{m.provider}/{m.id}" for m in models]
        if picked == len(available) + 1:
            session.settings.set("enabledModels", names or None)
        self._info(f"Ctrl+P cycles through: {', '.join(names) if names else 'all available models'}")

    async def cmd_thinking(self, args: str) -> None:
        if not args:
            self._info(f"Thinking level: {self._session.thinking_level}")
            return
        if args not in THINKING_LEVELS:
            self._warn(f"Unknown thinking level {args!r}; use one of {', '.join(THINKING_LEVELS)}")
            return
        self._session.set_thinking_level(args)
        level = self._session.thinking_level
        note = "" if level == args else f" (the model supports no {args!r})"
        self._info(f"Thinking level: {level}{note}")

    async def cmd_compact(self, args: str) -> None:
        if len(self._session.messages) < 2:
            self._warn("Nothing to compact (no messages yet)")
            return
        self.mode.start_task(self._session.compact(args or None))

    async def cmd_new(self, args: str) -> None:
        if await self.mode.host.new_session():
            self._warn("A plugin cancelled the new session")
            return
        self._info("New session started")

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
        table.add_row("Name", self._session.session_name or "-")
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

    async def cmd_export(self, args: str) -> None:
        target = os.path.expanduser(args) if args else None  # noqa: ASYNC240 - no I/O
        if target is not None and target.endswith(".jsonl"):
            path = await self._session.export_to_jsonl(target)
        else:
            path = await self._session.export_to_html(target)
        self._info(f"Session exported to: {path}")

    async def cmd_import(self, args: str) -> None:
        if not args:
            self._warn("Usage: /import <path.jsonl>")
            return
        path = os.path.expanduser(args)  # noqa: ASYNC240 - no I/O
        if not await self.mode.ui.confirm("Import session", f"Replace current session with {path}?"):
            self._info("Import cancelled")
            return
        if await self.mode.host.import_session(path):
            self._info("Import cancelled")
            return
        self.mode.renderer.replay(self._session.messages)
        self._info(f"Session imported from: {path}")

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

    async def cmd_hotkeys(self, args: str) -> None:
        table = Table(show_header=False, box=None, padding=(0, 2))
        for key, what in KEYS:
            table.add_row(Text(key), Text(what))
        for key, spec in self.mode.host.plugins.shortcuts.items():
            table.add_row(Text(key), Text(f"{spec.description or ''} ({spec.plugin})"))
        self.mode.console.print(table)

    async def cmd_login(self, args: str) -> None:
        registry = self._session.model_registry
        provider = args or await self._choose_provider(
            "Save an API key for which provider?", registry.providers()
        )
        if provider is None:
            return
        key = await self.mode.ui.input(f"API key for {provider}", "pasted key (not shown)", secret=True)
        if not key or not key.strip():
            self._warn("No key given; nothing saved")
            return
        await asyncio.to_thread(registry.auth.set_api_key, provider, key.strip())
        self._info(f"Saved the API key for {provider} in {registry.auth.path} (mode 0600)")

    async def cmd_logout(self, args: str) -> None:
        auth = self._session.model_registry.auth
        stored = sorted(await asyncio.to_thread(auth.read))
        if not stored:
            self._warn(f"No saved credentials in {auth.path}")
            return
        provider = args or await self._choose_provider("Remove the credentials of which provider?", stored)
        if provider is None:
            return
        if provider not in stored:
            self._warn(f"No saved credentials for {provider}")
            return
        await asyncio.to_thread(auth.remove, provider)
        self._info(f"Removed the credentials of {provider} from {auth.path}")

    async def _choose_provider(self, title: str, providers: list[str]) -> str | None:
        if not providers:
            self._warn("No providers known: add one in models.json")
            return None
        index = await self.mode.pick(title, providers, numbered=False)
        return None if index is None else providers[index]

    async def cmd_resume(self, args: str) -> None:
        from pi_core.session.manager import SessionManager

        current = self._session.session_file
        directory = self._session.session_manager.get_session_dir()
        listed = await asyncio.to_thread(SessionManager.list_sessions, self._session.cwd, directory)
        sessions = [info for info in listed if info.path != current]
        if not sessions:
            self._warn("No other sessions found for this project")
            return
        labels = [
            f"{info.modified:%Y-%m-%d %H:%M}  {info.message_count} msgs  "
            f"{info.name or info.first_message.replace(chr(10), ' ')[:60]}"
            for info in sessions
        ]
        picked = await self.mode.ui.select("Resume which session?", labels)
        if picked is None:
            return
        target = sessions[labels.index(picked)].path
        if await self.mode.host.switch_session(target):
            self._warn("A plugin cancelled the switch")
            return
        self._info(f"Resumed {target}")
        self.mode.renderer.replay(self._session.messages)

    async def cmd_fork(self, args: str) -> None:
        candidates = self._session.get_user_messages_for_forking()
        if not candidates:
            self._warn("No messages to fork from")
            return
        labels = [f"{i}. {text.replace(chr(10), ' ')[:80]}" for i, (_, text) in enumerate(candidates, 1)]
        picked = await self.mode.ui.select("Fork from which message?", labels)
        if picked is None:
            return
        entry_id, _ = candidates[labels.index(picked)]
        cancelled, text = await self.mode.host.fork(entry_id)
        if cancelled:
            self._warn("A plugin cancelled the fork")
            return
        self._info("Forked into a new session; the message is back in the editor")
        self.mode.renderer.replay(self._session.messages)
        self.mode.set_editor_text(text)

    async def cmd_tree(self, args: str) -> None:
        session = self._session
        manager = session.session_manager
        if args and args not in FILTER_MODES:
            self._warn(f"Unknown filter {args!r}; use one of {', '.join(FILTER_MODES)}")
            return
        mode: FilterMode = args or session.settings.settings.tree_filter_mode
        rows = tree_rows(manager.get_tree(), manager.get_leaf_id(), mode)
        if not rows:
            self._warn("Nothing to show in the tree" + ("" if mode == "all" else f" (filter: {mode})"))
            return
        shown: list[TreeRow] = rows

        def cycle_filter(picker: Picker) -> None:
            nonlocal mode, shown
            current = shown[picker.highlighted].entry_id if picker.highlighted is not None else None
            mode = FILTER_MODES[(FILTER_MODES.index(mode) + 1) % len(FILTER_MODES)]
            shown = tree_rows(manager.get_tree(), manager.get_leaf_id(), mode)
            ids = [row.entry_id for row in shown]
            picker.set_rows([row.text for row in shown], keep=ids.index(current) if current in ids else None)
            picker.note = _filter_note(mode)

        index = await self.mode.pick(
            "Go to which entry?",
            [row.text for row in rows],
            initial=active_index(rows),
            numbered=False,
            extra_keys={"c-o": cycle_filter},
            note=_filter_note(mode),
        )
        if index is None:
            return
        target = shown[index].entry_id
        if target == manager.get_leaf_id():
            self._info("Already at that entry")
            return
        summarize, instructions = False, None
        if collect_entries_for_branch_summary(manager, manager.get_leaf_id(), target).entries:
            choice = await self.mode.pick(
                "Summarize the branch you are leaving?", SUMMARY_CHOICES, numbered=False
            )
            if choice is None:
                return
            summarize = choice > 0
            if choice == 2:
                instructions = await self.mode.ui.input("Focus the summary on", "what to keep")
                if instructions is None:
                    return
        self.mode.start_task(self._navigate(target, summarize, instructions or None), footer=False)

    async def _navigate(self, target: str, summarize: bool, instructions: str | None) -> None:
        session = self._session
        if summarize:
            self._info("Summarizing the branch you are leaving… (Esc aborts)")
        outcome = await session.navigate_tree(target, summarize=summarize, custom_instructions=instructions)
        if outcome.cancelled:
            self._warn(
                "Summary aborted; nothing changed" if outcome.aborted else "A plugin cancelled the move"
            )
            return
        self.mode.renderer.replay(session.messages)
        note = " with a summary of the branch left" if outcome.summary_entry is not None else ""
        self._info(f"Moved to a new position in the tree{note}")
        if outcome.editor_text is not None:
            self.mode.set_editor_text(outcome.editor_text)

    async def cmd_clone(self, args: str) -> None:
        leaf = self._session.session_manager.get_leaf_id()
        if not leaf or not self._session.messages:
            self._warn("Nothing to clone yet")
            return
        cancelled, _ = await self.mode.host.fork(leaf, position="at")
        if cancelled:
            self._warn("A plugin cancelled the clone")
            return
        self._info(f"Cloned into {self._session.session_file or 'a new in-memory session'}")

    async def cmd_reload(self, args: str) -> None:
        await self.mode.host.reload()
        self._info("Reloaded settings, models, context files, skills, prompt templates and plugins")

    async def cmd_quit(self, args: str) -> None:
        self.mode.request_quit()
