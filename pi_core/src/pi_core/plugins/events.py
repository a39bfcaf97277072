"""Event payloads and handler results of pi's lifecycle hooks (the 29 of v0.73.1 and those of 1.6.0).

Every event model has a ``type`` field equal to the hook name. Handlers receive the event and may
return ``None``, the hook's ``<Name>Result`` model, or a dict of the same shape (camelCase or
snake_case keys); the dispatcher validates a dict into the result model at once, so core code only
ever sees models. Field names are snake_case in Python and camelCase on the wire (``tool_call_id`` /
``toolCallId``), as everywhere in pi.

Some events carry objects owned by other layers (the model, session entries, the compaction plan).
They are typed loosely here (``Any`` or a permissive model) so this module stays at the plugin layer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from pi_core._model import PiModel
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import AgentMessage, AssistantMessage, ImageContent, ToolResultContentBlock

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]


class Event(PiModel):
    """Base of every event payload; holds live objects (signals, models) next to plain data."""

    model_config = ConfigDict(arbitrary_types_allowed=True)


class Result(PiModel):
    """Base of every handler result model: an unknown key is an error of the plugin, never ignored."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")


# --- project trust --------------------------------------------------------------------------------


class ProjectTrustEvent(Event):
    type: Literal["project_trust"] = "project_trust"
    #: The project directory (absolute) whose code waits for a trust decision.
    cwd: str


class ProjectTrustResult(Result):
    #: ``yes`` runs the project's code, ``no`` leaves it out without asking; ``undecided`` (like
    #: ``None``) hands the question to the next plugin, then to pi's own trust flow.
    trusted: Literal["yes", "no", "undecided"]
    #: Record a yes or no for later runs (as ``pi trust`` records a yes); otherwise it holds
    #: for this process only.
    remember: bool = False


# --- resources ------------------------------------------------------------------------------------


class ResourcesDiscoverEvent(Event):
    type: Literal["resources_discover"] = "resources_discover"
    cwd: str
    reason: Literal["startup", "reload"]


class ResourcesDiscoverResult(Result):
    skill_paths: list[str] | None = None
    prompt_paths: list[str] | None = None
    theme_paths: list[str] | None = None


class ContributedPath(PiModel):
    """A path a plugin contributed in ``resources_discover``, kept with its provenance."""

    path: str
    plugin: str


class ResourcesDiscoverOutcome(PiModel):
    """Everything all handlers of one ``resources_discover`` dispatch contributed, in load order."""

    skill_paths: list[ContributedPath] = Field(default_factory=list)
    prompt_paths: list[ContributedPath] = Field(default_factory=list)
    theme_paths: list[ContributedPath] = Field(default_factory=list)


# --- session --------------------------------------------------------------------------------------


class SessionStartEvent(Event):
    type: Literal["session_start"] = "session_start"
    reason: Literal["startup", "reload", "new", "resume", "fork"]
    previous_session_file: str | None = None


class SessionBeforeSwitchEvent(Event):
    type: Literal["session_before_switch"] = "session_before_switch"
    reason: Literal["new", "resume"]
    target_session_file: str | None = None


class SessionBeforeSwitchResult(Result):
    cancel: bool | None = None


class SessionBeforeForkEvent(Event):
    type: Literal["session_before_fork"] = "session_before_fork"
    entry_id: str
    position: Literal["before", "at"] = "before"


class SessionBeforeForkResult(Result):
    cancel: bool | None = None
    #: Accepted but ignored in v0.73.1 (reserved).
    skip_conversation_restore: bool | None = None


class CompactionSettingsView(PiModel):
    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000


class CompactionPreparation(PiModel):
    """The pre-computed compaction plan (built by the compaction layer; unknown fields kept)."""

    first_kept_entry_id: str
    messages_to_summarize: list[AgentMessage] = Field(default_factory=list)
    turn_prefix_messages: list[AgentMessage] = Field(default_factory=list)
    is_split_turn: bool = False
    tokens_before: int = 0
    previous_summary: str | None = None
    file_ops: Any = None
    settings: CompactionSettingsView = Field(default_factory=CompactionSettingsView)


