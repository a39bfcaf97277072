"""The dispatcher: the only code that calls event hook implementations.

pluggy owns registration, validation and blocking; it does not own the call loop, because pi's
semantics differ from pluggy's (spec §11.1): handlers run in *load order* (pluggy runs the last
registered first), each awaited before the next (pluggy is synchronous), an exception is isolated
and reported (pluggy stops at the first one), and results combine per hook (§1.3) where pluggy only
offers collect-all and ``firstresult``.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import pluggy
from pydantic import ValidationError

from pi_core.errors import PluginError, error_message
from pi_core.plugins import hookspecs  # noqa: F401  (fills EVENT_HOOKS)
from pi_core.plugins.combine import EVENT_HOOKS, Combine, HookInfo
from pi_core.plugins.events import (
    AfterProviderResponseEvent,
    AgentBeforeSettleEvent,
    AgentBeforeSettleResult,
    AgentEndEvent,
    AgentSettledEvent,
    AgentStartEvent,
    BeforeAgentStartEvent,
    BeforeAgentStartOutcome,
    BeforeAgentStartResult,
    BeforeProviderHeadersEvent,
    BeforeProviderRequestEvent,
    BeforeProviderRequestResult,
    ContextEvent,
    ContextResult,
    ContextWithSystemEvent,
    ContextWithSystemResult,
    ContributedPath,
    InputEvent,
    InputResult,
    McpServersChangeEvent,
    MessageEndEvent,
    MessageEndResult,
    MessageStartEvent,
    MessageUpdateEvent,
    ModelSelectEvent,
    ProjectTrustEvent,
    ProjectTrustResult,
    ProviderStreamEvent,
    ResourcesDiscoverEvent,
    ResourcesDiscoverOutcome,
    ResourcesDiscoverResult,
    SessionBeforeCompactEvent,
    SessionBeforeCompactResult,
    SessionBeforeForkEvent,
    SessionBeforeForkResult,
    SessionBeforeSwitchEvent,
    SessionBeforeSwitchResult,
    SessionBeforeTreeEvent,
    SessionBeforeTreeResult,
    SessionCompactEvent,
    SessionCompactFailedEvent,
    SessionInfoChangedEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionTreeEvent,
    ThinkingLevelSelectEvent,
    ToolCallEvent,
    ToolCallResult,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    ToolResultEvent,
    ToolResultResult,
    TurnEndEvent,
    TurnEndResult,
    TurnStartEvent,
    UiPromptEndEvent,
    UiPromptStartEvent,
    UserBashEvent,
    UserBashResult,
)

if TYPE_CHECKING:
    from pi_core.plugins.context import ExtensionContext, ProjectTrustContext
    from pi_core.plugins.manager import PiPluginManager

__all__ = ["CURRENT_HANDLER", "Combine", "Dispatcher", "ErrorSink", "HookErrorRecord", "Hooks"]

logger = logging.getLogger("pi.plugins")

#: pluggy's monitoring callback signatures (``PluginManager.add_hookcall_monitoring``), called per handler.
BeforeMonitor = Callable[[str, list[pluggy.HookImpl], dict[str, Any]], None]
AfterMonitor = Callable[[pluggy.Result[Any], str, list[pluggy.HookImpl], dict[str, Any]], None]


@dataclass(frozen=True)
class HookErrorRecord:
    """A handler raised (or returned something invalid); it was isolated and dispatch went on."""

    plugin: str
    hook: str
    error: BaseException
    traceback: str

    def summary(self) -> str:
        return (
            f"Plugin {self.plugin!r} failed in hook {self.hook!r}: {type(self.error).__name__}: {self.error}"
        )


ErrorSink = Callable[[HookErrorRecord], None]

#: ``(plugin, hook)`` of the handler running now (``None`` outside handlers). Tasks a handler starts
#: inherit it, so work it hands over (``ctx.send_message``, tools it registers) stays attributed.
CURRENT_HANDLER: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "pi_current_handler", default=None
)


class _Handler:
    __slots__ = ("function", "impl", "location", "plugin", "takes_ctx", "takes_event")

    def __init__(self, impl: pluggy.HookImpl) -> None:
        self.impl = impl
        self.plugin = impl.plugin_name
        self.function = impl.function
        self.takes_event = "event" in impl.argnames
        self.takes_ctx = "ctx" in impl.argnames
        code = getattr(impl.function, "__code__", None)
        self.location = f"{code.co_filename}:{code.co_firstlineno}" if code else "?"

    def call(self, event: Any, ctx: Any) -> Any:
        if self.takes_event:
            return self.function(event, ctx) if self.takes_ctx else self.function(event)
        return self.function(ctx) if self.takes_ctx else self.function()


class _Fail:
    """Marks a handler whose call or result failed (distinct from returning ``None``)."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


