"""The REPL's rebindable keys: pi's action ids, their default keys, ``keybindings.json``.

``<agent dir>/keybindings.json`` maps an action id to a key or a list of keys (pi's file and key
names: ``ctrl+l``, ``alt+enter``, ``shift+tab``, ``pageUp``); listed ids replace their defaults,
``[]`` takes every key away from one, the others keep theirs. It is read when the REPL starts and
again on ``/reload``. Every action of pi 1.6.0's table is here (``ACTIONS``), with pi's defaults
for Linux and macOS. Malformed entries and unknown ids are reported and skipped; keys a plain
terminal cannot tell apart (``shift+enter``, ``ctrl+shift+f``) are reported and kept, as a
terminal with extended key reports sends them (:mod:`.keys`); two actions of one part of the REPL
given one key are reported too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_core._jsonfile import loads, read_json_text
from pi_core.modes.interactive.keys import extended_sequence, key_sequence

KEYBINDINGS_FILE = "keybindings.json"


@dataclass(frozen=True)
class Action:
    id: str
    defaults: tuple[str, ...]
    description: str


def _action(action_id: str, defaults: str | tuple[str, ...], description: str) -> Action:
    return Action(action_id, (defaults,) if isinstance(defaults, str) else defaults, description)


#: pi 1.6.0's actions in its order: the editor's, the input's, the lists', the fullscreen
#: transcript's, then the application's.
ACTIONS: tuple[Action, ...] = (
    _action("tui.editor.cursorUp", "up", "cursor up; at the top, older history"),
    _action("tui.editor.cursorDown", "down", "cursor down; at the bottom, newer history"),
    _action("tui.editor.historyPrevious", (), "older history entry, wherever the cursor is"),
    _action("tui.editor.historyNext", (), "newer history entry, wherever the cursor is"),
    _action("tui.editor.cursorLeft", ("left", "ctrl+b"), "cursor left"),
    _action("tui.editor.cursorRight", ("right", "ctrl+f"), "cursor right"),
    _action("tui.editor.cursorWordLeft", ("alt+left", "ctrl+left", "alt+b"), "one word left"),
    _action("tui.editor.cursorWordRight", ("alt+right", "ctrl+right", "alt+f"), "one word right"),
    _action("tui.editor.cursorLineStart", ("home", "ctrl+a"), "start of the line"),
    _action("tui.editor.cursorLineEnd", ("end", "ctrl+e"), "end of the line"),
    _action("tui.editor.jumpForward", "ctrl+]", "to the next occurrence of the character typed next"),
    _action(
        "tui.editor.jumpBackward", "ctrl+alt+]", "to the previous occurrence of the character typed next"
    ),
    _action("tui.editor.pageUp", ("pageUp", "ctrl+pageUp"), "cursor a page up in the editor"),
    _action("tui.editor.pageDown", ("pageDown", "ctrl+pageDown"), "cursor a page down in the editor"),
    _action("tui.editor.deleteCharBackward", "backspace", "erase the character before the cursor"),
    _action("tui.editor.deleteCharForward", ("delete", "ctrl+d"), "erase the character under the cursor"),
    _action("tui.editor.deleteWordBackward", ("ctrl+w", "alt+backspace"), "erase the word before the cursor"),
    _action("tui.editor.deleteWordForward", ("alt+d", "alt+delete"), "erase the word after the cursor"),
    _action("tui.editor.deleteToLineStart", "ctrl+u", "erase back to the start of the line"),
    _action("tui.editor.deleteToLineEnd", "ctrl+k", "erase to the end of the line"),
    _action("tui.editor.yank", "ctrl+y", "put back the text erased last"),
    _action("tui.editor.yankPop", "alt+y", "after a yank: an older erased text instead"),
    _action("tui.editor.undo", "ctrl+-", "undo"),
    _action("tui.input.newLine", ("shift+enter", "ctrl+j"), "new line"),
    _action("tui.input.submit", "enter", "send (while the agent works: steer it)"),
    _action("tui.input.tab", "tab", "complete a command or path"),
    _action("tui.input.copy", "ctrl+c", "copy the selected transcript text (fullscreen)"),
    _action("tui.select.up", "up", "list: highlight the row above"),
    _action("tui.select.down", "down", "list: highlight the row below"),
    _action("tui.select.pageUp", "pageUp", "list: a page up"),
    _action("tui.select.pageDown", "pageDown", "list: a page down"),
    _action("tui.select.confirm", "enter", "list: choose the highlighted row"),
    _action("tui.select.cancel", ("escape", "ctrl+c"), "list: close without choosing"),
    _action("tui.altScreen.pageUp", "pageUp", "transcript a page up"),
    _action("tui.altScreen.pageDown", "pageDown", "transcript a page down"),
    _action("tui.altScreen.halfPageUp", (), "transcript half a page up"),
    _action("tui.altScreen.halfPageDown", (), "transcript half a page down"),
    _action("tui.altScreen.lineUp", (), "transcript a row up"),
    _action("tui.altScreen.lineDown", (), "transcript a row down"),
    _action(
        "tui.altScreen.previousPrompt", ("ctrl+shift+up", "ctrl+up"), "transcript: your previous message"
    ),
    _action("tui.altScreen.nextPrompt", ("ctrl+shift+down", "ctrl+down"), "transcript: your next message"),
    _action("tui.altScreen.search", "ctrl+shift+f", "search the transcript"),
    _action("tui.altScreen.searchNext", ("enter", "ctrl+g"), "search: the next hit, further up"),
    _action("tui.altScreen.searchPrevious", ("shift+enter", "ctrl+shift+g"), "search: the hit below"),
    _action("tui.altScreen.searchClose", "escape", "close the search"),
    _action("tui.altScreen.top", "ctrl+home", "transcript: the very beginning"),
    _action("tui.altScreen.bottom", "ctrl+end", "transcript: the end, following new output"),
    _action("app.interrupt", "escape", "abort the run (queued messages come back to the editor)"),
    _action("app.clear", "ctrl+c", "clear the editor; abort a run; twice on an empty editor: quit"),
    _action("app.exit", "ctrl+d", "quit (on an empty editor)"),
    _action("app.suspend", "ctrl+z", "suspend pi (fg brings it back)"),
    _action("app.thinking.cycle", "shift+tab", "next thinking level"),
    _action("app.thinking.save", "ctrl+s", "thinking selector: save the level as the default"),
    _action("app.model.cycleForward", "ctrl+p", "next model"),
    _action("app.model.cycleBackward", "shift+ctrl+p", "previous model"),
    _action("app.model.select", "ctrl+l", "choose a model"),
    _action("app.tools.expand", "ctrl+o", "expand or collapse tool output"),
    _action("app.thinking.toggle", "ctrl+t", "hide or show thinking blocks"),
    _action("app.session.toggleNamedFilter", "ctrl+n", "/resume: named sessions only"),
    _action("app.editor.external", "ctrl+g", "edit the message in externalEditor / $VISUAL / $EDITOR"),
    _action("app.message.copy", "ctrl+x", "copy the last answer (/tree: the entry's text)"),
    _action("app.message.followUp", "alt+enter", "while the agent works: queue a follow-up"),
    _action("app.message.dequeue", "alt+up", "queued messages back into the editor (the run goes on)"),
    _action("app.clipboard.pasteImage", "ctrl+v", "paste the clipboard's image as a file path"),
    _action("app.session.new", (), "start a new session (/new)"),
    _action("app.session.tree", (), "open the session tree (/tree)"),
    _action("app.session.fork", (), "fork from an earlier message (/fork)"),
    _action("app.session.resume", (), "resume another session (/resume)"),
    _action("app.tree.foldOrUp", ("ctrl+left", "alt+left"), "/tree: fold, or the segment start above"),
    _action(
        "app.tree.unfoldOrDown", ("ctrl+right", "alt+right"), "/tree: unfold, or the segment start below"
    ),
    _action("app.tree.editLabel", "shift+l", "/tree: edit the entry's label"),
    _action("app.tree.toggleLabelTimestamp", "shift+t", "/tree: show when labels were set"),
    _action("app.session.togglePath", "ctrl+p", "/resume: show the session files' paths"),
    _action("app.session.toggleSort", "ctrl+s", "/resume: the next order"),
    _action("app.session.rename", "ctrl+r", "/resume: rename the session"),
    _action("app.session.delete", "ctrl+d", "/resume: delete the session"),
    _action("app.session.deleteNoninvasive", "ctrl+backspace", "/resume: delete it when nothing is searched"),
    _action("app.models.save", "ctrl+s", "model selectors: save the choice"),
    _action("app.models.enableAll", "ctrl+a", "/scoped-models: enable every model shown"),
    _action("app.models.clearAll", "ctrl+x", "/scoped-models: clear every model shown"),
    _action("app.models.toggleProvider", "ctrl+p", "/scoped-models: the provider's models on or off"),
    _action("app.models.reorderUp", "alt+up", "/scoped-models: move the model up the cycle"),
    _action("app.models.reorderDown", "alt+down", "/scoped-models: move the model down the cycle"),
    _action("app.tree.filter.default", "ctrl+d", "/tree: the default filter"),
    _action("app.tree.filter.noTools", "ctrl+t", "/tree: without tool results"),
    _action("app.tree.filter.userOnly", "ctrl+u", "/tree: your messages only"),
    _action("app.tree.filter.labeledOnly", "ctrl+l", "/tree: labelled entries only"),
    _action("app.tree.filter.all", "ctrl+a", "/tree: every entry"),
    _action("app.tree.filter.cycleForward", "ctrl+o", "/tree: the next filter"),
    _action("app.tree.filter.cycleBackward", "shift+ctrl+o", "/tree: the previous filter"),
)
ACTION_BY_ID = {action.id: action for action in ACTIONS}
ACTION_IDS = set(ACTION_BY_ID)

#: pi's older, unprefixed names for some ids, still accepted in the file.
LEGACY_IDS = {
    **{
        name: f"tui.editor.{name}"
        for name in [
            "cursorUp",
            "cursorDown",
            "cursorLeft",
            "cursorRight",
            "cursorWordLeft",
            "cursorWordRight",
            "cursorLineStart",
            "cursorLineEnd",
            "jumpForward",
            "jumpBackward",
            "pageUp",
            "pageDown",
            "deleteCharBackward",
            "deleteCharForward",
            "deleteWordBackward",
            "deleteWordForward",
            "deleteToLineStart",
            "deleteToLineEnd",
            "yank",
            "yankPop",
            "undo",
        ]
    },
    **{name: f"tui.input.{name}" for name in ("newLine", "submit", "tab", "copy")},
    **{
        f"select{name}": f"tui.select.{name[0].lower()}{name[1:]}"
        for name in ("Up", "Down", "PageUp", "PageDown")
    },
    "selectConfirm": "tui.select.confirm",
    "selectCancel": "tui.select.cancel",
    "interrupt": "app.interrupt",
    "clear": "app.clear",
    "exit": "app.exit",
    "suspend": "app.suspend",
    "cycleThinkingLevel": "app.thinking.cycle",
    "cycleModelForward": "app.model.cycleForward",
    "cycleModelBackward": "app.model.cycleBackward",
    "selectModel": "app.model.select",
    "expandTools": "app.tools.expand",
    "toggleThinking": "app.thinking.toggle",
    "toggleSessionNamedFilter": "app.session.toggleNamedFilter",
    "externalEditor": "app.editor.external",
    "followUp": "app.message.followUp",
    "dequeue": "app.message.dequeue",
    "pasteImage": "app.clipboard.pasteImage",
    "newSession": "app.session.new",
    "tree": "app.session.tree",
    "fork": "app.session.fork",
    "resume": "app.session.resume",
    "treeFoldOrUp": "app.tree.foldOrUp",
    "treeUnfoldOrDown": "app.tree.unfoldOrDown",
    "treeEditLabel": "app.tree.editLabel",
    "treeToggleLabelTimestamp": "app.tree.toggleLabelTimestamp",
    "toggleSessionPath": "app.session.togglePath",
    "toggleSessionSort": "app.session.toggleSort",
    "renameSession": "app.session.rename",
    "deleteSession": "app.session.delete",
    "deleteSessionNoninvasive": "app.session.deleteNoninvasive",
}

_RESUME_ACTIONS = {
    "app.session.togglePath",
    "app.session.toggleSort",
    "app.session.toggleNamedFilter",
    "app.session.rename",
    "app.session.delete",
    "app.session.deleteNoninvasive",
}


def scope(action_id: str) -> str:
    """The part of the REPL that reads an action's keys: actions of one part share no key
    (those of different parts may: Ctrl+D quits at the editor and deletes in /resume)."""
    if action_id.startswith("tui.select."):
        return "list"
    if action_id.startswith("app.tree."):
        return "tree"
    if action_id.startswith("app.models.") or action_id == "app.thinking.save":
        return "selector"
    if action_id in _RESUME_ACTIONS:
        return "resume"
    return "editor"


def part(action_id: str) -> str:
    """Like :func:`scope`, with the fullscreen transcript's actions apart: they win over the
    editor's on a key both have."""
    return "transcript" if action_id.startswith("tui.altScreen.") else scope(action_id)


