"""The edit tool's matching rules and its numbered diff, as pi applies them.

Matching is exact first; when an ``oldText`` is not found verbatim it is looked up in a normalised
space (NFKC, trailing whitespace stripped, typographic quotes/dashes/spaces made ASCII), and then the
whole file is edited in that space. Uniqueness is always counted in the normalised space.
"""

from __future__ import annotations

import difflib
import itertools
import re
import unicodedata
from dataclasses import dataclass

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


def apply_edits(content: str, edits: list[Edit], path: str) -> tuple[str, str]:
    """(base_content, new_content) for LF-normalised ``content``; raises pi's error texts."""
    count = len(edits)
    normalized = [Edit(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]
    for i, edit in enumerate(normalized):
        if not edit.old_text:
            raise ToolError(
                f"oldText must not be empty in {path}."
                if count == 1
                else f"edits[{i}].oldText must not be empty in {path}."
            )
    fuzzy_content = normalize_for_fuzzy_match(content)
    used_fuzzy = any(
        content.find(e.old_text) == -1 and fuzzy_content.find(normalize_for_fuzzy_match(e.old_text)) != -1
        for e in normalized
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
            raise ToolError(
                f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
                "Please provide more context to make it unique."
                if count == 1
                else f"Found {occurrences} occurrences of edits[{i}] in {path}. Each oldText must be unique. "
                "Please provide more context to make it unique."
            )
        matches.append(_Match(i, index, length, edit.new_text))

    matches.sort(key=lambda m: m.index)
    for previous, current in itertools.pairwise(matches):
        if previous.index + previous.length > current.index:
            raise ToolError(
                f"edits[{previous.edit_index}] and edits[{current.edit_index}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
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
    return base, new_content


def generate_diff(old: str, new: str, context_lines: int = 4) -> tuple[str, int | None]:
    """pi's numbered line diff and the first changed line (1-based, in the new file)."""
    old_lines = old.split("\n")
    new_lines = new.split("\n")
    width = len(str(max(len(old_lines), len(new_lines))))
    parts = [
        (kind, [_display(line) for line in lines]) for kind, lines in _line_parts(_tokens(old), _tokens(new))
    ]
    out: list[str] = []
    old_no = new_no = 1
    first_changed: int | None = None
    last_was_change = False
    gap = f" {'':>{width}} ..."
    for i, (kind, lines) in enumerate(parts):
        if kind != "=":
            if first_changed is None:
                first_changed = new_no
            for line in lines:
                if kind == "+":
                    out.append(f"+{new_no:>{width}} {line}")
                    new_no += 1
                else:
                    out.append(f"-{old_no:>{width}} {line}")
                    old_no += 1
            last_was_change = True
            continue
        next_is_change = i < len(parts) - 1 and parts[i + 1][0] != "="
        shown: list[tuple[bool, list[str]]] = []  # (is_gap, lines)
        if last_was_change and next_is_change:
            if len(lines) <= context_lines * 2:
                shown = [(False, lines)]
            else:
                shown = [(False, lines[:context_lines]), (True, lines[context_lines:-context_lines])]
                shown.append((False, lines[-context_lines:]))
        elif last_was_change:
            shown = [(False, lines[:context_lines]), (True, lines[context_lines:])]
        elif next_is_change:
            skipped = max(0, len(lines) - context_lines)
            shown = [(True, lines[:skipped]), (False, lines[skipped:])]
        else:
            shown = [(True, lines)]
        only_skip = not last_was_change and not next_is_change
        for is_gap, chunk in shown:
            if is_gap:
                if chunk and not only_skip:
                    out.append(gap)
                old_no += len(chunk)
                new_no += len(chunk)
            else:
                for line in chunk:
                    out.append(f" {old_no:>{width}} {line}")
                    old_no += 1
                    new_no += 1
        last_was_change = False
    return "\n".join(out), first_changed


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


def _line_parts(old: list[str], new: list[str]) -> list[tuple[str, list[str]]]:
    """Runs of equal / removed / added lines. Common head and tail are peeled off first, so a small
    edit of a huge file only diffs the changed middle."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    parts: list[tuple[str, list[str]]] = []
    if head:
        parts.append(("=", old[:head]))
    old_mid = old[head : len(old) - tail]
    new_mid = new[head : len(new) - tail]
    matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(("=", old_mid[i1:i2]))
            continue
        if i2 > i1:
            parts.append(("-", old_mid[i1:i2]))
        if j2 > j1:
            parts.append(("+", new_mid[j1:j2]))
    if tail:
        parts.append(("=", old[len(old) - tail :]))
    merged: list[tuple[str, list[str]]] = []
    for kind, lines in parts:
        if merged and merged[-1][0] == kind == "=":
            merged[-1] = ("=", merged[-1][1] + lines)
        else:
            merged.append((kind, lines))
    return merged
