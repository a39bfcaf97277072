"""Compaction in the core: the strategy interface, settings, token accounting and orchestration.

The algorithm itself lives in strategy plugins (pi's own one in ``pi_builtin_compaction``);
the core decides *when* to compact, fires the hooks, validates what a strategy produced and
writes the entry. See docs/compaction.md.
"""

from __future__ import annotations

from .check import (
    OVERFLOW_RECOVERY_FAILED,
    CompactionAction,
    CompactionCheck,
    check_compaction,
    context_usage_tokens,
    latest_compaction,
)
from .completion import model_completion
from .entry_messages import (
    branch_context_messages,
    estimate_branch_context_tokens,
    iso_to_ms,
    last_compaction_index,
    message_for_branch_summary,
    message_for_compaction,
)
from .fileops import FileOperations, format_file_operations
from .hooks import CompactionHooks
from .navigate import (
    BranchCollection,
    TreeNavigation,
    TreeSession,
    collect_entries_for_branch_summary,
    navigate_tree,
)
from .registry import CompactionStrategyRegistry, UnknownStrategyError
from .run import (
    ALREADY_COMPACTED,
    COMPACTION_CANCELLED,
    NOTHING_TO_COMPACT,
    CompactionOutcome,
    CompactionReason,
    CompactionSession,
    run_compaction,
)
from .serialize import (
    TOOL_RESULT_MAX_CHARS,
    format_tool_call,
    serialize_conversation,
    serialize_conversation_into,
    truncate_for_summary,
)
from .settings import (
    DEFAULT_STRATEGY,
    BranchSummarySettings,
    CompactionSettings,
    CompactionSettingsError,
    branch_summary_settings_from,
    compaction_settings_from,
)
from .strategy import (
    BranchSummarizer,
    BranchSummaryResult,
    CompactionError,
    CompactionPreparation,
    CompactionResult,
    CompactionStrategy,
    CompleteFn,
    SummarizationAborted,
    SummaryRequest,
)
from .tokens import (
    ContextEstimate,
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_tokens,
    js_json,
    js_len,
    should_compact,
    valid_usage,
)

__all__ = [
    "ALREADY_COMPACTED",
    "COMPACTION_CANCELLED",
    "DEFAULT_STRATEGY",
    "NOTHING_TO_COMPACT",
    "OVERFLOW_RECOVERY_FAILED",
    "TOOL_RESULT_MAX_CHARS",
    "BranchCollection",
    "BranchSummarizer",
    "BranchSummaryResult",
    "BranchSummarySettings",
    "CompactionAction",
    "CompactionCheck",
    "CompactionError",
    "CompactionHooks",
    "CompactionOutcome",
    "CompactionPreparation",
    "CompactionReason",
    "CompactionResult",
    "CompactionSession",
    "CompactionSettings",
    "CompactionSettingsError",
    "CompactionStrategy",
    "CompactionStrategyRegistry",
    "CompleteFn",
    "ContextEstimate",
    "FileOperations",
    "SummarizationAborted",
    "SummaryRequest",
    "TreeNavigation",
    "TreeSession",
    "UnknownStrategyError",
    "branch_context_messages",
    "branch_summary_settings_from",
    "calculate_context_tokens",
    "check_compaction",
    "collect_entries_for_branch_summary",
    "compaction_settings_from",
    "context_usage_tokens",
    "estimate_branch_context_tokens",
    "estimate_context_tokens",
    "estimate_tokens",
    "format_file_operations",
    "format_tool_call",
    "iso_to_ms",
    "js_json",
    "js_len",
    "last_compaction_index",
    "latest_compaction",
    "message_for_branch_summary",
    "message_for_compaction",
    "model_completion",
    "navigate_tree",
    "run_compaction",
    "serialize_conversation",
    "serialize_conversation_into",
    "should_compact",
    "truncate_for_summary",
    "valid_usage",
]
