"""The typed view of pi's ``settings.json``: every documented key, camelCase on disk, defaults filled.

Unknown keys are kept (``extra="allow"``), so a file written by a newer pi or by plugins survives a
round trip. The model is a *view* of the merged settings; writes go through ``SettingsManager``, which
edits the raw JSON so nothing it does not own is ever rewritten.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, model_validator

from pi_core._model import PiModel

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueMode = Literal["all", "one-at-a-time"]


class ThinkingBudgets(PiModel):
    minimal: int | None = None
    low: int | None = None
    medium: int | None = None
    high: int | None = None


class WarningSettings(PiModel):
    anthropic_extra_usage: bool = True


class CompactionSettings(PiModel):
    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000


class BranchSummarySettings(PiModel):
    reserve_tokens: int = 16384
    skip_prompt: bool = False


class ProviderRetrySettings(PiModel):
    timeout_ms: int | None = None
    #: SDK-level retries; 0 as in pi 1.6.0, so that every retry is pi's own (the same rules for
    #: every dialect, visible as ``auto_retry_*`` events).
    max_retries: int | None = 0
    #: Cap on a server-requested retry delay; 0 means no cap.
    max_retry_delay_ms: int = 60000


class RetrySettings(PiModel):
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    #: Cap on one agent-level backoff.
    max_agent_delay_ms: int = 60000
    provider: ProviderRetrySettings = Field(default_factory=ProviderRetrySettings)


class TerminalSettings(PiModel):
    show_images: bool = True
    image_width_cells: int = 60
    #: ``None`` = not set in any file; then ``PI_CLEAR_ON_SHRINK=1`` decides.
    clear_on_shrink: bool | None = None
    show_terminal_progress: bool = False
    #: ``true``/``false`` decide whether colours are sent as 24-bit; ``"auto"`` (or unset): detected.
    true_color: bool | Literal["auto"] | None = None


class ImageSettings(PiModel):
    auto_resize: bool = True
    block_images: bool = False


class MarkdownSettings(PiModel):
    code_block_indent: str = "  "


class PackageFilter(PiModel):
    """Object form of a ``packages`` entry: a source narrowed to some of its resources."""

    source: str
    extensions: list[str] | None = None
    skills: list[str] | None = None
    prompts: list[str] | None = None
    themes: list[str] | None = None


class Settings(PiModel):
    """Effective settings (global merged with project), with pi's defaults where pi has one."""

    default_provider: str | None = None
    default_model: str | None = None
    default_thinking_level: ThinkingLevel | None = None
    hide_thinking_block: bool = False
    thinking_budgets: ThinkingBudgets | None = None
    transport: Literal["sse", "websocket", "auto"] = "auto"
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    theme: str | None = None
    quiet_startup: bool = False
    #: The interactive UI: ``fullscreen`` (the default on a capable terminal) or ``regular``.
    tui_mode: Literal["fullscreen", "regular"] = "fullscreen"
    #: What fullscreen mode leaves on the normal screen when it exits.
    fullscreen_exit_output: Literal["transcript", "resume-hint"] = "transcript"
    #: Whether a mouse selection in fullscreen mode is copied as the drag ends (otherwise Ctrl+X).
    fullscreen_copy_on_select: bool = True
    collapse_changelog: bool = False
    enable_install_telemetry: bool = True
    double_escape_action: Literal["tree", "fork", "none"] = "tree"
    tree_filter_mode: Literal["default", "no-tools", "user-only", "labeled-only", "all"] = "default"
    editor_padding_x: int = 0
    autocomplete_max_visible: int = 5
    #: ``None`` = not set in any file; then ``PI_HARDWARE_CURSOR=1`` decides.
    show_hardware_cursor: bool | None = None
    warnings: WarningSettings = Field(default_factory=WarningSettings)
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    branch_summary: BranchSummarySettings = Field(default_factory=BranchSummarySettings)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    terminal: TerminalSettings = Field(default_factory=TerminalSettings)
    images: ImageSettings = Field(default_factory=ImageSettings)
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    npm_command: list[str] | None = None
    #: The command Ctrl+G opens (before ``$VISUAL``, ``$EDITOR``, then ``nano``).
    external_editor: str | None = None
    session_dir: str | None = None
    enabled_models: list[str] | None = None
    markdown: MarkdownSettings = Field(default_factory=MarkdownSettings)
    packages: list[str | PackageFilter] = Field(default_factory=list)
    extensions: list[str] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)
    themes: list[str] = Field(default_factory=list)
    enable_skill_commands: bool = True
    last_changelog_version: str | None = None
    #: pi 1.6.0's idle limit on a provider's HTTP response (headers, then between body chunks);
    #: ``0`` or ``"disabled"``: none. The default of ``retry.provider.timeoutMs``, so a stream
    #: that stalls ends after it in every dialect (the SDKs' own default is 600 s).
    http_idle_timeout_ms: int | Literal["disabled"] = 300000

    @model_validator(mode="after")
    def _provider_timeout_defaults_to_idle_timeout(self) -> Settings:
        if self.retry.provider.timeout_ms is None:
            idle = self.http_idle_timeout_ms
            self.retry.provider.timeout_ms = idle if isinstance(idle, int) and idle > 0 else None
        return self

    def extra_keys(self) -> dict[str, Any]:
        """Keys pi does not document (kept untouched)."""
        return dict(self.model_extra or {})

    def hardware_cursor_enabled(self, env: Mapping[str, str] | None = None) -> bool:
        """``showHardwareCursor``, else ``PI_HARDWARE_CURSOR=1`` (pi's rule)."""
        if self.show_hardware_cursor is not None:
            return self.show_hardware_cursor
        return (os.environ if env is None else env).get("PI_HARDWARE_CURSOR") == "1"

    def clear_on_shrink_enabled(self, env: Mapping[str, str] | None = None) -> bool:
        """``terminal.clearOnShrink``, else ``PI_CLEAR_ON_SHRINK=1`` (pi's rule)."""
        if self.terminal.clear_on_shrink is not None:
            return self.terminal.clear_on_shrink
        return (os.environ if env is None else env).get("PI_CLEAR_ON_SHRINK") == "1"
