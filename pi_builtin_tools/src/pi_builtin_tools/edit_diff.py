"""The edit tool's matching rules and its numbered diff, as pi applies them.

Matching is exact first; when an ``oldText`` is not found verbatim it is looked up in a normalised
space (NFKC, trailing whitespace stripped, typographic quotes/dashes/spaces made ASCII), and then the
whole file is edited in that space. Uniqueness is always counted in the normalised space.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from typing import NoReturn

from pi_core.agent.tools import ToolError

_FUZZY_TABLE = str.maketrans(
    {
        **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b"), "'"),
        **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f"), '"'),
        **dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-"),
        **dict.fromkeys(
            map(ord, "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"), " "
        ),
    }
)
# JavaScript's trimEnd() whitespace: ASCII blanks plus the Unicode space separators and BOM.
_WS = " \t\u000b\u000c\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_TRAILING_WS = re.compile(f"[{_WS}]+$", re.MULTILINE)
_ASCII_WS = " \t\u000b\u000c\r"


def detect_line_ending(content: str) -> str:
    lf = content.find("\n")
    if lf == -1:
        return "\n"
    crlf = content.find("\r\n")
    if crlf == -1:
        return "\n"
    return "\r\n" if crlf < lf else "\n"


def normalize_to_lf(text: str) -> str:
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: str) -> str:
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


def normalize_for_fuzzy_match(text: str) -> str:
    """pi's fuzzy space; cheap on plain ASCII files, which have nothing to normalise but blanks."""
    if text.isascii():
        # Substring tests run at memchr speed; the regex only runs when there is something to strip.
        if not any(f"{ws}\n" in text for ws in _ASCII_WS) and not text.endswith(tuple(_ASCII_WS)):
            return text
        return _TRAILING_WS.sub("", text)
    text = unicodedata.normalize("NFKC", text).translate(_FUZZY_TABLE)
    return _TRAILING_WS.sub("", text)


@dataclass(frozen=True)
class Edit:
    old_text: str
    new_text: str


@dataclass(frozen=True)
class _Match:
    edit_index: int
    index: int
    length: int
    new_text: str


def _find(content: str, old_text: str) -> tuple[int, int, bool]:
    """(index, length, used_fuzzy); index -1 when not found."""
    index = content.find(old_text)
    if index != -1:
        return index, len(old_text), False
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    index = normalize_for_fuzzy_match(content).find(fuzzy_old)
    if index == -1:
        return -1, 0, False
    return index, len(fuzzy_old), True


def _has_trailing_blanks(text: str) -> bool:
    """Whether an ASCII text has a blank at the end of a line (one-character scans run at memchr speed)."""
    return any(ws in text and (f"{ws}\n" in text or text.endswith(ws)) for ws in _ASCII_WS)


def _plain_exact(content: str, edits: list[Edit], exact: list[int]) -> bool:
    """True when counting in fuzzy space must give the same answers as counting in ``content``.

    For ASCII text the fuzzy space only strips blanks at line ends. Every ``oldText`` must be found
    as is and be its own normal form (ASCII, no blank at a line end). One without a newline cannot
    overlap stripped blanks, so its occurrences are the same in both spaces; one with a newline is safe
    when the file has no blanks at line ends either.
    """
    if not content.isascii() or -1 in exact:
        return False
    multiline = False
    for edit in edits:
        old = edit.old_text
        if not old.isascii() or _has_trailing_blanks(old):
            return False
        multiline |= "\n" in old
    return not (multiline and _has_trailing_blanks(content))


@dataclass(frozen=True)
class Applied:
    """The content edits were matched in (``base``), the result, and where the changes lie: ``base``
    and ``new`` agree on their first ``head`` and last ``tail`` characters."""

    base: str
    new: str
    head: int
    tail: int