def plain_key(key: str) -> str | None:
    """What a plain terminal sends for a ctrl+shift+letter key (``ctrl+shift+f`` → ``ctrl+f``);
    ``None`` for other keys."""
    parts = split_key(key)
    if parts is None:
        return None
    modifiers, base = parts
    if not {"ctrl", "shift"} <= set(modifiers) or "super" in modifiers or not base.isalpha():
        return None
    return "+".join([*(name for name in ("ctrl", "alt") if name in modifiers), base])


_MODIFIERS = ("ctrl", "shift", "alt", "super")
_NAMED_KEYS = {
    "escape",
    "esc",
    "enter",
    "return",
    "tab",
    "space",
    "backspace",
    "delete",
    "insert",
    "clear",
    "home",
    "end",
    "pageup",
    "pagedown",
    "up",
    "down",
    "left",
    "right",
    *(f"f{number}" for number in range(1, 13)),
}
_SYMBOLS = set("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?")
_ALIASES = {"esc": "escape", "return": "enter"}


def split_key(key: str) -> tuple[list[str], str] | None:
    """``ctrl+shift+x`` → (``["ctrl", "shift"]``, ``"x"``), lower-cased; ``None`` when it is not a
    key in pi's syntax (an unknown name or modifier, a modifier given twice)."""
    text = key.strip().lower()
    if text.endswith("++"):
        head, base = text[:-2], "+"
    elif text == "+":
        head, base = "", "+"
    else:
        head, _, base = text.rpartition("+")
    modifiers = head.split("+") if head else []
    if len(set(modifiers)) != len(modifiers) or not set(modifiers) <= set(_MODIFIERS):
        return None
    if not (
        base in _NAMED_KEYS or base in _SYMBOLS or (len(base) == 1 and base.isascii() and base.isalnum())
    ):
        return None
    return modifiers, _ALIASES.get(base, base)


