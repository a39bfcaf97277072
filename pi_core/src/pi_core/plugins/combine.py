"""How the results of several handlers of one hook are combined (spec §1.3), and per-hook metadata."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar


class Combine(enum.Enum):
    """The combination rules of pi's runner; the names are those of spec §1.3."""

    #: Return values ignored; every handler runs.
    NOTIFY = "notify"
    #: Each result replaces the previous one as a whole; ``cancel=True`` stops at once; else the last wins.
    CANCEL_OR_LAST = "cancel-or-last"
    #: As CANCEL_OR_LAST with ``block=True``; a raising handler blocks (fail closed).
    BLOCK_OR_LAST = "block-or-last"
    #: The first result wins; later handlers are not called.
    FIRST = "first"
    #: Each handler sees the value the previous one produced; ``None`` leaves it unchanged.
    CHAIN = "chain"
    #: CHAIN of partial patches: only the fields a handler sets are replaced.
    PATCH_CHAIN = "patch-chain"
    #: Every handler's contribution is collected, in load order.
    ACCUMULATE = "accumulate"
    #: Every handler runs; the last non-empty value wins.
    LAST = "last"
    #: An actionable boundary: each handler sees the proposal so far in the event and may replace
    #: any of its fields; the final proposal is applied after the last handler.
    BOUNDARY = "boundary"


@dataclass(frozen=True)
class HookInfo:
    """What the dispatcher needs to know about one event hook."""

    name: str
    combine: Combine
    event_type: type[Any]
    result_type: type[Any] | None
    #: Scheduled as a tracked task instead of awaited (``thinking_level_select``).
    fire_and_forget: bool = False
    #: Human description of the rule when the hook mixes two (``input``, ``before_agent_start``).
    rule: str | None = None


_F = TypeVar("_F", bound=Callable[..., Any])

#: The docstring sections of an event hookspec, in the order of the template (STYLE 2.3).
_SECTIONS = (
    "Combine:",
    ":param event:",
    ":param ctx:",
    ":returns:",
    "Errors:",
    "Example::",
    ".. versionadded::",
)
_FIELDS = (":param event:", ":param ctx:", ":returns:")

#: What a section says when a hookspec's docstring leaves it out: written once here instead of
#: in every docstring. A section that says more for its hook stays in that hook's docstring.
_STANDARD_TEXT: dict[str, Callable[[Combine], str | None]] = {
    "Combine:": lambda combine: (
        "Combine: NOTIFY — return values are ignored." if combine is Combine.NOTIFY else None
    ),
    ":param ctx:": lambda combine: ":param ctx: the extension context.",
    ":returns:": lambda combine: ":returns: ignored." if combine is Combine.NOTIFY else None,
    "Errors:": lambda combine: "Errors: a raising handler is reported and skipped.",
}


def complete_doc(doc: str, combine: Combine) -> str:
    """``doc`` with every standard section it leaves out put in its place (see ``_STANDARD_TEXT``)."""
    lines = doc.split("\n")
    indent = next((line[: len(line) - len(line.lstrip())] for line in lines[1:] if line.strip()), "")
    for position, section in enumerate(_SECTIONS):
        standard = _STANDARD_TEXT.get(section)
        text = standard(combine) if standard is not None else None
        if text is None or any(line.strip().startswith(section) for line in lines):
            continue
        later = _SECTIONS[position + 1 :]
        at = next((i for i, line in enumerate(lines) if line.strip().startswith(later)), len(lines))
        follows_field = at < len(lines) and lines[at].strip().startswith(_FIELDS)
        if section in _FIELDS and not follows_field:
            while at > 0 and not lines[at - 1].strip():
                at -= 1  # a field joins the field list that ends before the blank line
            lines[at:at] = [indent + text]
        elif section in _FIELDS:
            lines[at:at] = [indent + text]
        else:
            lines[at:at] = [indent + text, ""]
    return "\n".join(lines)


#: Hook name -> metadata, filled by the ``event_hook`` decorator when ``hookspecs`` is imported.
EVENT_HOOKS: dict[str, HookInfo] = {}


def event_hook(
    combine: Combine,
    event_type: type[Any],
    result_type: type[Any] | None = None,
    *,
    fire_and_forget: bool = False,
    rule: str | None = None,
) -> Callable[[_F], _F]:
    """Declare the combination rule and payload types of an event hookspec (``pi_hook`` attribute),
    and complete its docstring with the standard sections it leaves out."""

    def mark(function: _F) -> _F:
        info = HookInfo(function.__name__, combine, event_type, result_type, fire_and_forget, rule)
        if function.__doc__:
            function.__doc__ = complete_doc(function.__doc__, combine)
        function.pi_hook = info  # type: ignore[attr-defined]
        EVENT_HOOKS[info.name] = info
        return function

    return mark