def _strict_from_env() -> bool:
    return os.environ.get("PI_STRICT_PLUGINS", "") not in ("", "0", "false", "no")


class Dispatcher:
    """Calls event handlers in pi's order and combines their results per hook.

    Build one per plugin manager (the runtime owns it); ``on_error`` receives every isolated
    handler error. With ``strict`` (default: ``PI_STRICT_PLUGINS=1``) errors are raised as
    :class:`~pi_core.errors.PluginError` instead, so broken plugins fail tests loudly.
    """

    def __init__(
        self, pm: PiPluginManager, *, on_error: ErrorSink | None = None, strict: bool | None = None
    ) -> None:
        self.pm = pm
        self.on_error = on_error
        self.strict = _strict_from_env() if strict is None else strict
        self._cache: dict[str, list[_Handler]] = {}
        self._generation = -1
        self._monitors: list[tuple[BeforeMonitor, AfterMonitor]] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- introspection -----------------------------------------------------------------------------

    def handlers(self, hook: str) -> list[_Handler]:
        """Implementations of ``hook`` in call order: tryfirst, normal, trylast; each by load index."""
        if self._generation != self.pm.generation:
            self._cache.clear()
            self._generation = self.pm.generation
        cached = self._cache.get(hook)
        if cached is None:
            caller = getattr(self.pm.hook, hook, None)
            impls = caller.get_hookimpls() if caller is not None else []

            def key(impl: pluggy.HookImpl) -> tuple[int, int]:
                group = 0 if impl.tryfirst else 2 if impl.trylast else 1
                return group, self.pm.load_index(impl.plugin_name)

            plain = [i for i in impls if not (i.wrapper or i.hookwrapper)]
            cached = [_Handler(i) for i in sorted(plain, key=key)]
            self._cache[hook] = cached
        return cached

    def has_handlers(self, hook: str) -> bool:
        """Whether any plugin implements ``hook`` (call sites skip building costly events otherwise)."""
        return bool(self.handlers(hook))

    def monitor(self, before: BeforeMonitor, after: AfterMonitor) -> Callable[[], None]:
        """Call ``before``/``after`` around every handler call, with pluggy's monitoring signature.

        ``hook_impls`` is the one implementation being called; ``outcome`` is a ``pluggy.Result``.
        Returns a function that removes the monitor.
        """
        pair = (before, after)
        self._monitors.append(pair)

        def undo() -> None:
            if pair in self._monitors:
                self._monitors.remove(pair)

        return undo

    # --- calling -----------------------------------------------------------------------------------

    async def _invoke(self, handler: _Handler, hook: str, event: Any, ctx: Any) -> Any:
        token = CURRENT_HANDLER.set((handler.plugin, hook))
        try:
            return await self._invoke_monitored(handler, hook, event, ctx)
        finally:
            CURRENT_HANDLER.reset(token)

    async def _invoke_monitored(self, handler: _Handler, hook: str, event: Any, ctx: Any) -> Any:
        if not self._monitors:
            result = handler.call(event, ctx)
            if inspect.isawaitable(result):
                result = await result
            return result
        kwargs = {"event": event, "ctx": ctx}
        for before, _ in self._monitors:
            before(hook, [handler.impl], kwargs)
        value: Any = None
        error: BaseException | None = None
        try:
            value = handler.call(event, ctx)
            if inspect.isawaitable(value):
                value = await value
        except BaseException as exc:
            error = exc
            raise
        finally:
            outcome: pluggy.Result[Any] = pluggy.Result(value, error)
            for _, after in self._monitors:
                after(outcome, hook, [handler.impl], kwargs)
        return value

    def _coerce(self, info: HookInfo, value: Any) -> Any:
        if value is None or value is False or info.result_type is None:
            return None
        if isinstance(value, info.result_type):
            return value
        if info.name == "before_provider_request":
            return BeforeProviderRequestResult(payload=value)
        if isinstance(value, dict):
            try:
                return info.result_type.model_validate(value)
            except ValidationError as error:
                raise InvalidResultError(_result_problem(info.result_type, error)) from None
        raise TypeError(
            f"hook {info.name!r} expects None, {info.result_type.__name__} or a dict, "
            f"got {type(value).__name__}"
        )

    async def _run(self, handler: _Handler, info: HookInfo, event: Any, ctx: Any) -> Any:
        """Call one handler and validate its result; an error becomes a reported ``_Fail``."""
        __tracebackhide__ = True
        try:
            return self._coerce(info, await self._invoke(handler, info.name, event, ctx))
        except Exception as exc:  # isolation is the point (spec §1.2 rule 3); ValidationError included
            self.report(handler.plugin, info.name, exc, location=handler.location)
            return _Fail(exc)

    def report(self, plugin: str, hook: str, error: Exception, *, location: str | None = None) -> None:
        """Send an isolated error to the sink (or raise it in strict mode)."""
        if self.strict:
            raise PluginError(
                f"Plugin {plugin!r} failed in hook {hook!r}: {type(error).__name__}: {error}",
                plugin=plugin,
                hook=hook,
                location=location,
            ) from error
        record = HookErrorRecord(plugin, hook, error, "".join(traceback.format_exception(error)))
        logger.debug("%s", record.summary(), exc_info=error)
        if self.on_error is not None:
            self.on_error(record)

    async def dispatch(self, hook: str, event: Any, ctx: Any) -> Any:
        """Run every handler of ``hook`` and combine the results per the hook's rule.

        Returns ``None`` for NOTIFY hooks; otherwise the combined result model described in the
        hook's docstring (``None`` when no handler returned anything, except for ``input``,
        ``before_agent_start`` and ``resources_discover``, which always return their outcome).
        """
        info = EVENT_HOOKS[hook]
        handlers = self.handlers(hook)
        special = _SPECIAL.get(hook)
        if special is not None:
            return await special(self, handlers, info, event, ctx)
        combine = info.combine
        if combine is Combine.NOTIFY:
            for handler in handlers:
                await self._run(handler, info, event, ctx)
            return None
        current: Any = None
        for handler in handlers:
            result = await self._run(handler, info, event, ctx)
            if isinstance(result, _Fail):
                if combine is Combine.BLOCK_OR_LAST:
                    # Fail closed: a gate that crashed or answered nonsense must not let the tool through.
                    return ToolCallResult(block=True, reason=_blocked_reason(handler.plugin, result.error))
                continue
            if result is None:
                continue
            if combine is Combine.FIRST:
                return result
            current = result
            if combine is Combine.CANCEL_OR_LAST and getattr(result, "cancel", None):
                break
            if combine is Combine.BLOCK_OR_LAST and getattr(result, "block", None):
                break
        return current

    def dispatch_background(self, hook: str, event: Any, ctx: Any) -> asyncio.Task[Any]:
        """Dispatch without awaiting (fire-and-forget hooks); the task is tracked until done."""
        task = asyncio.get_running_loop().create_task(self.dispatch(hook, event, ctx))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def drain(self) -> None:
        """Wait for every background dispatch still running (call before shutting down).

        Handler errors were already isolated and reported; what is left (strict mode) is raised here.
        """
        while self._tasks:
            results = await asyncio.gather(*list(self._tasks), return_exceptions=True)
            for result in results:
                if isinstance(result, Exception):
                    raise result


