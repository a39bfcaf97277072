"""The ``/resume`` selector as pi 1.6.0 draws it in the editor's place.

Between two rules: the title with the scope (this folder's sessions or all of them), the name
filter and the sort order on the right; two lines of keys; the search field; up to ten sessions,
one a line — the name (or first message) on the left, the message count and age on the right.
In the ``threaded`` order a forked session hangs under the one it came from. The session in use
is in the accent colour, a named one in the warning colour.

Keys as pi: Tab switches the scope, Ctrl+S the order (threaded, recent, relevance), Ctrl+N
named sessions only, Ctrl+P shows each file's path, Ctrl+D deletes the highlighted session after
Enter confirms, Ctrl+R renames it in place; Up/Down and PageUp/PageDown move, Enter resumes, Esc
or Ctrl+C cancels. Typing searches: words fuzzily in the name and folder and literally in the id,
every user and assistant message and the folder; ``"a phrase"`` literally; ``re:pattern`` as a
regular expression. The messages are read (in a thread, a batch at a time) once a search is
typed, not when the list opens, and each key typed on searches only what the last one matched.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.utils import get_cwidth

from pi_core.ai.resolve import _fuzzy_score
from pi_core.modes.interactive.fork_selector import fit
from pi_core.modes.interactive.line_edit import LineEdit, bind_line_edit
from pi_core.modes.interactive.picker import Selector, centred_rows
from pi_core.modes.interactive.styles import ReplStyles
from pi_core.session.listing import SessionInfo, read_session_texts

MAX_VISIBLE = 10
Scope = Literal["current", "all"]
Sort = Literal["threaded", "recent", "relevance"]
_SORTS: tuple[Sort, ...] = ("threaded", "recent", "relevance")
_SORT_LABELS = {"threaded": "Threaded", "recent": "Recent", "relevance": "Fuzzy"}
#: Match tiers, best first: the query in the name, in other text, scattered in name or folder.
_TIER = 1_000_000


def age(modified: datetime, now: datetime | None = None) -> str:
    """How long ago, as pi's list says it: ``now``, ``5m``, ``3h``, ``2d``, ``1w``, ``4mo``, ``1y``."""
    now = now or datetime.now(UTC)
    seconds = (now - modified).total_seconds()
    minutes, hours, days = int(seconds // 60), int(seconds // 3600), int(seconds // 86400)
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{minutes}m"
    if hours < 24:
        return f"{hours}h"
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    if days < 365:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def _short_home(path: str) -> str:
    from pi_core.modes.interactive.tree_view import _short_home as short

    return short(path)


@dataclass
class Query:
    """A parsed search: words (fuzzy) and phrases (literal), or a regular expression."""

    words: list[tuple[str, bool]] = field(default_factory=list)  # (text, is a phrase)
    regex: re.Pattern[str] | None = None
    error: str | None = None


def parse_query(text: str) -> Query:
    text = text.strip()
    if text.startswith("re:"):
        pattern = text[3:].strip()
        if not pattern:
            return Query(error="Empty regex")
        try:
            return Query(regex=re.compile(pattern, re.IGNORECASE))
        except re.error as error:
            return Query(error=str(error))
    if text.count('"') % 2:  # an open quote: plain words
        return Query(words=[(word, False) for word in text.split()])
    words: list[tuple[str, bool]] = []
    for index, part in enumerate(text.split('"')):
        if index % 2:
            if part.strip():
                words.append((part.strip(), True))
        else:
            words += [(word, False) for word in part.split()]
    return Query(words=words)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass
class MessageText:
    """A session's message text as the search reads it (:func:`read_session_text`: lowercased);
    for phrases, with its runs of whitespace as one space, made when first asked for."""

    lower: str
    _normalized: str | None = None

    @property
    def normalized(self) -> str:
        if self._normalized is None:
            self._normalized = " ".join(self.lower.split())
        return self._normalized


def match_score(info: SessionInfo, query: Query, text: MessageText | None = None) -> float | None:
    """Lower is better; ``None`` when ``info`` does not match. ``text`` is the session's message
    text (all its messages, as pi searches them); without it, its first message stands in."""
    text = text or MessageText(info.first_message.lower())
    name = info.name or ""
    if query.regex is not None:
        if name and query.regex.search(name):
            return 0.0
        fields = (info.id, text.lower, info.cwd)
        return float(_TIER) if any(query.regex.search(field) for field in fields) else None
    total = 0.0
    for word, phrase in query.words:
        score = _phrase_score(info, _norm(word), text) if phrase else _word_score(info, word, text)
        if score is None:
            return None
        total += score
    return total


def _literal(info: SessionInfo, value: str, normalize: bool, text: MessageText) -> float | None:
    def prepared(field: str) -> str:
        return _norm(field) if normalize else field.lower()

    name = prepared(info.name or "")
    if value in name:
        return _fuzzy_score(value, name) or 0.0
    messages = text.normalized if normalize else text.lower
    if value in messages or any(value in prepared(field) for field in (info.id, info.cwd)):
        return float(_TIER)
    return None


def _phrase_score(info: SessionInfo, phrase: str, text: MessageText) -> float | None:
    return _literal(info, phrase, normalize=True, text=text) if phrase else 0.0


def _word_score(info: SessionInfo, word: str, text: MessageText) -> float | None:
    literal = _literal(info, word.lower(), normalize=False, text=text)
    if literal is not None:
        return literal
    scores = [s for s in (_fuzzy_score(word, info.name or ""), _fuzzy_score(word, info.cwd)) if s is not None]
    return 2 * _TIER + min(scores) if scores else None


@dataclass
class Row:
    info: SessionInfo
    prefix: str = ""


def threaded(sessions: Sequence[SessionInfo]) -> list[Row]:
    """Sessions as a tree of forks (by ``parent_session_path``), the latest activity first."""
    children: dict[str | None, list[SessionInfo]] = {}
    paths = {info.path for info in sessions}
    for info in sessions:
        parent = info.parent_session_path if info.parent_session_path in paths else None
        children.setdefault(parent, []).append(info)
    latest: dict[str, float] = {}

    def activity(info: SessionInfo) -> float:
        if info.path not in latest:
            latest[info.path] = info.modified.timestamp()  # set first: a cycle ends here
            below = [activity(child) for child in children.get(info.path, [])]
            latest[info.path] = max([info.modified.timestamp(), *below])
        return latest[info.path]

    rows: list[Row] = []
    seen: set[str] = set()

    def walk(info: SessionInfo, depth: int, guides: tuple[bool, ...], last: bool) -> None:
        if info.path in seen:
            return
        seen.add(info.path)
        prefix = (
            "".join("│  " if more else "   " for more in guides) + ("└─ " if last else "├─ ") if depth else ""
        )
        rows.append(Row(info, prefix))
        below = sorted(children.get(info.path, []), key=activity, reverse=True)
        for index, child in enumerate(below):
            more = (*guides, depth > 0 and not last)  # no guide runs down from a root
            walk(child, depth + 1, more, index == len(below) - 1)

    roots = sorted(children.get(None, []), key=activity, reverse=True)
    for index, root in enumerate(roots):
        walk(root, 0, (), index == len(roots) - 1)
    return rows


@dataclass
class SessionList:
    """The selector's state."""

    current_path: str | None = None
    scope: Scope = "current"
    sort: Sort = "threaded"
    named_only: bool = False
    show_path: bool = False
    query: str = ""
    index: int = 0
    loaded: dict[str, list[SessionInfo]] = field(default_factory=dict)
    rows: list[Row] = field(default_factory=list)
    #: Each session's message text (by path), read once a search needs it.
    texts: dict[str, MessageText] = field(default_factory=dict)
    #: The last plain search (its words, and the paths of the sessions it matched), while
    #: nothing else changed; see :meth:`_narrowed`.
    _last_search: tuple[tuple[Any, ...], list[str], set[str]] | None = None

    def sessions(self) -> list[SessionInfo]:
        return self.loaded.get(self.scope, [])

    def refilter(self, keep_top: bool = False) -> None:
        pool = [info for info in self.sessions() if not self.named_only or (info.name or "").strip()]
        if self.sort == "threaded" and not self.query.strip():
            self.rows = threaded(pool)
        elif not self.query.strip():
            self.rows = [Row(info) for info in pool]
        else:
            query = parse_query(self.query)
            pool = self._narrowed(pool, query)
            if query.error:
                self.rows = []
            elif self.sort == "recent":
                self.rows = [Row(info) for info in pool if self.score(info, query) is not None]
            else:
                scored = [(self.score(info, query), info) for info in pool]
                found = [(score, info) for score, info in scored if score is not None]
                found.sort(key=lambda item: (item[0], -item[1].modified.timestamp()))
                self.rows = [Row(info) for _, info in found]
        if self.query.strip() and not query.error and query.regex is None:
            words = [word for word, _ in query.words]
            self._last_search = (self._search_key(), words, {row.info.path for row in self.rows})
        self.index = 0 if keep_top else min(self.index, max(0, len(self.rows) - 1))

    def _search_key(self) -> tuple[Any, ...]:
        return (self.scope, self.named_only, id(self.sessions()), len(self.sessions()), len(self.texts))

    def _narrowed(self, pool: list[SessionInfo], query: Query) -> list[SessionInfo]:
        """``pool``, or only the sessions the last search matched when this one only types on
        (its words are those words, the last one longer, and maybe more): a session no word
        of the last search found cannot match one that asks more of it, so a search typed on
        over many large sessions reads less of them with each key. Phrases count as words (a
        longer phrase holds the shorter one)."""
        last = self._last_search
        if last is None or query.regex is not None or last[0] != self._search_key():
            return pool
        words, before = [word for word, _ in query.words], last[1]
        if not before or len(words) < len(before) or words[: len(before) - 1] != before[:-1]:
            return pool
        if not words[len(before) - 1].lower().startswith(before[-1].lower()):
            return pool
        return [info for info in pool if info.path in last[2]]

    def score(self, info: SessionInfo, query: Query) -> float | None:
        return match_score(info, query, self.texts.get(info.path))

    def unread(self) -> list[str]:
        """The sessions of the scope whose message text is not read yet, most recent first."""
        return [info.path for info in self.sessions() if info.path not in self.texts]

    @property
    def selected(self) -> SessionInfo | None:
        return self.rows[self.index].info if self.rows else None


class ResumeSelector(Selector):
    """The sessions to resume; it finishes with the chosen session's path."""

    def __init__(
        self,
        load: Callable[[Scope], Awaitable[list[SessionInfo]]],
        *,
        current_path: str | None = None,
        rename: Callable[[str, str], Awaitable[None]] | None = None,
        delete: Callable[[str], Awaitable[str | None]] | None = None,
        keymap: Mapping[str, Sequence[str]] | None = None,
        styles: Callable[[], ReplStyles] | None = None,
        read_texts: Callable[[Sequence[str]], dict[str, str | None]] = read_session_texts,
    ) -> None:
        """``load(scope)`` lists sessions; ``delete(path)`` says how it went (``None``: it failed);
        ``read_texts(paths)`` (run in a thread) reads the message text of the first few paths."""
        self.keymap = keymap or {}
        self.state = SessionList(current_path=current_path)
        self.load = load
        self.rename = rename
        self.delete = delete
        self._styles = styles
        self.loading: Scope | None = None
        #: The path waiting for Enter to delete it.
        self.confirming: str | None = None
        #: The session being renamed (its path), or ``None``.
        self.renaming: str | None = None
        #: The rename field, one for the selector's life: as in pi, a second rename finds the
        #: cursor where the first left it (the first starts at the name's start).
        self.rename_field = LineEdit()
        #: The search field.
        self.search = LineEdit()
        #: A note in place of the key lines: (text, role).
        self.status: tuple[str, str] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._read_texts = read_texts
        #: Whether the sessions' message text is being read (for a search).
        self.reading = False
        super().__init__()

    async def start(self) -> None:
        """Load the sessions of the first scope (before showing the list: a key typed at once
        finds them there); the other scope loads when Tab first shows it."""
        await self._load(self.state.scope)

    def _note(self, text: str, role: str, seconds: float) -> None:
        """A note in place of the key lines for a few seconds, as pi's."""
        note = (text, role)
        self.status = note

        async def expire() -> None:
            await asyncio.sleep(seconds)
            if self.status is note:
                self.status = None
                self.invalidate()

        self._spawn(expire())

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _load(self, scope: Scope) -> None:
        self.loading = scope
        self.invalidate()
        try:
            self.state.loaded[scope] = await self.load(scope)
        except OSError as error:
            self.state.loaded[scope] = []
            self._note(f"Failed to load sessions: {error}", "error", 4)
        finally:
            self.loading = None
        if scope == self.state.scope:
            self.state.refilter()
            self._search_messages()
        self.invalidate()

    def _search_messages(self) -> None:
        """Once a search is typed: read the scope's message text in the background (pi searches
        all of it; the list itself reads only what it shows), showing matches as they come."""
        if not self.reading and self.state.query.strip() and self.state.unread():
            self.reading = True
            self._spawn(self._read_messages())

    async def _read_messages(self) -> None:
        state = self.state
        try:
            while not self.finished and (pending := state.unread()):
                found = await asyncio.to_thread(self._read_texts, pending)
                firsts = {info.path: info.first_message for info in state.sessions()}
                for path, text in found.items():  # an unreadable file: its first message, as before
                    state.texts[path] = MessageText(
                        text if text is not None else firsts.get(path, "").lower()
                    )
                if state.query.strip():
                    chosen, top = state.selected, state.index == 0
                    state.refilter(keep_top=True)
                    paths = [row.info.path for row in state.rows]
                    if chosen is not None and not top and chosen.path in paths:
                        state.index = paths.index(chosen.path)  # a moved highlight stays on its session
                self.invalidate()
        finally:
            self.reading = False

    def _fg(self, role: str) -> str:
        return self._styles().fg.get(role, "") if self._styles is not None else ""

    # --- keys -----------------------------------------------------------------------------------

    def bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        state = self.state
        listing = Condition(lambda: self.renaming is None and self.confirming is None)
        confirming = Condition(lambda: self.confirming is not None)
        renaming = Condition(lambda: self.renaming is not None)

        def searched() -> None:
            state.query = self.search.text
            state.refilter(keep_top=bool(state.query.strip()))
            self._search_messages()

        # pi's line editing in the search and rename fields, bound first: the selector's own
        # keys below (Ctrl+D deletes, Ctrl+P shows paths) win where they share a key.
        bind_line_edit(bindings, lambda: self.search, keymap=self.keymap, filter=listing, on_change=searched)
        bind_line_edit(bindings, lambda: self.rename_field, keymap=self.keymap, filter=renaming)

        def key(
            action: str, *defaults: str, when: Condition = listing
        ) -> Callable[[Callable[[], None]], None]:
            def add(handler: Callable[[], None]) -> None:
                self.on_keys(bindings, action, defaults, handler, when)

            return add

        @key("tui.input.tab", "tab")
        def _scope() -> None:
            state.scope = "all" if state.scope == "current" else "current"
            if state.scope not in state.loaded:
                self._spawn(self._load(state.scope))
            state.refilter()
            self._search_messages()

        @key("app.session.toggleSort", "ctrl+s")
        def _sort() -> None:
            state.sort = _SORTS[(_SORTS.index(state.sort) + 1) % len(_SORTS)]
            state.refilter()

        @key("app.session.toggleNamedFilter", "ctrl+n")
        def _named() -> None:
            state.named_only = not state.named_only
            state.refilter()

        @key("app.session.togglePath", "ctrl+p")
        def _path() -> None:
            state.show_path = not state.show_path

        @key("app.session.delete", "ctrl+d")
        def _delete() -> None:
            info = state.selected
            if info is None:
                return
            if info.path == state.current_path:
                self._note("Cannot delete the currently active session", "error", 3)
                return
            self.confirming = info.path

        @key("app.session.rename", "ctrl+r")
        def _rename() -> None:
            info = state.selected
            if info is not None and self.rename is not None and self.loading is None:
                self.renaming = info.path
                self.rename_field.set_text(info.name or "")

        @key("tui.select.up", "up")
        def _up() -> None:
            state.index = max(0, state.index - 1)

        @key("tui.select.down", "down")
        def _down() -> None:
            state.index = max(0, min(len(state.rows) - 1, state.index + 1))

        @key("tui.select.pageUp", "pageUp")
        def _page_up() -> None:
            state.index = max(0, state.index - MAX_VISIBLE)

        @key("tui.select.pageDown", "pageDown")
        def _page_down() -> None:
            state.index = max(0, min(len(state.rows) - 1, state.index + MAX_VISIBLE))

        @key("tui.select.confirm", "enter")
        def _choose() -> None:
            if state.selected is not None:
                self.finish(state.selected.path)

        @key("tui.select.cancel", "escape", "ctrl+c")
        def _cancel() -> None:
            self.finish(None)

        @key("tui.select.confirm", "enter", when=confirming)
        def _confirm_delete() -> None:
            path, self.confirming = self.confirming, None
            if path is not None:
                self._spawn(self._delete(path))

        @key("tui.select.cancel", "escape", "ctrl+c", when=confirming)
        def _keep() -> None:
            self.confirming = None

        @key("tui.input.submit", "enter", when=renaming)
        def _save_name() -> None:
            name = self.rename_field.text.strip()
            if self.renaming is not None and name:
                self._spawn(self._rename(self.renaming, name))

        @key("tui.select.cancel", "escape", "ctrl+c", when=renaming)
        def _keep_name() -> None:
            self.renaming = None

        return bindings

    async def _delete(self, path: str) -> None:
        how = await self.delete(path) if self.delete is not None else None
        if how is None:
            self._note("Failed to delete the session", "error", 3)
        else:
            self._note(how, "accent", 2)
            for sessions in self.state.loaded.values():
                sessions[:] = [info for info in sessions if info.path != path]
            self.state.refilter()
        self.invalidate()

    async def _rename(self, path: str, name: str) -> None:
        try:
            if self.rename is not None:
                await self.rename(path, name)
        except (OSError, ValueError, RuntimeError) as error:  # unwritable, unreadable, read-only
            self._note(f"Failed to rename: {error}", "error", 3)
        finally:
            self.renaming = None
        self.state.loaded.clear()
        await self._load(self.state.scope)

    # --- drawing --------------------------------------------------------------------------------

    def fragments(self) -> StyleAndTextTuples:
        width = self.width()
        rule: StyleAndTextTuples = [(self._fg("accent"), "─" * width)]
        lines: list[StyleAndTextTuples] = [[], rule, []]
        if self.renaming is not None:
            lines += [
                [(f"bold {self._fg('text')}", " Rename Session")],
                [],
                [("", "> "), *self.rename_field.fragments(width - 2)],
                [],
                [(self._fg("muted"), f" {self._save_hint()}")],
            ]
        else:
            lines += [self._header(width), *self._hints(width), [], *self._list(width)]
        lines += [[], rule]
        return self.join(lines, opening=2)

    def _save_hint(self) -> str:
        confirm = self.key_text("tui.select.confirm", "enter")
        return f"{confirm} to save · {self.key_text('tui.select.cancel', 'escape', 'ctrl+c')} to cancel"

    def _header(self, width: int) -> StyleAndTextTuples:
        state = self.state
        muted, accent = self._fg("muted"), self._fg("accent")
        title = "Resume Session (Current Folder)" if state.scope == "current" else "Resume Session (All)"
        right: StyleAndTextTuples
        if self.loading is not None:
            right = [(muted, "○ Current Folder | "), (accent, "Loading ...")]
        elif state.scope == "current":
            right = [(accent, "◉ Current Folder"), (muted, " | ○ All")]
        else:
            right = [(muted, "○ Current Folder | "), (accent, "◉ All")]
        right += [
            ("", "  "),
            (muted, "Name: "),
            (accent, "Named" if state.named_only else "All"),
            ("", "  "),
            (muted, "Sort: "),
            (accent, _SORT_LABELS[state.sort]),
        ]
        right_width = sum(get_cwidth(text) for _, text, *_ in right)
        left = fit(title, max(0, width - right_width - 1), "")
        gap = max(0, width - get_cwidth(left) - right_width)
        return [(f"bold {self._fg('text')}", left), ("", " " * gap), *right]

    def _hints(self, width: int) -> list[StyleAndTextTuples]:
        dim, muted = self._fg("dim"), self._fg("muted")
        if self.confirming is not None:
            return [
                [
                    (
                        self._fg("error"),
                        fit("Delete session? enter confirm · escape/ctrl+c cancel", width, "…"),
                    )
                ],
                [],
            ]
        if self.status is not None:
            text, role = self.status
            return [[(self._fg(role), fit(text, width, "…"))], []]

        def hint(key: str, what: str) -> StyleAndTextTuples:
            return [(dim, key), (muted, f" {what}")]

        separator: StyleAndTextTuples = [(muted, " · ")]
        first = [
            *hint(self.key_text("tui.input.tab", "tab"), "scope"),
            *separator,
            (muted, 're:<pattern> regex · "phrase" exact'),
        ]
        second: StyleAndTextTuples = []
        path = "on" if self.state.show_path else "off"
        parts = [
            (self.key_text("app.session.toggleSort", "ctrl+s"), "sort"),
            (self.key_text("app.session.toggleNamedFilter", "ctrl+n"), "named"),
            (self.key_text("app.session.delete", "ctrl+d"), "delete"),
            (self.key_text("app.session.togglePath", "ctrl+p"), f"path ({path})"),
        ]
        if self.rename is not None:
            parts.append((self.key_text("app.session.rename", "ctrl+r"), "rename"))
        for number, (key_name, what) in enumerate(parts):
            second += [*(separator if number else []), *hint(key_name, what)]
        return [first, second]

    def _list(self, width: int) -> list[StyleAndTextTuples]:
        state = self.state
        muted = self._fg("muted")
        lines: list[StyleAndTextTuples] = [[("", "> "), *self.search.fragments(width - 2)], []]
        if not state.rows:
            if self.loading is not None:
                return lines
            named = self.key_text("app.session.toggleNamedFilter", "ctrl+n")
            if state.named_only:
                empty = (
                    f"  No named sessions found. Press {named} to show all."
                    if state.scope == "all"
                    else f"  No named sessions in current folder. Press {named} to show all, "
                    "or Tab to view all."
                )
            elif state.scope == "all":
                empty = "  No sessions found"
            else:
                empty = "  No sessions in current folder. Press Tab to view all."
            return [*lines, [(muted, fit(empty, width, "…"))]]
        on_screen = centred_rows(state.index, len(state.rows), MAX_VISIBLE)
        start, end = on_screen.start, on_screen.stop
        for position in on_screen:
            lines.append(self._row(state.rows[position], position == state.index, width))
        if start > 0 or end < len(state.rows):
            lines.append([(muted, f"  ({state.index + 1}/{len(state.rows)})")])
        if self.reading and state.query.strip():
            lines.append([(muted, self._reading_note())])
        return lines

    def _reading_note(self) -> str:
        total = len(self.state.sessions())
        return f"  Searching messages… {total - len(self.state.unread())}/{total} sessions"

    def _row(self, row: Row, selected: bool, width: int) -> StyleAndTextTuples:
        info = row.info
        state = self.state
        text = re.sub(r"[\x00-\x1f\x7f]", " ", info.name or info.first_message).strip()
        count = f"{'' if info.message_count_exact else '~'}{info.message_count}"
        right = f"{count} {age(info.modified)}"
        if state.scope == "all" and info.cwd:
            right = f"{_short_home(info.cwd)} {right}"
        if state.show_path:
            right = f"{_short_home(info.path)} {right}"
        room = width - 2 - get_cwidth(row.prefix) - get_cwidth(right) - 2
        text = fit(text, max(10, room), "…")
        deleting = info.path == self.confirming
        role = (
            "error"
            if deleting
            else "accent"
            if info.path == state.current_path
            else "warning"
            if info.name
            else ""
        )
        background = ""
        if selected:  # the theme's selectedBg (none when it has none, as pi); reverse without a theme
            background = self._styles().bg.get("selectedBg", "") if self._styles is not None else "reverse"
        bold = " bold" if selected else ""
        used = 2 + get_cwidth(row.prefix) + get_cwidth(text)
        gap = max(1, width - used - get_cwidth(right))
        if used + gap + get_cwidth(right) > width:  # a long path: the row ends in "..." at the edge
            right = fit(right, max(0, width - used - gap))
        return [
            (f"{self._fg('accent')} {background}", "› ") if selected else ("", "  "),
            (f"{self._fg('dim')} {background}", row.prefix),
            (f"{self._fg(role)} {background}{bold}", text),
            (background, " " * gap),
            (f"{self._fg('error' if deleting else 'dim')} {background}", right),
        ]


async def delete_session_file(path: str) -> str | None:
    """Ctrl+D, once confirmed: the file to the trash with the ``trash`` CLI when there is one, as
    pi, else deleted; what happened, ``None`` when it could not be done."""
    import os
    import shutil

    from pi_core.runtime.process import run_program

    if shutil.which("trash") is not None:
        done = await run_program("trash", *(["--"] if path.startswith("-") else []), path)
        if done.code == 0 or not await asyncio.to_thread(os.path.exists, path):
            return "Session moved to trash"
    try:
        await asyncio.to_thread(os.remove, path)
    except OSError:
        return None
    return "Session deleted"


async def choose_session(load: Callable[[Scope], Awaitable[list[SessionInfo]]], **options: Any) -> str | None:
    """``pi --resume`` on a terminal: the selector on its own, before the REPL starts (no rename,
    as pi's); the chosen session's path, ``None`` when cancelled."""
    selector = ResumeSelector(load, delete=delete_session_file)
    await selector.start()
    chosen: str | None = await selector.run(**options)
    return chosen