def normal_key(key: str) -> str:
    """One spelling per key (``shift+ctrl+P`` and ``ctrl+shift+p`` are one key), to compare them."""
    parts = split_key(key)
    if parts is None:
        return key.strip().lower()
    modifiers, base = parts
    return "+".join([*(name for name in _MODIFIERS if name in modifiers), base])


def key_text(keys: list[str]) -> str:
    """Keys as pi writes them in /hotkeys: each part capitalized, ``/`` between keys."""
    return "/".join("+".join(part[:1].upper() + part[1:] for part in key.split("+")) for key in keys)


@dataclass
class Keymap:
    #: Action id → the keys (pi's names) that trigger it.
    keys: dict[str, list[str]] = field(default_factory=dict)
    #: The ids ``keybindings.json`` set.
    configured: set[str] = field(default_factory=set)
    #: Problems with the file, to show once.
    warnings: list[str] = field(default_factory=list)

    def sequences(self, action_id: str) -> list[tuple[str, ...]]:
        """prompt-toolkit key sequences of an action. A plain terminal sends Ctrl+Shift+F as
        Ctrl+F: such a key is bound as what arrives unless another action of its part has that
        key. A key a plain terminal cannot report is bound to its extended reports too
        (:func:`~pi_core.modes.interactive.keys.extended_sequence`)."""
        found = []
        for key in self.keys.get(action_id, ()):
            found += [self.sequence(key, action_id), extended_sequence(key)]
        return [sequence for sequence in found if sequence is not None]

    def sequence(self, key: str, action_id: str) -> tuple[str, ...] | None:
        """The prompt-toolkit key sequence ``key`` is bound as for ``action_id`` (see
        :meth:`sequences`)."""
        sequence = key_sequence(key)
        plain = plain_key(key) if sequence is None else None
        if plain is not None and not self._taken(plain, action_id):
            return key_sequence(plain)
        return sequence

    def _taken(self, key: str, action_id: str) -> bool:
        where, wanted = part(action_id), normal_key(key)
        return any(
            other != action_id and part(other) == where and wanted in {normal_key(k) for k in keys}
            for other, keys in self.keys.items()
        )

    def text(self, action_id: str) -> str:
        """The action's keys as pi writes them (``Ctrl+C``, ``Home/Ctrl+A``)."""
        return key_text(self.keys.get(action_id, []))

    def hint(self, action_id: str) -> str | None:
        """The first of the action's keys a terminal can send, for a hint (``Esc``, ``Ctrl+D``);
        ``None`` when it has none."""
        usable = [key for key in self.keys.get(action_id, []) if self.sequence(key, action_id)]
        return key_text(usable[:1]).replace("Escape", "Esc") if usable else None