class InvalidResultError(ValueError):
    """A handler returned a dict that does not fit the hook's result model (unknown key, wrong type)."""


def _result_problem(model: type[Any], error: ValidationError) -> str:
    fields = sorted({info.alias or name for name, info in model.model_fields.items()})
    problems: list[str] = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "result"
        if item["type"] == "extra_forbidden":
            problems.append(f"unknown key {where!r}")
        else:
            problems.append(f"{where!r}: {item['msg']}")
    return f"invalid result ({'; '.join(problems)}); {model.__name__} takes {', '.join(fields)}"


def _blocked_reason(plugin: str, error: BaseException) -> str:
    return f"Tool call blocked: plugin {plugin!r} failed in tool_call: {error_message(error)}"


# --- hooks with their own combination -------------------------------------------------------------

_Special = Callable[[Dispatcher, list[_Handler], HookInfo, Any, Any], Any]


async def _chain_field(
    d: Dispatcher, handlers: list[_Handler], info: HookInfo, event: Any, ctx: Any, field: str
) -> Any:
    """CHAIN over one event field: each non-None result replaces it in place for the next handler."""
    changed = False
    for handler in handlers:
        result = await d._run(handler, info, event, ctx)
        if result is None or isinstance(result, _Fail):
            continue
        value = getattr(result, field)
        if value is None:
            continue
        if field == "message" and getattr(value, "role", None) != getattr(event.message, "role", None):
            error = ValueError(
                f"message_end replacement changes the role from {event.message.role!r} to "
                f"{getattr(value, 'role', None)!r}; replacement ignored"
            )
            d.report(handler.plugin, info.name, error, location=handler.location)
            continue
        setattr(event, field, value)
        changed = True
    if not changed:
        return None
    return info.result_type(**{field: getattr(event, field)}) if info.result_type else None