def apply_edits(content: str, edits: list[Edit], path: str) -> Applied:
    """Apply edits to LF-normalised ``content``; raises pi's error texts."""
    count = len(edits)
    normalized = [Edit(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]
    for i, edit in enumerate(normalized):
        if not edit.old_text:
            raise ToolError(
                f"oldText must not be empty in {path}."
                if count == 1
                else f"edits[{i}].oldText must not be empty in {path}."
            )
    exact = [content.find(e.old_text) for e in normalized]
    if _plain_exact(content, normalized, exact):
        # Fuzzy space cannot change the answers: match and count in the file as it is, and stop
        # counting at the second occurrence (a 50 MB file is then scanned about once).
        base = content
        plain_matches: list[_Match] = []
        for i, edit in enumerate(normalized):
            first = exact[i]
            if content.find(edit.old_text, first + len(edit.old_text)) != -1:
                _raise_duplicate(path, i, count, content.count(edit.old_text))
            plain_matches.append(_Match(i, first, len(edit.old_text), edit.new_text))
        return _replace(base, plain_matches, path, count)
    fuzzy_content = normalize_for_fuzzy_match(content)
    used_fuzzy = any(
        exact[i] == -1 and fuzzy_content.find(normalize_for_fuzzy_match(e.old_text)) != -1
        for i, e in enumerate(normalized)
    )
    base = fuzzy_content if used_fuzzy else content
    fuzzy_base = fuzzy_content if base is content else base  # normalising twice is a no-op

    matches: list[_Match] = []
    for i, edit in enumerate(normalized):
        index, length, _ = _find(base, edit.old_text)
        if index == -1:
            raise ToolError(
                f"Could not find the exact text in {path}. The old text must match exactly including all "
                "whitespace and newlines."
                if count == 1
                else f"Could not find edits[{i}] in {path}. The oldText must match exactly including all "
                "whitespace and newlines."
            )
        occurrences = fuzzy_base.count(normalize_for_fuzzy_match(edit.old_text))
        if occurrences > 1:
            _raise_duplicate(path, i, count, occurrences)
        matches.append(_Match(i, index, length, edit.new_text))
    return _replace(base, matches, path, count)


def _raise_duplicate(path: str, i: int, count: int, occurrences: int) -> NoReturn:
    raise ToolError(
        f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
        "Please provide more context to make it unique."
        if count == 1
        else f"Found {occurrences} occurrences of edits[{i}] in {path}. Each oldText must be unique. "
        "Please provide more context to make it unique."
    )


def _replace(base: str, matches: list[_Match], path: str, count: int) -> Applied:
    matches.sort(key=lambda m: m.index)
    for previous, current in itertools.pairwise(matches):
        if previous.index + previous.length > current.index:
            raise ToolError(
                f"edits[{previous.edit_index}] and edits[{current.edit_index}] overlap in {path}. "
                "Combine them into one edit, or make each edit cover a separate region."
            )
    pieces: list[str] = []
    cursor = 0
    for match in matches:
        pieces.append(base[cursor : match.index])
        pieces.append(match.new_text)
        cursor = match.index + match.length
    pieces.append(base[cursor:])
    new_content = "".join(pieces)
    if new_content == base:
        raise ToolError(
            f"No changes made to {path}. The replacement produced identical content. This might indicate an "
            "issue with special characters or the text not existing as expected."
            if count == 1
            else f"No changes made to {path}. The replacements produced identical content."
        )
    return Applied(base, new_content, matches[0].index, len(base) - (matches[-1].index + matches[-1].length))


def generate_diff(
    old: str, new: str, context_lines: int = 4, *, known_head: int = 0, known_tail: int = 0
) -> tuple[str, int | None]:
    """pi's numbered line diff and the first changed line (1-based, in the new file).

    Only the changed middle is split into lines: the common head and tail are found with C-speed
    slice comparisons and contribute just their context lines, so editing a 50 MB file stays cheap.
    """
    parts = _runs(old, new, 2 * context_lines, known_head, known_tail)
    old_tokens = sum(run.count for run in parts if run.kind != "+")
    new_tokens = sum(run.count for run in parts if run.kind != "-")
    width = len(str(max(_split_length(old, old_tokens), _split_length(new, new_tokens))))
    out: list[str] = []
    old_no = new_no = 1
    first_changed: int | None = None
    last_was_change = False
    gap = f" {'':>{width}} ..."
    for i, run in enumerate(parts):
        if run.kind != "=":
            if first_changed is None:
                first_changed = new_no
            for line in run.head:
                if run.kind == "+":
                    out.append(f"+{new_no:>{width}} {line}")
                    new_no += 1
                else:
                    out.append(f"-{old_no:>{width}} {line}")
                    old_no += 1
            last_was_change = True
            continue
        next_is_change = i < len(parts) - 1 and parts[i + 1].kind != "="
        count = run.count
        if last_was_change and next_is_change and count <= context_lines * 2:
            shown = [(0, run.head)]
        elif last_was_change and next_is_change:
            skipped = count - 2 * context_lines
            shown = [(0, run.head[:context_lines]), (skipped, run.tail[-context_lines:])]
        elif last_was_change:
            head = run.head[:context_lines]
            shown = [(0, head), (count - len(head), [])]
        elif next_is_change:
            skipped = max(0, count - context_lines)
            shown = [(skipped, run.tail[len(run.tail) - (count - skipped) :])]
        else:
            old_no += count
            new_no += count
            last_was_change = False
            continue
        for skipped, lines in shown:
            if skipped:
                out.append(gap)
                old_no += skipped
                new_no += skipped
            for line in lines:
                out.append(f" {old_no:>{width}} {line}")
                old_no += 1
                new_no += 1
        last_was_change = False
    return "\n".join(out), first_changed


_SUFFIX_MARGIN = 1000


def _split_length(text: str, tokens: int) -> int:
    """``len(text.split("\\n"))`` from the jsdiff token count, without another pass over the text."""
    return tokens + 1 if not text or text.endswith("\n") else tokens


@dataclass
class _Run:
    """A run of equal, removed or added lines. Changed runs keep every line in ``head``; equal runs
    keep only their first and last ``keep`` lines (all they can show as context) and a count."""

    kind: str
    count: int
    head: list[str]
    tail: list[str]


def _runs(old: str, new: str, keep: int, known_head: int = 0, known_tail: int = 0) -> list[_Run]:
    prefix = _common_prefix(old, new, known_head)
    prefix = old.rfind("\n", 0, prefix) + 1  # back to the start of the first differing line
    old_end, new_end = len(old), len(new)
    suffix = _common_suffix(old, new, prefix, known_tail)
    if suffix:
        cut = old_end - suffix
        if old[cut - 1] != "\n":  # forward to the start of a line shared by both tails
            next_line = old.find("\n", cut)
            cut = old_end if next_line == -1 else next_line + 1
        # jsdiff extends equal runs greedily forwards, which decides where an ambiguous change sits;
        # a margin of shared lines lets the line diff make that same choice near the tail.
        for _ in range(_SUFFIX_MARGIN):
            if cut >= old_end:
                break
            next_line = old.find("\n", cut)
            cut = old_end if next_line == -1 else next_line + 1
        old_end, new_end = cut, new_end - (old_end - cut)
    runs: list[_Run] = []
    if prefix:
        # Index arithmetic only: slicing a 50 MB head or tail would copy it.
        count = old.count("\n", 0, prefix)
        head = _tokens(old[: _line_end_after(old, 0, keep)])[:count]
        tail = _tokens(old[_line_start_before(old, prefix, keep) : prefix])
        runs.append(_Run("=", count, [_display(x) for x in head], [_display(x) for x in tail]))
    for kind, lines in _line_parts(_tokens(old[prefix:old_end]), _tokens(new[prefix:new_end])):
        shown = [_display(x) for x in lines] if kind != "=" else [_display(x) for x in lines[:keep]]
        tail = [_display(x) for x in lines[-keep:]] if kind == "=" else []
        runs.append(_Run(kind, len(lines), shown, tail))
    if old_end < len(old):
        count = old.count("\n", old_end) + (0 if old.endswith("\n") else 1)
        head = _tokens(old[old_end : _line_end_after(old, old_end, keep)])
        tail = _tokens(old[_line_start_before(old, len(old), keep) :])[-keep:]
        runs.append(_Run("=", count, [_display(x) for x in head], [_display(x) for x in tail]))
    merged: list[_Run] = []
    for run in runs:
        if merged and run.kind == "=" == merged[-1].kind:
            previous = merged[-1]
            joined_head = (previous.head + run.head)[:keep] if previous.count < keep else previous.head
            joined_tail = (previous.tail + run.tail)[-keep:] if run.count < keep else run.tail
            merged[-1] = _Run("=", previous.count + run.count, joined_head, joined_tail)
        elif run.count:
            merged.append(run)
    return merged


def _line_end_after(text: str, start: int, n: int) -> int:
    """Index just past the ``n``-th newline at or after ``start`` (or the end of ``text``)."""
    position = start
    for _ in range(n):
        found = text.find("\n", position)
        if found == -1:
            return len(text)
        position = found + 1
    return position


def _line_start_before(text: str, end: int, n: int) -> int:
    """Start of the ``n``-th last line of ``text[:end]`` (lines there counted as jsdiff tokens)."""
    position = end - 1 if end and text[end - 1] == "\n" else end
    for _ in range(n):
        found = text.rfind("\n", 0, position)
        if found == -1:
            return 0
        position = found
    return position + 1


def _common_prefix(a: str, b: str, known: int = 0) -> int:
    """Length of the common head; the first ``known`` characters are known to agree."""
    n = min(len(a), len(b))
    same, step = min(known, n), 1 << 12
    while same < n:
        k = min(step, n - same)
        if a[same : same + k] == b[same : same + k]:
            same += k
            step *= 2
        elif k == 1:
            break
        else:
            step = k // 2
    return same


def _common_suffix(a: str, b: str, floor: int, known: int = 0) -> int:
    """Length of the common tail, never reaching back past ``floor`` in either string."""
    n = min(len(a), len(b)) - floor
    same, step = max(0, min(known, n)), 1 << 12
    while same < n:
        k = min(step, n - same)
        if a[len(a) - same - k : len(a) - same] == b[len(b) - same - k : len(b) - same]:
            same += k
            step *= 2
        elif k == 1:
            break
        else:
            step = k // 2
    return same


# Marks a last line without a final newline, so that it differs from the same text with one, as
# jsdiff's line tokens (each carrying its newline) do.
_NO_EOL = "\x00<no-eol>"


def _tokens(text: str) -> list[str]:
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    else:
        lines[-1] += _NO_EOL
    return lines


def _display(line: str) -> str:
    return line.removesuffix(_NO_EOL)


class _Component:
    __slots__ = ("added", "count", "previous", "removed")

    def __init__(self, count: int, added: bool, removed: bool, previous: _Component | None) -> None:
        self.count = count
        self.added = added
        self.removed = removed
        self.previous = previous


class _Path:
    __slots__ = ("last", "old_pos")

    def __init__(self, old_pos: int, last: _Component | None) -> None:
        self.old_pos = old_pos
        self.last = last


def _common_run(a: list[str], b: list[str], i: int, j: int) -> int:
    """How many items ``a[i:]`` and ``b[j:]`` share at their start; compares growing slices in C so a
    long unchanged stretch of a big file costs little."""
    n = min(len(a) - i, len(b) - j)
    same = 0
    step = 1
    while same < n:
        k = min(step, n - same)
        if a[i + same : i + same + k] == b[j + same : j + same + k]:
            same += k
            step *= 2
        elif k == 1:
            break
        else:
            step = k // 2
    return same


def _line_parts(old: list[str], new: list[str]) -> list[tuple[str, list[str]]]:
    """Runs of equal / removed / added lines, by Myers' algorithm with jsdiff's tie-breaking, so
    the hunks are the ones pi shows."""
    old_len, new_len = len(old), len(new)

    def extract(path: _Path, diagonal: int) -> int:
        old_pos = path.old_pos
        new_pos = old_pos - diagonal
        common = _common_run(old, new, old_pos + 1, new_pos + 1)
        if common:
            path.last = _Component(common, False, False, path.last)
        path.old_pos = old_pos + common
        return new_pos + common

    def extend(path: _Path, added: bool, removed: bool, old_inc: int) -> _Path:
        last = path.last
        if last is not None and last.added == added and last.removed == removed:
            return _Path(path.old_pos + old_inc, _Component(last.count + 1, added, removed, last.previous))
        return _Path(path.old_pos + old_inc, _Component(1, added, removed, last))

    best: dict[int, _Path | None] = {0: _Path(-1, None)}
    start = best[0]
    assert start is not None
    first_new_pos = extract(start, 0)
    if start.old_pos + 1 >= old_len and first_new_pos + 1 >= new_len:
        return _build(start.last, old, new)
    lowest, highest = -(old_len + new_len + 1), old_len + new_len + 1
    edit_length = 1
    while True:
        for diagonal in range(max(lowest, -edit_length), min(highest, edit_length) + 1, 2):
            remove_path = best.get(diagonal - 1)
            add_path = best.get(diagonal + 1)
            if remove_path is not None:
                best[diagonal - 1] = None
            can_add = add_path is not None and 0 <= add_path.old_pos - diagonal < new_len
            can_remove = remove_path is not None and remove_path.old_pos + 1 < old_len
            if not can_add and not can_remove:
                best[diagonal] = None
                continue
            if not can_remove or (
                can_add
                and remove_path is not None
                and add_path is not None
                and remove_path.old_pos < add_path.old_pos
            ):
                assert add_path is not None
                path = extend(add_path, True, False, 0)
            else:
                assert remove_path is not None
                path = extend(remove_path, False, True, 1)
            new_pos = extract(path, diagonal)
            if path.old_pos + 1 >= old_len and new_pos + 1 >= new_len:
                return _build(path.last, old, new)
            best[diagonal] = path
            if path.old_pos + 1 >= old_len:
                highest = min(highest, diagonal - 1)
            if new_pos + 1 >= new_len:
                lowest = max(lowest, diagonal + 1)
        edit_length += 1


def _build(last: _Component | None, old: list[str], new: list[str]) -> list[tuple[str, list[str]]]:
    components: list[_Component] = []
    while last is not None:
        components.append(last)
        last = last.previous
    components.reverse()
    parts: list[tuple[str, list[str]]] = []
    old_pos = new_pos = 0
    for component in components:
        if component.removed:
            parts.append(("-", old[old_pos : old_pos + component.count]))
            old_pos += component.count
        elif component.added:
            parts.append(("+", new[new_pos : new_pos + component.count]))
            new_pos += component.count
        else:
            parts.append(("=", new[new_pos : new_pos + component.count]))
            new_pos += component.count
            old_pos += component.count
    return parts