def default_keymap() -> Keymap:
    return Keymap({action.id: list(action.defaults) for action in ACTIONS})


def load_keymap(agent_dir: str | Path) -> Keymap:
    keymap = default_keymap()
    path = Path(agent_dir) / KEYBINDINGS_FILE
    try:
        raw = loads(read_json_text(path))
    except FileNotFoundError:
        return keymap
    except (OSError, ValueError) as error:
        keymap.warnings.append(f"{path}: not used ({error}); the default keys apply")
        return keymap
    if not isinstance(raw, dict):
        keymap.warnings.append(f"{path}: not a JSON object; the default keys apply")
        return keymap
    for name, value in raw.items():
        if name == "$schema":
            continue
        action_id = LEGACY_IDS.get(name, name)
        if action_id != name and action_id in raw:
            continue  # the current name wins over the old one
        if action_id not in ACTION_IDS:
            keymap.warnings.append(f"{path}: {name!r} is not one of pi's actions")
            continue
        keys = [value] if isinstance(value, str) else value
        if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
            keymap.warnings.append(f"{path}: {name!r} needs a key or a list of keys")
            continue
        malformed = [key for key in keys if split_key(key) is None]
        if malformed:
            keymap.warnings.append(f"{path}: {name!r}: not a key: {', '.join(malformed)}")
            continue
        keymap.keys[action_id] = list(dict.fromkeys(keys))
        keymap.configured.add(action_id)
    for action_id in sorted(keymap.configured):
        unusable = [key for key in keymap.keys[action_id] if keymap.sequence(key, action_id) is None]
        if unusable:
            keymap.warnings.append(
                f"{path}: a terminal cannot report {', '.join(unusable)} ({action_id}) unless it sends "
                "extended key reports (kitty's protocol, xterm's modifyOtherKeys)"
            )
    keymap.warnings.extend(f"{path}: {clash}" for clash in conflicts(keymap))
    return keymap


