from __future__ import annotations

from pi_core.agent.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)


def test_constants_are_pis() -> None:
    assert (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH) == (2000, 51200, 500)


def test_format_size() -> None:
    assert format_size(1023) == "1023B"
    assert format_size(51200) == "50.0KB"
    assert format_size(1536) == "1.5KB"
    assert format_size(3 * 1024 * 1024 + 1) == "3.0MB"


def test_head_untouched_when_under_limits() -> None:
    result = truncate_head("a\nb\n")
    assert not result.truncated and result.content == "a\nb\n" and result.total_lines == 3


def test_head_by_lines() -> None:
    text = "\n".join(str(i) for i in range(3000))
    result = truncate_head(text)
    assert result.truncated_by == "lines" and result.output_lines == 2000
    assert result.content.split("\n")[-1] == "1999"


def test_head_by_bytes_keeps_whole_lines() -> None:
    text = "\n".join("x" * 99 for _ in range(1000))  # 100 bytes per line with its newline
    result = truncate_head(text)
    assert result.truncated_by == "bytes"
    assert result.output_lines == 512 and result.output_bytes == 512 * 100 - 1


def test_head_first_line_too_long() -> None:
    result = truncate_head("y" * 60000 + "\nshort")
    assert result.first_line_exceeds_limit and result.content == "" and result.output_lines == 0


def test_tail_by_lines_and_partial_last_line() -> None:
    text = "\n".join(str(i) for i in range(1, 3002))
    result = truncate_tail(text)
    assert result.output_lines == 2000 and result.content.startswith("1002\n")
    partial = truncate_tail("é" * 40000)
    assert partial.last_line_partial and partial.output_bytes <= DEFAULT_MAX_BYTES
    assert partial.content == "é" * (DEFAULT_MAX_BYTES // 2)


def test_details_record_is_camel_case() -> None:
    record = truncate_head("a\n" * 3000).to_details()
    assert set(record) == {
        "content",
        "truncated",
        "truncatedBy",
        "totalLines",
        "totalBytes",
        "outputLines",
        "outputBytes",
        "lastLinePartial",
        "firstLineExceedsLimit",
        "maxLines",
        "maxBytes",
    }


def test_truncate_line() -> None:
    assert truncate_line("x" * 500).was_truncated is False
    cut = truncate_line("x" * 501)
    assert cut.was_truncated and cut.text == "x" * 500 + "... [truncated]"