async def _message_end(d: Dispatcher, h: list[_Handler], info: HookInfo, event: Any, ctx: Any) -> Any:
    return await _chain_field(d, h, info, event, ctx, "message")


async def _context(d: Dispatcher, h: list[_Handler], info: HookInfo, event: Any, ctx: Any) -> Any:
    return await _chain_field(d, h, info, event, ctx, "messages")


async def _context_with_system(d: Dispatcher, h: list[_Handler], info: HookInfo, event: Any, ctx: Any) -> Any:
    """CHAIN over ``messages``; a handler that leaves no system message at index 0 is told so."""
    changed = False
    for handler in h:
        had_head = bool(event.messages) and getattr(event.messages[0], "role", None) == "system"
        result = await d._run(handler, info, event, ctx)
        if result is None or isinstance(result, _Fail) or result.messages is None:
            continue
        event.messages = list(result.messages)
        changed = True
        if had_head and (not event.messages or getattr(event.messages[0], "role", None) != "system"):
            error = ValueError(
                "context_with_system result has no system message at index 0, so the request "
                "carries no system prompt and no tools; keep the first message (or put "
                "current_system_message() of what you dropped there)"
            )
            d.report(handler.plugin, info.name, error, location=handler.location)
    return ContextWithSystemResult(messages=event.messages) if changed else None


async def _before_provider_request(
    d: Dispatcher, h: list[_Handler], info: HookInfo, event: Any, ctx: Any
) -> Any:
    return await _chain_field(d, h, info, event, ctx, "payload")


async def _tool_result(d: Dispatcher, handlers: list[_Handler], info: HookInfo, event: Any, ctx: Any) -> Any:
    patch: dict[str, Any] = {}
    for handler in handlers:
        result = await d._run(handler, info, event, ctx)
        if result is None or isinstance(result, _Fail):
            continue
        for field in ("content", "details", "is_error", "structured_content"):
            value = getattr(result, field)
            if value is not None:
                setattr(event, field, value)
                patch[field] = value
    return ToolResultResult(**patch) if patch else None