def conflicts(keymap: Keymap) -> list[str]:
    """Keys the file gives to two actions of one part of the REPL, where pi's defaults do not
    share them (Enter both sends and confirms a search by design)."""
    shared_by_default: dict[tuple[str, str], set[str]] = {}
    taken: dict[tuple[str, str], list[str]] = {}
    for action in ACTIONS:
        where = scope(action.id)
        for key in action.defaults:
            shared_by_default.setdefault((where, normal_key(key)), set()).add(action.id)
        for key in keymap.keys.get(action.id, []):
            taken.setdefault((where, normal_key(key)), []).append(action.id)
    found = []
    for (where, key), ids in taken.items():
        if len(ids) < 2 or not keymap.configured & set(ids):
            continue
        if set(ids) <= shared_by_default.get((where, key), set()):
            continue
        found.append(f"{key} is a key of {' and '.join(ids)}; only one of them gets it")
    return found


# --- /hotkeys ---------------------------------------------------------------------------------------

#: /hotkeys' sections in pi's order: each row is the actions whose keys it shows (`` / ``
#: between them) and what they do.
_HOTKEY_SECTIONS: tuple[tuple[str, tuple[tuple[tuple[str, ...], str], ...]], ...] = (
    (
        "Navigation",
        (
            (
                (
                    "tui.editor.cursorUp",
                    "tui.editor.cursorDown",
                    "tui.editor.cursorLeft",
                    "tui.editor.cursorRight",
                ),
                "Move the cursor / walk the history",
            ),
            (("tui.editor.cursorWordLeft", "tui.editor.cursorWordRight"), "Move a word at a time"),
            (("tui.editor.cursorLineStart",), "Start of the line"),
            (("tui.editor.cursorLineEnd",), "End of the line"),
            (("tui.editor.jumpForward",), "Jump to the next occurrence of a character"),
            (("tui.editor.jumpBackward",), "Jump to the previous occurrence of a character"),
            (("tui.editor.pageUp", "tui.editor.pageDown"), "A page up / down"),
        ),
    ),
    (
        "Editing",
        (
            (("tui.input.submit",), "Send the message"),
            (("tui.input.newLine",), "New line"),
            (("tui.editor.deleteWordBackward",), "Erase the word before the cursor"),
            (("tui.editor.deleteWordForward",), "Erase the word after the cursor"),
            (("tui.editor.deleteToLineStart",), "Erase to the start of the line"),
            (("tui.editor.deleteToLineEnd",), "Erase to the end of the line"),
            (("tui.editor.yank",), "Put back the text erased last"),
            (("tui.editor.yankPop",), "After that: an older erased text instead"),
            (("tui.editor.undo",), "Undo"),
        ),
    ),
    (
        "Other",
        (
            (("tui.input.tab",), "Complete a path / take the completion"),
            (("app.interrupt",), "Close the completions / abort the run"),
            (("app.clear",), "Clear the editor (first) / quit (second)"),
            (("app.exit",), "Quit (on an empty editor)"),
            (("app.suspend",), "Suspend to the background"),
            (("app.thinking.cycle",), "Next thinking level"),
            (("app.model.cycleForward", "app.model.cycleBackward"), "Next / previous model"),
            (("app.model.select",), "Open the model selector"),
            (("app.tools.expand",), "Expand or collapse tool output"),
            (("app.thinking.toggle",), "Hide or show thinking blocks"),
            (("app.editor.external",), "Edit the message in an external editor"),
            (("app.message.copy",), "Copy the last answer"),
            (("app.message.followUp",), "Queue a follow-up message"),
            (("app.message.dequeue",), "Queued messages back to the editor"),
            (("app.clipboard.pasteImage",), "Paste the clipboard's image"),
        ),
    ),
)

