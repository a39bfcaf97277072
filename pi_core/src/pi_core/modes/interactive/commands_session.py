"""Built-in commands that move between sessions and within one: /new, /resume, /fork, /clone,
/tree, /import and /export."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from pi_core.modes.interactive.command_base import CommandBase
from pi_core.modes.interactive.tree_view import FILTER_MODES, FilterMode, TreeState
from pi_core.runtime.compaction.navigate import collect_entries_for_branch_summary
from pi_core.runtime.themes import Theme

if TYPE_CHECKING:
    from pi_core.runtime.host import MissingCwdChoice, MissingSessionCwdError
    from pi_core.session.listing import SessionInfo

#: Where ``/share`` links point (``PI_SHARE_VIEWER_URL`` overrides), as pi.
DEFAULT_SHARE_VIEWER_URL = "https://pi.dev/session/"

SUMMARY_CHOICES = ("No summary", "Summarize", "Summarize with custom prompt")


class SessionCommands(CommandBase):
    async def cmd_new(self, args: str) -> None:
        if await self.mode.host.new_session():
            self._warn("A plugin cancelled the new session")
            return
        self._info("New session started")

    async def cmd_resume(self, args: str) -> None:
        from pi_core.modes.interactive.resume_selector import ResumeSelector, delete_session_file
        from pi_core.session.manager import SessionManager

        session = self._session
        current = session.session_file
        directory = session.session_manager.get_session_dir()
        agent_dir = self.mode.host.options.agent_dir

        async def load(scope: str) -> list[SessionInfo]:
            if scope == "current":
                return await asyncio.to_thread(SessionManager.list_sessions, session.cwd, directory)
            return await asyncio.to_thread(SessionManager.list_all, agent_dir)

        selector = ResumeSelector(
            load,
            current_path=current,
            rename=self._rename_session,
            delete=delete_session_file,
            keymap=self.mode.keymap.keys,
            styles=lambda: self.mode.styles,
        )
        await selector.start()
        target = await self.mode.show_selector(selector)
        if target is None:
            return
        if target == current:
            self._info("Already in this session")
            return
        from pi_core.runtime.host import MissingSessionCwdError

        try:
            cancelled = await self.mode.host.switch_session(target)
            done = f"Resumed {target}"
        except MissingSessionCwdError as missing:
            choice = await self._missing_cwd_choice(missing)
            if choice is None:
                self._info("Resume cancelled")
                return
            cancelled = await self.mode.host.switch_session(target, choice)
            done = f"Resumed session in {missing.fallback_cwd}" if choice == "continue" else "Forked session"
        if cancelled:
            self._warn("A plugin cancelled the switch")
            return
        self.mode.redraw()
        self._info(done)

    async def _missing_cwd_choice(self, missing: MissingSessionCwdError) -> MissingCwdChoice | None:
        """As pi 1.6.0 for a session whose folder is gone: continue it here (the file is not
        changed) or fork it into this cwd; ``None`` when cancelled."""
        choices = missing.choices()
        labels = [label for label, _ in choices] + ["Cancel"]
        picked = await self.mode.pick(missing.question, labels)
        return None if picked is None or picked >= len(choices) else choices[picked][1]

    async def _rename_session(self, path: str, name: str) -> None:
        """Ctrl+R in /resume: a ``session_info`` entry with the new name, in that session's file."""
        from pi_core.session.manager import SessionManager

        def rename() -> None:
            manager = SessionManager.open(path)
            try:
                manager.append_session_info(name)
            finally:
                manager.close()

        await asyncio.to_thread(rename)

    async def cmd_fork(self, args: str) -> None:
        candidates = self._session.get_user_messages_for_forking()
        if not candidates:
            self._warn("No messages to fork from")
            return
        from pi_core.modes.interactive.fork_selector import ForkSelector

        # Every user message of the session, on every branch, oldest first; the newest highlighted.
        selector = ForkSelector(
            [text for _, text in candidates], keymap=self.mode.keymap.keys, styles=lambda: self.mode.styles
        )
        picked = await self.mode.show_selector(selector)
        if picked is None:
            return
        entry_id, _ = candidates[picked]
        cancelled, text = await self.mode.host.fork(entry_id)
        if cancelled:
            self._warn("A plugin cancelled the fork")
            return
        self.mode.redraw()
        self._info("Forked into a new session; the message is back in the editor")
        self.mode.set_editor_text(text)

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

    async def cmd_tree(self, args: str) -> None:
        session = self._session
        manager = session.session_manager
        if args and args not in FILTER_MODES:
            self._warn(f"Unknown filter {args!r}; use one of {', '.join(FILTER_MODES)}")
            return
        mode: FilterMode = args or session.settings.settings.tree_filter_mode
        if not manager.get_tree():
            self._info("No entries in session")
            return
        from pi_core.modes.interactive.tree_selector import TreeSelector

        selected: str | None = None
        while True:
            state = TreeState(
                manager.get_tree(),
                manager.get_leaf_id(),
                mode,
                page=max(5, self.mode.terminal_size()[1] // 2),
            )
            if selected is not None:
                state.select(selected)
            selector = TreeSelector(
                state,
                keys=self.mode.keymap.keys,
                on_label=manager.append_label_change,
                on_copy=self._copy_entry,
                styles=lambda: self.mode.styles,
            )
            target = await self.mode.show_selector(selector)
            mode = state.mode
            if target is None:
                return
            if target == manager.get_leaf_id():
                self._info("Already at this point")
                return
            summarize, instructions = False, None
            skip = session.settings.settings.branch_summary.skip_prompt
            leaving = collect_entries_for_branch_summary(manager, manager.get_leaf_id(), target).entries
            if leaving and not skip:
                answer = await self._summary_choice()
                if answer is None:
                    selected = target  # back to the tree, on the same entry, as pi
                    continue
                summarize, instructions = answer
            self.mode.start_task(self._navigate(target, summarize, instructions or None), footer=False)
            return

    async def _summary_choice(self) -> tuple[bool, str | None] | None:
        """As pi: no summary, a summary, or one with your instructions (Esc in the instructions
        asks again); ``None`` when the question itself is cancelled."""
        while True:
            choice = await self.mode.pick("Summarize branch?", SUMMARY_CHOICES)
            if choice is None:
                return None
            if choice < 2:
                return choice == 1, None
            instructions = await self.mode.ui.editor("Custom summarization instructions")
            if instructions is not None:
                return True, instructions.strip() or None

    async def _copy_entry(self, text: str) -> str:
        """Ctrl+X in the tree: the entry's text to the clipboard; what happened, for its status line."""
        from pi_core.modes.interactive.clipboard import copy_to_clipboard

        terminal = self.mode.console.file if self.mode.console.is_terminal else None
        if await copy_to_clipboard(text, terminal):
            return "Copied selected message to clipboard"
        return "No clipboard here: install xclip, xsel or wl-copy, or use a terminal with OSC 52"

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
        self.mode.redraw()
        note = " with a summary of the branch left" if outcome.summary_entry is not None else ""
        self._info(f"Moved to a new position in the tree{note}")
        if outcome.editor_text is not None:
            self.mode.set_editor_text(outcome.editor_text)

    async def cmd_share(self, args: str) -> None:
        """Export to HTML and upload it as a secret gist with the GitHub CLI, as pi's ``/share``."""
        import shutil
        import tempfile

        if shutil.which("gh") is None:
            self._warn("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/")
            return
        status, _, _ = await _run("gh", "auth", "status")
        if status != 0:
            self._warn("GitHub CLI is not logged in. Run 'gh auth login' first.")
            return
        with tempfile.TemporaryDirectory(prefix="pi-share-") as directory:
            page = await self._session.export_to_html(os.path.join(directory, "session.html"), self._theme())
            self._info("Creating gist…")
            status, out, err = await _run("gh", "gist", "create", "--public=false", str(page))
        if status != 0:
            self._warn(f"Failed to create gist: {err.strip() or 'Unknown error'}")
            return
        gist_url = out.strip()
        gist_id = gist_url.rstrip("/").rsplit("/", 1)[-1]
        if not gist_id:
            self._warn("Failed to parse gist ID from gh output")
            return
        viewer = os.environ.get("PI_SHARE_VIEWER_URL") or DEFAULT_SHARE_VIEWER_URL
        self._info(f"Share URL: {viewer}#{gist_id}\nGist: {gist_url}")

    async def cmd_import(self, args: str) -> None:
        if not args:
            self._warn("Usage: /import <path.jsonl>")
            return
        path = os.path.expanduser(args)  # noqa: ASYNC240 - no I/O
        if not await self.mode.ui.confirm("Import session", f"Replace current session with {path}?"):
            self._info("Import cancelled")
            return
        from pi_core.runtime.host import MissingSessionCwdError

        try:
            cancelled = await self.mode.host.import_session(path)
        except MissingSessionCwdError as missing:
            choice = await self._missing_cwd_choice(missing)
            cancelled = choice is None or await self.mode.host.import_session(path, choice)
        if cancelled:
            self._info("Import cancelled")
            return
        self.mode.redraw()
        self._info(f"Session imported from: {path}")

    async def cmd_export(self, args: str) -> None:
        target = os.path.expanduser(args) if args else None  # noqa: ASYNC240 - no I/O
        if target is not None and target.endswith(".jsonl"):
            path = await self._session.export_to_jsonl(target)
        else:
            path = await self._session.export_to_html(target, self._theme())
        self._info(f"Session exported to: {path}")

    def _theme(self) -> Theme | None:
        """The theme the REPL draws with, for the exported page (pi's /export takes it)."""
        theme = self.mode.ui.theme
        return theme if isinstance(theme, Theme) else None


async def _run(*command: str) -> tuple[int, str, str]:
    """Run a program; exit status, stdout, stderr."""
    from pi_core.runtime.process import run_program

    done = await run_program(*command)
    return done.code, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
