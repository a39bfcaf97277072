"""An AgentSession's system prompt, and what its transcript records of it (pi 1.6.0).

The default prompt is built in named sections from the active tools and the resources. A
``before_agent_start`` handler may replace it, or edit the options it is built from, for one run.
The transcript records the prompt and the tools in system messages: before each prompt one that
brings the recorded sections and tools up to date, and inside a run one more whenever the tools
change between requests (the run's prompt text stays until it ends).

The transcript itself is the session's: its replayed system message (what its system messages
add up to) is asked for through ``AgentSession._replayed_system_message``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pi_core.agent.tools import AgentTool
from pi_core.ai.messages import (
    AgentMessage,
    CustomMessage,
    ImageContent,
    SystemMessage,
    ToolDeclaration,
    ToolReference,
)
from pi_core.plugins import events as hook_events
from pi_core.runtime.resources import (
    SystemPromptSections,
    build_system_prompt_sections,
    diff_system_prompt_sections,
    render_system_prompt,
    sections_from_options,
)

if TYPE_CHECKING:
    from pi_core.runtime.session import AgentSession


class SystemPrompt:
    """The prompt of one session: the default one, a run's own, and the transcript's record."""

    def __init__(self, session: AgentSession) -> None:
        self._s = session
        #: The default prompt (rendered) and its sections, for the active tools.
        self.base = ""
        self.sections: SystemPromptSections = {}
        #: This run's sections when a ``before_agent_start`` handler edited the prompt options.
        self._run_sections: SystemPromptSections | None = None
        #: This run's prompt when a ``before_agent_start`` handler replaced or edited it: kept for
        #: the whole run (pi 1.6.0's forced prompt), while the default one follows the tools.
        self.run_prompt: str | None = None
        #: The mid-run tool check (:meth:`mid_run_updates`): the tools the transcript records and
        #: the tool objects they were compared with, both ``None`` at each run's start.
        self._recorded_tools: dict[str, ToolDeclaration] | None = None
        self._checked_tools: list[AgentTool] | None = None
        #: The prompt sections the transcript records, as of that check.
        self._recorded_sections: dict[str, str | None] | None = None

    def apply(self, tools: list[AgentTool]) -> None:
        """``tools`` become the agent's, and the default prompt is built for them."""
        agent = self._s.agent
        agent.state.tools = tools
        self.sections = build_system_prompt_sections(tools, self._s.resources)
        self.base = render_system_prompt(self.sections)
        agent.state.system_prompt = self.base

    def current(self) -> str:
        """The prompt the next request sends."""
        return self.run_prompt or self._s.agent.state.system_prompt

    def run_started(self) -> None:
        """A run starts, maybe from another transcript (/tree, a compaction, a switched
        session): its first mid-run check replays it again."""
        self._recorded_tools = self._checked_tools = None

    def end_run(self, active_tools: Callable[[], list[AgentTool]]) -> None:
        """The prompt's run is over: the next one starts from the default prompt and tools."""
        self.run_prompt = None
        if self._run_sections is not None:
            self._run_sections = None
            self._s.agent.state.tools = active_tools()
        self._s.agent.state.system_prompt = self.base

    def mid_run_updates(self) -> list[AgentMessage]:
        """Before a request inside a run: the tools registered or removed since the last system
        message, recorded as one more (pi 1.6.0 checks before every request). The prompt's text is
        the run's until it ends, so changed sections wait for the next prompt's update.

        The transcript's tools are replayed from its system messages once per run (the first
        check after the run starts); later checks compare the agent's tool objects with the
        ones of the previous check and only build declarations when one was added, removed or
        replaced, so a run of many tool calls on a long session does not walk every message
        before each request.
        """
        tools = self._s.agent.state.tools
        checked = self._checked_tools
        recorded = self._recorded_tools
        if (
            recorded is not None
            and checked is not None
            and len(checked) == len(tools)
            and all(old is new for old, new in zip(checked, tools, strict=True))
        ):
            return []
        if recorded is None:
            replayed = self._s._replayed_system_message()
            recorded = {tool.name: tool for tool in (replayed.tools_added if replayed else None) or ()}
            self._recorded_sections = dict((replayed.sections if replayed else None) or {})
        added, removed = _tool_changes(recorded, tools)
        recorded = dict(recorded)
        for reference in removed:
            recorded.pop(reference.name, None)
        recorded.update((tool.name, tool) for tool in added)
        self._recorded_tools, self._checked_tools = recorded, list(tools)
        if not added and not removed:
            return []
        # The default prompt was rebuilt for the new tools (pi 1.6.0 rebuilds it before the next
        # turn): its changed sections are recorded with the tools. A replaced prompt stays as it is.
        sections = None
        if self._run_sections is None and self.run_prompt is None:
            recorded_sections = self._recorded_sections or {}
            sections = diff_system_prompt_sections(recorded_sections, self.sections)
            self._recorded_sections = dict(self.sections)
        return [
            SystemMessage(
                content="", sections=sections, tools_added=added or None, tools_removed=removed or None
            )
        ]

    def prompt_update(self) -> SystemMessage | None:
        """The system message that brings the transcript's recorded prompt and tools up to date
        (pi 1.6.0): every section and tool in the first one of a session, afterwards only the
        sections that changed (``None`` for a vanished one) and the tools added or removed (a
        changed tool is removed and added again). ``None`` when nothing changed.

        The sections are the default prompt's; a ``before_agent_start`` replacement for one run
        is sent but not recorded, as in pi.
        """
        replayed = self._s._replayed_system_message()
        sections = diff_system_prompt_sections(
            (replayed.sections if replayed else None) or {},
            self._run_sections if self._run_sections is not None else self.sections,
        )
        previous = {tool.name: tool for tool in (replayed.tools_added if replayed else None) or ()}
        added, removed = _tool_changes(previous, self._s.agent.state.tools)
        if sections is None and not added and not removed:
            return None
        return SystemMessage(
            content="", sections=sections, tools_added=added or None, tools_removed=removed or None
        )

    async def before_agent_start(self, text: str, images: list[ImageContent]) -> list[AgentMessage]:
        """``before_agent_start``: the run's own prompt or prompt options, and the custom messages
        that follow the prompt."""
        s = self._s
        hooks = s.hooks
        if hooks is None or not hooks.has("before_agent_start"):
            return []
        options = s.system_prompt_options()
        before, tools_before = options.model_dump(), list(options.selected_tools or [])
        event = hook_events.BeforeAgentStartEvent(
            prompt=text,
            images=images or None,
            system_prompt=self.base,
            system_prompt_options=options,
        )
        outcome = await hooks.before_agent_start(event, s.extension_context())
        edited = event.system_prompt_options
        if outcome.system_prompt is not None:
            s.agent.state.system_prompt = self.run_prompt = outcome.system_prompt
        elif edited is not None and edited.model_dump() != before:
            self._run_with_options(edited, tools_edited=edited.selected_tools != tools_before)
        return [
            CustomMessage(custom_type=m.custom_type, content=m.content, display=m.display, details=m.details)
            for m in outcome.messages
        ]

    def _run_with_options(self, options: hook_events.SystemPromptOptions, *, tools_edited: bool) -> None:
        """This run's prompt (and, when ``selected_tools`` was edited, its tools) from options a
        ``before_agent_start`` handler edited; the system message records the change, and the next
        run goes back to the default (pi's per-run prompt options)."""
        s = self._s
        if options.force_system_prompt:
            s.agent.state.system_prompt = self.run_prompt = options.force_system_prompt
            return
        try:
            sections = sections_from_options(options, s.resources)
        except ValueError as error:
            s._emit_error("pi", "before_agent_start", f"system_prompt_options: {error}")
            return
        if tools_edited:
            tools = s.services.tools
            s.agent.state.tools = [tools[name] for name in options.selected_tools or [] if name in tools]
        self._run_sections = sections
        s.agent.state.system_prompt = self.run_prompt = render_system_prompt(sections)


def _tool_changes(
    recorded: dict[str, ToolDeclaration], tools: Sequence[AgentTool]
) -> tuple[list[ToolDeclaration], list[ToolReference]]:
    """The declarations of ``tools`` that ``recorded`` lacks or has otherwise, and the recorded
    names to remove (gone, or changed: a changed tool is removed and added again)."""
    current = [
        ToolDeclaration(name=tool.name, description=tool.description, parameters=tool.json_schema())
        for tool in tools
    ]
    names = {tool.name for tool in current}
    added = [
        tool
        for tool in current
        if tool.name not in recorded or recorded[tool.name].to_json_dict() != tool.to_json_dict()
    ]
    changed = {tool.name for tool in added}
    removed = [ToolReference(name=name) for name in recorded if name not in names or name in changed]
    return added, removed