class SessionBeforeCompactEvent(Event):
    type: Literal["session_before_compact"] = "session_before_compact"
    preparation: CompactionPreparation
    #: Session entries of the current branch, root to leaf.
    branch_entries: list[Any] = Field(default_factory=list)
    custom_instructions: str | None = None
    signal: AbortSignal | None = None


class CompactionOverride(PiModel):
    """A compaction a plugin produced itself; pi saves it instead of running its summariser."""

    model_config = ConfigDict(extra="forbid")

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None
    #: What producing the summary cost, recorded on the entry (pi 1.6.0).
    usage: Any = None


class SessionBeforeCompactResult(Result):
    cancel: bool | None = None
    compaction: CompactionOverride | None = None


class SessionCompactEvent(Event):
    type: Literal["session_compact"] = "session_compact"
    #: The compaction entry that was saved.
    compaction_entry: Any = None
    from_extension: bool = False


class TreePreparation(PiModel):
    target_id: str
    old_leaf_id: str | None = None
    common_ancestor_id: str | None = None
    entries_to_summarize: list[Any] = Field(default_factory=list)
    user_wants_summary: bool = False
    custom_instructions: str | None = None
    replace_instructions: bool | None = None
    label: str | None = None


class SessionBeforeTreeEvent(Event):
    type: Literal["session_before_tree"] = "session_before_tree"
    preparation: TreePreparation
    signal: AbortSignal | None = None


class TreeSummary(PiModel):
    model_config = ConfigDict(extra="forbid")

    summary: str
    details: Any = None
    #: What producing the summary cost, recorded on the entry (pi 1.6.0).
    usage: Any = None


class SessionBeforeTreeResult(Result):
    cancel: bool | None = None
    summary: TreeSummary | None = None
    custom_instructions: str | None = None
    replace_instructions: bool | None = None
    label: str | None = None


class SessionCompactFailedEvent(Event):
    type: Literal["session_compact_failed"] = "session_compact_failed"
    reason: Literal["manual", "threshold", "overflow"]
    #: Why it failed; ``None`` for an aborted compaction.
    error_message: str | None = None
    aborted: bool = False
    #: Whether the turn that overflowed would have been retried after the compaction.
    will_retry: bool = False
    #: Whether a plugin's ``session_before_compact`` compaction was being used.
    from_extension: bool = False


class SessionInfoChangedEvent(Event):
    type: Literal["session_info_changed"] = "session_info_changed"
    #: The session's display name now (``None`` when cleared).
    name: str | None = None


class SessionTreeEvent(Event):
    type: Literal["session_tree"] = "session_tree"
    new_leaf_id: str | None = None
    old_leaf_id: str | None = None
    summary_entry: Any = None
    from_extension: bool | None = None


class SessionShutdownEvent(Event):
    type: Literal["session_shutdown"] = "session_shutdown"
    reason: Literal["quit", "reload", "new", "resume", "fork"]
    target_session_file: str | None = None


# --- input and agent ------------------------------------------------------------------------------


class InputEvent(Event):
    type: Literal["input"] = "input"
    text: str
    images: list[ImageContent] | None = None
    source: Literal["interactive", "rpc", "extension"] = "interactive"
    #: How the input would be delivered if the agent is busy: ``steer``, ``followUp``, or ``None``
    #: (a prompt that starts a run).
    streaming_behavior: Literal["steer", "followUp"] | None = None


class InputResult(Result):
    """``continue`` (default), ``transform`` (new ``text``/``images``) or ``handled`` (input swallowed)."""

    action: Literal["continue", "transform", "handled"] = "continue"
    text: str | None = None
    images: list[ImageContent] | None = None


