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
    """Declare the combination rule and payload types of an event hookspec (``pi_hook`` attribute)."""

    def mark(function: _F) -> _F:
        info = HookInfo(function.__name__, combine, event_type, result_type, fire_and_forget, rule)
        function.pi_hook = info  # type: ignore[attr-defined]
        EVENT_HOOKS[info.name] = info
        return function

    return mark