async def _input(d: Dispatcher, handlers: list[_Handler], info: HookInfo, event: Any, ctx: Any) -> Any:
    original_text, original_images = event.text, event.images
    for handler in handlers:
        result = await d._run(handler, info, event, ctx)
        if result is None or isinstance(result, _Fail):
            continue
        if result.action == "handled":
            return InputResult(action="handled")
        if result.action == "transform":
            if result.text is not None:
                event.text = result.text
            if result.images is not None:
                event.images = result.images
    if event.text != original_text or event.images != original_images:
        return InputResult(action="transform", text=event.text, images=event.images)
    return InputResult(action="continue")


async def _before_agent_start(
    d: Dispatcher, handlers: list[_Handler], info: HookInfo, event: Any, ctx: Any
) -> Any:
    outcome = BeforeAgentStartOutcome()
    for handler in handlers:
        result = await d._run(handler, info, event, ctx)
        if result is None or isinstance(result, _Fail):
            continue
        if result.message is not None:
            outcome.messages.append(result.message)
        if result.system_prompt:  # an empty replacement means "no change" (spec §11.4 point 5)
            event.system_prompt = result.system_prompt
            outcome.system_prompt = result.system_prompt
    return outcome


async def _resources_discover(
    d: Dispatcher, handlers: list[_Handler], info: HookInfo, event: Any, ctx: Any
) -> Any:
    outcome = ResourcesDiscoverOutcome()
    for handler in handlers:
        result = await d._run(handler, info, event, ctx)
        if result is None or isinstance(result, _Fail):
            continue
        for field in ("skill_paths", "prompt_paths", "theme_paths"):
            for path in getattr(result, field) or ():
                getattr(outcome, field).append(ContributedPath(path=path, plugin=handler.plugin))
    return outcome


async def _boundary(d: Dispatcher, handlers: list[_Handler], info: HookInfo, event: Any, ctx: Any) -> Any:
    """Each handler sees the proposal so far on the event; a field it returns replaces that field."""
    for handler in handlers:
        result = await d._run(handler, info, event, ctx)
        if result is None or isinstance(result, _Fail):
            continue
        changed = False
        for field in type(result).model_fields:
            value = getattr(result, field)
            if value is not None:
                setattr(event, field, value)
                changed = True
        rebuild = getattr(event, "_rebuild", None)
        if changed and rebuild is not None:
            rebuild(event)  # the next handler sees the context this proposal gives
    return (
        info.result_type(**{f: getattr(event, f) for f in info.result_type.model_fields})
        if info.result_type
        else None
    )


async def _project_trust(
    d: Dispatcher, handlers: list[_Handler], info: HookInfo, event: Any, ctx: Any
) -> Any:
    """FIRST over decisions: ``undecided`` passes the question on like ``None``."""
    for handler in handlers:
        result = await d._run(handler, info, event, ctx)
        if result is None or isinstance(result, _Fail) or result.trusted == "undecided":
            continue
        return result
    return None


_SPECIAL: dict[str, _Special] = {
    "project_trust": _project_trust,
    "agent_before_settle": _boundary,
    "turn_end": _boundary,
    "message_end": _message_end,
    "context": _context,
    "context_with_system": _context_with_system,
    "before_provider_request": _before_provider_request,
    "tool_result": _tool_result,
    "input": _input,
    "before_agent_start": _before_agent_start,
    "resources_discover": _resources_discover,
}


# --- the typed facade -----------------------------------------------------------------------------


