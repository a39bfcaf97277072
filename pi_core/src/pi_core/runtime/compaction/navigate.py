"""Tree navigation with an optional summary of the branch being left (spec §8).

``navigate_tree`` collects what is abandoned, asks ``session_before_tree``, summarizes with the
strategy's branch summarizer (or takes a hook's summary), moves the leaf, writes the
``branch_summary`` (and ``label``) entry and fires ``session_tree``. A failing or aborted summary
leaves the session exactly as before: nothing is written and the leaf does not move.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import UserMessage, text_of
from pi_core.plugins.events import SessionBeforeTreeEvent, SessionTreeEvent, TreePreparation

from .hooks import CompactionHooks
from .settings import BranchSummarySettings
from .strategy import BranchSummarizer, CompactionError, CompleteFn, SummarizationAborted


class TreeSession(Protocol):
    """What tree navigation needs of the session manager."""

    def get_leaf_id(self) -> str | None: ...

    def get_entry(self, entry_id: str, /) -> Any: ...

    def get_branch(self, from_id: str | None = ..., /) -> Sequence[Any]: ...

    def branch(self, entry_id: str, /) -> None: ...

    def reset_leaf(self) -> None: ...

    def branch_with_summary(
        self,
        entry_id: str | None,
        summary: str,
        details: Any = ...,
        from_hook: bool = ...,
        usage: Any = ...,
        /,
    ) -> str: ...

    def append_label_change(self, target_id: str, label: str | None = ..., /) -> str: ...


@dataclass
class BranchCollection:
    """Entries of the abandoned branch (chronological) and where the two paths meet."""

    entries: list[Any] = field(default_factory=list)
    common_ancestor_id: str | None = None


def collect_entries_for_branch_summary(
    session: TreeSession, old_leaf_id: str | None, target_id: str
) -> BranchCollection:
    """Walk from the old leaf up to (not including) the deepest entry also on the target's path."""
    if old_leaf_id is None:
        return BranchCollection()
    old_path = {entry.id for entry in session.get_branch(old_leaf_id)}
    common: str | None = None
    for entry in reversed(session.get_branch(target_id)):
        if entry.id in old_path:
            common = entry.id
            break
    collected: list[Any] = []
    current: str | None = old_leaf_id
    while current is not None and current != common:
        entry = session.get_entry(current)
        if entry is None:
            break
        collected.append(entry)
        current = entry.parent_id
    collected.reverse()
    return BranchCollection(collected, common)


@dataclass
class TreeNavigation:
    """How a navigation ended. ``cancelled`` (by a hook or an abort) means nothing changed."""

    cancelled: bool = False
    aborted: bool = False
    #: Text of a selected user/custom message, to put back into the editor.
    editor_text: str | None = None
    summary_entry: Any = None
    from_extension: bool = False
    new_leaf_id: str | None = None


AfterMove = Callable[[], Awaitable[None]]


async def navigate_tree(
    *,
    session: TreeSession,
    target_id: str,
    summarize: bool = False,
    custom_instructions: str | None = None,
    replace_instructions: bool | None = None,
    label: str | None = None,
    summarizer: BranchSummarizer | None = None,
    settings: BranchSummarySettings | None = None,
    context_window: int = 0,
    complete: CompleteFn | None = None,
    signal: AbortSignal,
    hooks: CompactionHooks | None = None,
    ctx: Any = None,
    after_move: AfterMove | None = None,
    summary_usage: Callable[[], Any] | None = None,
) -> TreeNavigation:
    """pi's ``navigateTree``. Raises ``CompactionError`` for an unknown target, a summary that is
    wanted but impossible (no model/summarizer) or failed; nothing is written in those cases.

    ``after_move()`` runs after the leaf moved and before ``session_tree`` fires (rebuild the
    agent's messages there).
    """
    old_leaf_id = session.get_leaf_id()
    if target_id == old_leaf_id:
        return TreeNavigation(new_leaf_id=old_leaf_id)
    if summarize and complete is None:
        raise CompactionError("No model available for summarization")
    target = session.get_entry(target_id)
    if target is None:
        raise CompactionError(f"Entry {target_id} not found")

    collected = collect_entries_for_branch_summary(session, old_leaf_id, target_id)
    hook_summary = None
    if hooks is not None:
        preparation = TreePreparation(
            target_id=target_id,
            old_leaf_id=old_leaf_id,
            common_ancestor_id=collected.common_ancestor_id,
            entries_to_summarize=collected.entries,
            user_wants_summary=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )
        result = await hooks.session_before_tree(
            SessionBeforeTreeEvent(preparation=preparation, signal=signal), ctx
        )
        if result is not None:
            if result.cancel:
                return TreeNavigation(cancelled=True)
            if result.summary is not None and summarize:
                hook_summary = result.summary
            if result.custom_instructions is not None:
                custom_instructions = result.custom_instructions
            if result.replace_instructions is not None:
                replace_instructions = result.replace_instructions
            if result.label is not None:
                label = result.label

    summary_text: str | None = None
    details: Any = None
    usage: Any = None
    from_extension = False
    if hook_summary is not None:
        summary_text, details, from_extension = hook_summary.summary, hook_summary.details, True
        usage = hook_summary.usage
    elif summarize and collected.entries:
        if summarizer is None:
            raise CompactionError(
                "No branch summarizer installed (the selected compaction strategy has none)"
            )
        assert complete is not None  # checked above
        try:
            produced = await summarizer.summarize_branch(
                collected.entries,
                settings=settings or BranchSummarySettings(),
                context_window=context_window,
                complete=complete,
                signal=signal,
                custom_instructions=custom_instructions,
                replace_instructions=bool(replace_instructions),
            )
        except SummarizationAborted:
            return TreeNavigation(cancelled=True, aborted=True)
        if signal.aborted:
            return TreeNavigation(cancelled=True, aborted=True)
        summary_text = produced.summary
        details = produced.details if produced.details is not None else {"readFiles": [], "modifiedFiles": []}
        usage = summary_usage() if summary_usage is not None else None

    navigation = TreeNavigation()
    new_leaf_id: str | None
    if target.type == "message" and isinstance(target.message, UserMessage):
        new_leaf_id = target.parent_id
        navigation.editor_text = text_of(target.message.content)
    elif target.type == "custom_message":
        new_leaf_id = target.parent_id
        navigation.editor_text = text_of(target.content)
    else:
        new_leaf_id = target_id

    if summary_text:
        summary_id = session.branch_with_summary(new_leaf_id, summary_text, details, from_extension, usage)
        navigation.summary_entry = session.get_entry(summary_id)
        navigation.from_extension = from_extension
        if label:
            session.append_label_change(summary_id, label)
    elif new_leaf_id is None:
        session.reset_leaf()
    else:
        session.branch(new_leaf_id)
    if label and not summary_text:
        session.append_label_change(target_id, label)

    navigation.new_leaf_id = session.get_leaf_id()
    if after_move is not None:
        await after_move()
    if hooks is not None:
        await hooks.session_tree(
            SessionTreeEvent(
                new_leaf_id=navigation.new_leaf_id,
                old_leaf_id=old_leaf_id,
                summary_entry=navigation.summary_entry,
                from_extension=from_extension if summary_text else None,
            ),
            ctx,
        )
    return navigation