class SystemPromptOptions(PiModel):
    """What pi builds the system prompt from (pi's ``BuildSystemPromptOptions``).

    A copy: editing it in ``before_agent_start`` rebuilds the prompt (and, for ``selected_tools``,
    the tools sent) for that run; elsewhere editing it changes nothing.
    """

    cwd: str
    #: SYSTEM.md's text, which replaces the default preamble, tool list and rules.
    custom_prompt: str | None = None
    #: The whole prompt for the run, exactly (set it in ``before_agent_start``).
    force_system_prompt: str | None = None
    #: APPEND_SYSTEM.md's text.
    append_system_prompt: str | None = None
    #: The active tools, in order.
    selected_tools: list[str] | None = None
    #: Active tools the request does not declare (none here; kept for pi's shape).
    hidden_tools: list[str] | None = None
    #: Each active tool's one-line ``prompt_snippet``.
    tool_snippets: dict[str, str] | None = None
    #: Each active tool's ``prompt_guidelines``.
    tool_guidelines: dict[str, list[str]] | None = None
    #: Further rules after the tools' own.
    prompt_guidelines: list[str] | None = None
    #: Further sections, name → text (each wrapped in ``<name>`` tags, after ``cwd``).
    sections: dict[str, str] | None = None
    #: The loaded context files (AGENTS.md, …): ``{"path", "content"}``. Sensitive: do not log them.
    context_files: list[dict[str, str]] | None = None
    #: The loaded skills: ``{"name", "description", "filePath", "baseDir", "disableModelInvocation"}``.
    skills: list[dict[str, Any]] | None = None


class BeforeAgentStartEvent(Event):
    type: Literal["before_agent_start"] = "before_agent_start"
    prompt: str
    images: list[ImageContent] | None = None
    system_prompt: str
    system_prompt_options: SystemPromptOptions | None = None


class InjectedMessage(PiModel):
    """A custom message a ``before_agent_start`` handler adds to the prompt (persisted, sent as user role)."""

    model_config = ConfigDict(extra="forbid")

    custom_type: str
    content: str | list[ToolResultContentBlock]
    display: bool = True
    details: Any = None


class BeforeAgentStartResult(Result):
    message: InjectedMessage | None = None
    system_prompt: str | None = None


class BeforeAgentStartOutcome(PiModel):
    """Combined result: messages of every handler in load order, and the chained system prompt."""

    messages: list[InjectedMessage] = Field(default_factory=list)
    #: The replacement system prompt, or ``None`` when no handler set a non-empty one.
    system_prompt: str | None = None


class AgentStartEvent(Event):
    type: Literal["agent_start"] = "agent_start"


class AgentEndEvent(Event):
    type: Literal["agent_end"] = "agent_end"
    messages: list[AgentMessage] = Field(default_factory=list)


