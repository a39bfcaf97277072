"""The REPL's rebindable keys: pi's action ids, their default keys, ``keybindings.json``.

``<agent dir>/keybindings.json`` maps an action id to a key or a list of keys (pi's file and key
names: ``ctrl+l``, ``alt+enter``, ``shift+tab``, ``pageUp``); listed ids replace their defaults,
the others keep them. It is read when the REPL starts and again on ``/reload``. Keys a terminal
cannot report (``shift+enter``, ``ctrl+shift+x``) and unknown ids are reported and skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pi_core._jsonfile import loads, read_json_text
from pi_core.modes.interactive.keys import key_sequence

KEYBINDINGS_FILE = "keybindings.json"


@dataclass(frozen=True)
class Action:
    id: str
    defaults: tuple[str, ...]
    description: str


ACTIONS: tuple[Action, ...] = (
    Action("app.interrupt", ("escape",), "abort the run (queued messages come back to the editor)"),
    Action("app.clear", ("ctrl+c",), "clear the editor; abort a run; twice on an empty editor: quit"),
    Action("tui.input.newLine", ("ctrl+j",), "new line (also \\ then Enter)"),
    Action("app.message.followUp", ("alt+enter",), "while the agent works: queue a follow-up"),
    Action("app.message.dequeue", ("alt+up",), "queued messages back into the editor (the run goes on)"),
    Action("app.model.select", ("ctrl+l",), "choose a model"),
    Action("app.model.cycleForward", ("ctrl+p",), "next model"),
    Action("app.thinking.cycle", ("shift+tab",), "next thinking level"),
    Action("app.thinking.toggle", ("ctrl+t",), "hide or show thinking blocks"),
    Action("app.tools.expand", ("ctrl+o",), "expand or collapse tool output"),
    Action("app.editor.external", ("ctrl+g",), "edit the message in $VISUAL / $EDITOR"),
    Action("app.clipboard.pasteImage", ("ctrl+v",), "paste the clipboard's image as a file path"),
    Action("app.suspend", ("ctrl+z",), "suspend pi (fg brings it back)"),
    Action("app.session.new", (), "start a new session (/new)"),
    Action("app.session.tree", (), "open the session tree (/tree)"),
    Action("app.session.fork", (), "fork from an earlier message (/fork)"),
    Action("app.session.resume", (), "resume another session (/resume)"),
)
ACTION_IDS = {action.id for action in ACTIONS}
#: pi's list and input actions, which plugin components test keys against (``keybindings``).
COMPONENT_ACTION_IDS = {
    "tui.select.up",
    "tui.select.down",
    "tui.select.pageUp",
    "tui.select.pageDown",
    "tui.select.confirm",
    "tui.select.cancel",
    "tui.input.submit",
    "tui.input.tab",
}


#: The selectors' own actions besides ``app.tree.*`` and ``app.models.*`` (read when they open).
_SELECTOR_ACTIONS = {
    "app.message.copy",
    "app.session.togglePath",
    "app.session.toggleSort",
    "app.session.toggleNamedFilter",
    "app.session.rename",
    "app.session.delete",
    "app.thinking.save",
}


def _tree_action(action_id: str) -> bool:
    """An action of the /tree, /resume or /scoped-models selector (its keys are read from the
    keymap when it opens)."""
    return action_id.startswith(("app.tree.", "app.models.")) or action_id in _SELECTOR_ACTIONS


@dataclass
class Keymap:
    #: Action id → the keys (pi's names) that trigger it.
    keys: dict[str, list[str]] = field(default_factory=dict)
    #: Problems with the file, to show once.
    warnings: list[str] = field(default_factory=list)

    def sequences(self, action_id: str) -> list[tuple[str, ...]]:
        """prompt-toolkit key sequences of an action (keys a terminal cannot report are left out)."""
        found = [key_sequence(key) for key in self.keys.get(action_id, ())]
        return [sequence for sequence in found if sequence is not None]


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
    for action_id, value in raw.items():
        keys = [value] if isinstance(value, str) else value
        if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
            keymap.warnings.append(f"{path}: {action_id!r} needs a key or a list of keys")
            continue
        if (
            action_id not in ACTION_IDS
            and action_id not in COMPONENT_ACTION_IDS
            and not _tree_action(action_id)
        ):
            if action_id.startswith("app.") and not action_id.startswith(("app.tree.", "app.models.")):
                keymap.warnings.append(f"{path}: {action_id!r} is not an action of this REPL")
            continue  # editor-level ids (tui.editor.*) belong to prompt-toolkit's own keys
        unusable = [key for key in keys if key_sequence(key) is None]
        if unusable:
            keymap.warnings.append(f"{path}: a terminal cannot report {', '.join(unusable)} ({action_id})")
        keymap.keys[action_id] = keys
    return keymap