#: The rows /hotkeys ends its Other section with: keys that are no action of pi's table.
_TYPED = (
    ("/", "Slash commands"),
    ("!", "Run a shell command"),
    ("!!", "Run a shell command, kept out of the context"),
)

#: The fullscreen transcript's rows (pi's /hotkeys leaves them out; they are listed here in
#: fullscreen, where they act).
_TRANSCRIPT_ROWS = (
    (("tui.altScreen.pageUp", "tui.altScreen.pageDown"), "Transcript a page up / down"),
    (("tui.altScreen.halfPageUp", "tui.altScreen.halfPageDown"), "Transcript half a page up / down"),
    (("tui.altScreen.lineUp", "tui.altScreen.lineDown"), "Transcript a row up / down"),
    (("tui.altScreen.previousPrompt", "tui.altScreen.nextPrompt"), "Your previous / next message"),
    (("tui.altScreen.top", "tui.altScreen.bottom"), "Transcript top / bottom (following new output)"),
    (("tui.altScreen.search",), "Search the transcript"),
    (("tui.altScreen.searchNext", "tui.altScreen.searchPrevious"), "Searching: the hit above / below"),
    (("tui.altScreen.searchClose",), "Close the search"),
)


def hotkey_sections(
    keymap: Keymap, shortcuts: Sequence[tuple[str, str]] = (), *, fullscreen: bool = False
) -> list[tuple[str, list[tuple[str, str]]]]:
    """/hotkeys' sections: (title, [(keys as pi writes them, what they do)]), the plugins'
    shortcuts (``shortcuts``: key, description) under Extensions. A row none of whose actions has
    a key is left out."""

    def rows(specs: tuple[tuple[tuple[str, ...], str], ...]) -> list[tuple[str, str]]:
        found = []
        for action_ids, what in specs:
            texts = [keymap.text(action_id) for action_id in action_ids]
            if any(texts):
                found.append((" / ".join(text for text in texts if text), what))
        return found

    sections = [(title, rows(specs)) for title, specs in _HOTKEY_SECTIONS]
    sections[-1][1].extend(_TYPED)
    if fullscreen:
        sections.append(("Transcript", rows(_TRANSCRIPT_ROWS)))
    if shortcuts:
        sections.append(("Extensions", [(key_text([key]), what) for key, what in shortcuts]))
    return sections
