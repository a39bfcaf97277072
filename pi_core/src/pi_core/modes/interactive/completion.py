"""Editor completion: ``/`` commands, ``/model`` ids, ``/thinking`` levels, plugin command
arguments, ``@`` paths."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from pi_core.ai.resolve import fuzzy_rank
from pi_core.modes.interactive.commands import BUILTINS
from pi_core.modes.interactive.file_index import FileIndex, quote_path

if TYPE_CHECKING:
    from pi_core.modes.interactive.app import InteractiveMode


class SlashCompleter(Completer):
    """``/`` completes built-in and session commands; ``/model `` model ids; ``/thinking ``
    levels; plugin arguments."""

    def __init__(self, mode: InteractiveMode) -> None:
        self.mode = mode
        self._index: FileIndex | None = None

    @property
    def index(self) -> FileIndex:
        """The file index of the session's directory (a new one when the directory changes)."""
        cwd = self.mode.host.session.cwd
        if self._index is None or self._index.root != cwd:
            self._index = FileIndex(cwd)
        return self._index

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        word = text.rsplit(None, 1)[-1] if text and not text[-1].isspace() else ""
        if word.startswith("@"):
            yield from self._file_completions(word[1:])
            return
        if not text.startswith("/") or "\n" in text:
            return
        name, space, args = text[1:].partition(" ")
        if not space:
            for candidate, meta in self._commands():
                if candidate.startswith(name):
                    yield Completion(candidate, start_position=-len(name), display_meta=meta)
            return
        if name == "model":
            yield from self._model_completions(args)
            return
        if name == "thinking":
            yield from self._thinking_completions(args)
            return
        yield from self._plugin_completions(name, args)

    def _file_completions(self, typed: str) -> Iterable[Completion]:
        """Fuzzy over the project's files once the index is built; the typed directory until then."""
        index = self.index
        index.refresh_if_stale()
        if not index.ready:
            yield from _path_completions(index.root, typed)
            return
        for path in index.search(typed.strip('"')):
            meta = "directory" if path.endswith("/") else ""
            yield Completion(quote_path(path), start_position=-len(typed), display=path, display_meta=meta)

    def _commands(self) -> list[tuple[str, str]]:
        session = self.mode.host.session
        skills = session.settings.settings.enable_skill_commands  # pi: only hides them from completion
        found = [(b.name, b.description) for b in BUILTINS]
        found.extend(
            (c["name"], c.get("description", ""))
            for c in session.get_commands()
            if skills or c.get("source") != "skill"
        )
        return found

    def _model_completions(self, prefix: str) -> Iterable[Completion]:
        registry = self.mode.host.session.model_registry
        if registry is None:
            return
        for model in registry.get_available():
            label = f"{model.provider}/{model.id}"
            if prefix.lower() in label.lower():
                yield Completion(label, start_position=-len(prefix))

    def _thinking_completions(self, prefix: str) -> Iterable[Completion]:
        """The model's levels, best fuzzy match first (as pi)."""
        levels = self.mode.host.session.available_thinking_levels()
        for level in fuzzy_rank(levels, prefix, str):
            yield Completion(level, start_position=-len(prefix))

    def _plugin_completions(self, name: str, prefix: str) -> Iterable[Completion]:
        spec = next((c for c in self.mode.host.services.commands if c.invocation_name == name), None)
        if spec is None or spec.get_argument_completions is None:
            return
        try:
            items = spec.get_argument_completions(prefix)
        except Exception:  # a plugin's completer must never break typing
            return
        for item in items or []:
            value = item if isinstance(item, str) else getattr(item, "value", None) or item.get("value")
            label = item if isinstance(item, str) else getattr(item, "label", None) or item.get("label")
            if value:
                yield Completion(str(value), start_position=-len(prefix), display=str(label or value))


def _path_completions(cwd: str, typed: str, limit: int = 100) -> Iterable[Completion]:
    """``@path`` completion: entries of the typed directory (relative to the session's cwd)."""
    head, _, stem = typed.rpartition("/")
    base = Path(cwd) / head if head else Path(cwd)
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return
    shown = 0
    for entry in entries:
        if not entry.name.startswith(stem) or entry.name == ".git":
            continue
        name = entry.name + ("/" if entry.is_dir() else "")
        yield Completion(name, start_position=-len(stem))
        shown += 1
        if shown >= limit:
            return


class GuardedCompleter(Completer):
    """A plugin's completer (``ctx.ui.add_autocomplete_provider``): when it raises, the error is
    reported as the plugin's and the completer it wrapped answers from then on."""

    def __init__(self, inner: Completer, fallback: Completer, plugin: str, mode: InteractiveMode) -> None:
        self.inner = inner
        self.fallback = fallback
        self.plugin = plugin
        self.mode = mode
        self.failed = False

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        if self.failed:
            yield from self.fallback.get_completions(document, complete_event)
            return
        try:
            found = list(self.inner.get_completions(document, complete_event))
        except Exception as error:
            self.failed = True
            self.mode.host.session.report_plugin_error(self.plugin, "ui.add_autocomplete_provider", error)
            found = list(self.fallback.get_completions(document, complete_event))
        yield from found