class SettleEntry(PiModel):
    """An entry a ``turn_end`` or ``agent_before_settle`` handler proposes: ``custom`` (plugin
    state: ``custom_type``, ``data``), ``custom_message`` (a message the model reads as the user's:
    ``custom_type``, ``content``, ``display``, ``details``) or ``context_edit`` (from the next
    request on, leave out — ``replacement`` ``None`` — or replace the content of the message of
    entry ``target_id``; the session file keeps the original)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["custom", "custom_message", "context_edit"]
    custom_type: str | None = None
    data: Any = None
    content: str | list[ToolResultContentBlock] | None = None
    display: bool = True
    details: Any = None
    target_id: str | None = None
    replacement: str | list[ToolResultContentBlock] | None = None

    @model_validator(mode="after")
    def _complete(self) -> SettleEntry:
        if self.type == "context_edit" and not self.target_id:
            raise ValueError("a context_edit entry needs target_id")
        if self.type != "context_edit" and not self.custom_type:
            raise ValueError(f"a {self.type} entry needs custom_type")
        return self


class AgentBeforeSettleEvent(Event):
    type: Literal["agent_before_settle"] = "agent_before_settle"
    #: The messages of the run that is about to settle.
    messages: list[AgentMessage] = Field(default_factory=list)
    #: The entries proposed so far by earlier handlers (replace it by returning ``entries``).
    entries: list[SettleEntry] = Field(default_factory=list)
    #: The continuation proposed so far.
    continue_: bool = Field(default=False, alias="continue")


class AgentBeforeSettleResult(Result):
    """Either field replaces the proposal; a field left out keeps it."""

    entries: list[SettleEntry] | None = None
    continue_: bool | None = Field(default=None, alias="continue")


class AgentSettledEvent(Event):
    type: Literal["agent_settled"] = "agent_settled"
    #: The run ended because the user aborted it.
    aborted: bool = False


class UiPromptStartEvent(Event):
    type: Literal["ui_prompt_start"] = "ui_prompt_start"
    reason: Literal["ui_prompt"] = "ui_prompt"
    kind: Literal["select", "confirm", "input", "editor", "custom"]
    title: str | None = None


class UiPromptEndEvent(Event):
    type: Literal["ui_prompt_end"] = "ui_prompt_end"
    reason: Literal["ui_prompt"] = "ui_prompt"
    kind: Literal["select", "confirm", "input", "editor", "custom"]
    title: str | None = None


class TurnStartEvent(Event):
    type: Literal["turn_start"] = "turn_start"
    turn_index: int
    timestamp: int


class TurnEndEvent(Event):
    type: Literal["turn_end"] = "turn_end"
    turn_index: int
    message: AgentMessage
    tool_results: list[AgentMessage] = Field(default_factory=list)
    #: The session entry of ``message`` and those of ``tool_results`` (targets for ``context_edit``).
    message_entry_id: str | None = None
    tool_result_entry_ids: list[str] = Field(default_factory=list)
    #: ``completed``, or ``error``/``aborted`` (then the run ends whatever ``continue_`` says).
    outcome: Literal["completed", "error", "aborted"] = "completed"
    #: The entries proposed so far by earlier handlers (replace it by returning ``entries``).
    entries: list[SettleEntry] = Field(default_factory=list)
    #: The continuation proposed so far.
    continue_: bool = Field(default=False, alias="continue")
    #: The messages the next request would carry with the proposal so far applied.
    context: list[AgentMessage] = Field(default_factory=list)
    #: Rebuilds ``context`` after a handler changed the proposal (set by the runtime).
    _rebuild: Callable[[TurnEndEvent], None] | None = PrivateAttr(default=None)


class TurnEndResult(Result):
    """Either field replaces the proposal; a field left out keeps it."""

    entries: list[SettleEntry] | None = None
    continue_: bool | None = Field(default=None, alias="continue")


class MessageStartEvent(Event):
    type: Literal["message_start"] = "message_start"
    message: AgentMessage


class MessageUpdateEvent(Event):
    type: Literal["message_update"] = "message_update"
    message: AssistantMessage
    #: The raw stream event (text/thinking/toolcall start|delta|end) from the provider layer.
    assistant_message_event: Any = None


class MessageEndEvent(Event):
    type: Literal["message_end"] = "message_end"
    message: AgentMessage


class MessageEndResult(Result):
    message: AgentMessage | None = None


class ContextEvent(Event):
    type: Literal["context"] = "context"
    #: A deep copy of the agent's messages, safe to mutate.
    messages: list[AgentMessage]


class ContextResult(Result):
    messages: list[AgentMessage] | None = None


class ContextWithSystemEvent(Event):
    type: Literal["context_with_system"] = "context_with_system"
    #: The request's messages after every ``context`` handler, led by one system message that
    #: holds the request's system prompt (``content``) and tools (``tools_added``).
    messages: list[AgentMessage]


class ContextWithSystemResult(Result):
    messages: list[AgentMessage] | None = None


class BeforeProviderRequestEvent(Event):
    type: Literal["before_provider_request"] = "before_provider_request"
    #: The provider-specific request body (opaque).
    payload: Any


class BeforeProviderRequestResult(Result):
    """Wraps a replacement payload. A handler may also return the bare replacement value."""

    payload: Any


class BeforeProviderHeadersEvent(Event):
    type: Literal["before_provider_headers"] = "before_provider_headers"
    #: The outgoing HTTP headers; mutate in place — a string adds or overrides, ``None`` deletes.
    headers: dict[str, str | None] = Field(default_factory=dict)


class AfterProviderResponseEvent(Event):
    type: Literal["after_provider_response"] = "after_provider_response"
    status: int
    headers: dict[str, str] = Field(default_factory=dict)


class ProviderStreamEvent(Event):
    type: Literal["provider_stream_event"] = "provider_stream_event"
    #: The model's provider, wire API and id.
    provider: str
    api: str
    model: str
    #: The event as the provider's SDK parsed it (a dict of its fields); read it, never change it.
    data: Any = None


# --- tools ----------------------------------------------------------------------------------------


class ToolExecutionStartEvent(Event):
    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: Any = None
    #: Set when another tool made the call (``ctx.execute_tool``): that tool's call id.
    parent_tool_call_id: str | None = None


class ToolCallEvent(Event):
    type: Literal["tool_call"] = "tool_call"
    tool_call_id: str
    tool_name: str
    #: The validated arguments; mutable: in-place edits are what ``execute`` receives.
    input: dict[str, Any]
    parent_tool_call_id: str | None = None


class ToolCallResult(Result):
    block: bool | None = None
    reason: str | None = None
    #: With ``block``: end the run after this batch when every call of the batch terminates
    #: (pi 1.6: no follow-up model request).
    terminate: bool | None = None


class ToolExecutionUpdateEvent(Event):
    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: Any = None
    partial_result: Any = None
    parent_tool_call_id: str | None = None


class ToolResultEvent(Event):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    tool_name: str
    input: dict[str, Any] = Field(default_factory=dict)
    content: list[ToolResultContentBlock] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    structured_content: Any = None
    parent_tool_call_id: str | None = None


class ToolResultResult(Result):
    """A partial patch: fields left ``None`` keep their value."""

    content: list[ToolResultContentBlock] | None = None
    details: Any = None
    is_error: bool | None = None
    #: Replaces the result's structured data (pi 1.6).
    structured_content: Any = None


class ToolExecutionEndEvent(Event):
    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: Any = None
    is_error: bool = False
    #: pi 1.6.0: how long the tool ran, in milliseconds (absent when it never ran).
    duration_ms: int | None = None
    parent_tool_call_id: str | None = None


# --- model ----------------------------------------------------------------------------------------


class ModelSelectEvent(Event):
    type: Literal["model_select"] = "model_select"
    model: Any
    previous_model: Any = None
    source: Literal["set", "cycle", "restore"] = "set"


class ThinkingLevelSelectEvent(Event):
    type: Literal["thinking_level_select"] = "thinking_level_select"
    level: ThinkingLevel
    previous_level: ThinkingLevel


# --- user bash ------------------------------------------------------------------------------------


class UserBashEvent(Event):
    type: Literal["user_bash"] = "user_bash"
    command: str
    exclude_from_context: bool = False
    cwd: str


class BashOutcome(PiModel):
    model_config = ConfigDict(extra="forbid")

    output: str
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None


class UserBashResult(Result):
    #: A replacement shell backend with ``async exec(command, cwd, *, on_data, signal, timeout, env)``.
    operations: Any = None
    result: BashOutcome | None = None


# --- MCP servers ----------------------------------------------------------------------------------


class RegisteredMcpServer(PiModel):
    """A server a plugin added with ``ctx.register_mcp_server`` (an ``mcpServers`` entry)."""

    name: str
    #: The entry as given: ``command``/``args``/``env``/``cwd`` or ``url``/``headers``/``oauth``, …
    config: dict[str, Any]
    #: The plugin that registered it (pi: the extension's path).
    extension_path: str


class ScopedModel(PiModel):
    """A model of the session's scope (``--models``, ``enabledModels``), as ``ctx.scoped_models``
    lists it."""

    model: Any
    #: The level its pattern pinned (``anthropic/*:high``), else ``None``.
    thinking_level: ThinkingLevel | None = None


class McpServersChangeEvent(Event):
    type: Literal["mcp_servers_change"] = "mcp_servers_change"
    #: Every registered server after the change, in registration order.
    servers: list[RegisteredMcpServer]