class Hooks:
    """One typed ``async`` method per event hook; call sites never touch ``pm.hook``.

    ``await hooks.tool_call(event, ctx)`` returns the combined result of all handlers (see each
    hook's docstring in :mod:`pi_core.plugins.hookspecs`).
    """

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher

    def has(self, hook: str) -> bool:
        """Whether any plugin implements ``hook``."""
        return self.dispatcher.has_handlers(hook)

    async def project_trust(
        self, event: ProjectTrustEvent, ctx: ProjectTrustContext
    ) -> ProjectTrustResult | None:
        return cast("ProjectTrustResult | None", await self.dispatcher.dispatch("project_trust", event, ctx))

    async def session_start(self, event: SessionStartEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("session_start", event, ctx)

    async def resources_discover(
        self, event: ResourcesDiscoverEvent, ctx: ExtensionContext
    ) -> ResourcesDiscoverOutcome:
        return cast(
            ResourcesDiscoverOutcome, await self.dispatcher.dispatch("resources_discover", event, ctx)
        )

    async def session_before_switch(
        self, event: SessionBeforeSwitchEvent, ctx: ExtensionContext
    ) -> SessionBeforeSwitchResult | None:
        return cast(
            "SessionBeforeSwitchResult | None",
            await self.dispatcher.dispatch("session_before_switch", event, ctx),
        )

    async def session_before_fork(
        self, event: SessionBeforeForkEvent, ctx: ExtensionContext
    ) -> SessionBeforeForkResult | None:
        return cast(
            "SessionBeforeForkResult | None",
            await self.dispatcher.dispatch("session_before_fork", event, ctx),
        )

    async def session_before_compact(
        self, event: SessionBeforeCompactEvent, ctx: ExtensionContext
    ) -> SessionBeforeCompactResult | None:
        return cast(
            "SessionBeforeCompactResult | None",
            await self.dispatcher.dispatch("session_before_compact", event, ctx),
        )

    async def session_compact(self, event: SessionCompactEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("session_compact", event, ctx)

    async def session_before_tree(
        self, event: SessionBeforeTreeEvent, ctx: ExtensionContext
    ) -> SessionBeforeTreeResult | None:
        return cast(
            "SessionBeforeTreeResult | None",
            await self.dispatcher.dispatch("session_before_tree", event, ctx),
        )

    async def session_tree(self, event: SessionTreeEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("session_tree", event, ctx)

    async def session_shutdown(self, event: SessionShutdownEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("session_shutdown", event, ctx)

    async def input(self, event: InputEvent, ctx: ExtensionContext) -> InputResult:
        return cast(InputResult, await self.dispatcher.dispatch("input", event, ctx))

    async def before_agent_start(
        self, event: BeforeAgentStartEvent, ctx: ExtensionContext
    ) -> BeforeAgentStartOutcome:
        return cast(BeforeAgentStartOutcome, await self.dispatcher.dispatch("before_agent_start", event, ctx))

    async def agent_start(self, event: AgentStartEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("agent_start", event, ctx)

    async def agent_end(self, event: AgentEndEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("agent_end", event, ctx)

    async def turn_start(self, event: TurnStartEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("turn_start", event, ctx)

    async def turn_end(self, event: TurnEndEvent, ctx: ExtensionContext) -> TurnEndResult:
        """The final proposal (``entries``, ``continue_``) after every handler."""
        return cast(TurnEndResult, await self.dispatcher.dispatch("turn_end", event, ctx))

    async def message_start(self, event: MessageStartEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("message_start", event, ctx)

    async def message_update(self, event: MessageUpdateEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("message_update", event, ctx)

    async def message_end(self, event: MessageEndEvent, ctx: ExtensionContext) -> MessageEndResult | None:
        return cast("MessageEndResult | None", await self.dispatcher.dispatch("message_end", event, ctx))

    async def context(self, event: ContextEvent, ctx: ExtensionContext) -> ContextResult | None:
        return cast("ContextResult | None", await self.dispatcher.dispatch("context", event, ctx))

    async def before_provider_request(
        self, event: BeforeProviderRequestEvent, ctx: ExtensionContext
    ) -> BeforeProviderRequestResult | None:
        return cast(
            "BeforeProviderRequestResult | None",
            await self.dispatcher.dispatch("before_provider_request", event, ctx),
        )

    async def after_provider_response(self, event: AfterProviderResponseEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("after_provider_response", event, ctx)

    async def provider_stream_event(self, event: ProviderStreamEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("provider_stream_event", event, ctx)

    async def tool_execution_start(self, event: ToolExecutionStartEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("tool_execution_start", event, ctx)

    async def tool_call(self, event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallResult | None:
        return cast("ToolCallResult | None", await self.dispatcher.dispatch("tool_call", event, ctx))

    async def tool_execution_update(self, event: ToolExecutionUpdateEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("tool_execution_update", event, ctx)

    async def tool_result(self, event: ToolResultEvent, ctx: ExtensionContext) -> ToolResultResult | None:
        return cast("ToolResultResult | None", await self.dispatcher.dispatch("tool_result", event, ctx))

    async def tool_execution_end(self, event: ToolExecutionEndEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("tool_execution_end", event, ctx)

    async def model_select(self, event: ModelSelectEvent, ctx: ExtensionContext) -> None:
        await self.dispatcher.dispatch("model_select", event, ctx)

    async def thinking_level_select(self, event: ThinkingLevelSelectEvent, ctx: ExtensionContext) -> None:
        """Fire-and-forget: schedules the dispatch and returns at once (``dispatcher.drain()`` waits)."""
        self.dispatcher.dispatch_background("thinking_level_select", event, ctx)

    async def agent_before_settle(
        self, event: AgentBeforeSettleEvent, ctx: ExtensionContext
    ) -> AgentBeforeSettleResult:
        """The final proposal (``entries``, ``continue_``) after every handler."""
        return cast(
            AgentBeforeSettleResult, await self.dispatcher.dispatch("agent_before_settle", event, ctx)
        )

    async def agent_settled(self, event: AgentSettledEvent, ctx: ExtensionContext) -> None:
        """Fire-and-forget."""
        self.dispatcher.dispatch_background("agent_settled", event, ctx)

    async def ui_prompt_start(self, event: UiPromptStartEvent, ctx: ExtensionContext) -> None:
        """Fire-and-forget."""
        self.dispatcher.dispatch_background("ui_prompt_start", event, ctx)

    async def ui_prompt_end(self, event: UiPromptEndEvent, ctx: ExtensionContext) -> None:
        """Fire-and-forget."""
        self.dispatcher.dispatch_background("ui_prompt_end", event, ctx)

    async def session_compact_failed(self, event: SessionCompactFailedEvent, ctx: ExtensionContext) -> None:
        """Fire-and-forget."""
        self.dispatcher.dispatch_background("session_compact_failed", event, ctx)

    async def session_info_changed(self, event: SessionInfoChangedEvent, ctx: ExtensionContext) -> None:
        """Fire-and-forget."""
        self.dispatcher.dispatch_background("session_info_changed", event, ctx)

    async def context_with_system(
        self, event: ContextWithSystemEvent, ctx: ExtensionContext
    ) -> ContextWithSystemResult | None:
        return cast(
            "ContextWithSystemResult | None",
            await self.dispatcher.dispatch("context_with_system", event, ctx),
        )

    async def before_provider_headers(self, event: BeforeProviderHeadersEvent, ctx: ExtensionContext) -> None:
        """Handlers edit ``event.headers`` in place."""
        await self.dispatcher.dispatch("before_provider_headers", event, ctx)

    async def mcp_servers_change(self, event: McpServersChangeEvent, ctx: ExtensionContext) -> None:
        """Fire-and-forget."""
        self.dispatcher.dispatch_background("mcp_servers_change", event, ctx)

    async def user_bash(self, event: UserBashEvent, ctx: ExtensionContext) -> UserBashResult | None:
        return cast("UserBashResult | None", await self.dispatcher.dispatch("user_bash", event, ctx))


# Keep the names the facade's annotations use importable for typing.get_type_hints.
_ = (BeforeAgentStartResult, ResourcesDiscoverResult)
