"""The 20 KB limit of MCP results against what pi 1.6.0 makes of the same content
(tests/fixtures/mcp/output_limit.json, see the README there), the saved file, and memory."""

from __future__ import annotations

import asyncio
import json
import stat
import tracemalloc
from pathlib import Path

import pytest
from pi_core.ai.messages import ImageContent, TextContent
from pi_mcp.output import MAX_BYTES, limit_content

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mcp" / "output_limit.json"
CASES = {
    "ascii": [TextContent(text="a" * 15000 + "b" * 15000)],
    "blocks": [
        TextContent(text="é" * 7000 + "\n"),
        ImageContent(data="AAAA", mime_type="image/png"),
        TextContent(text="日本" * 5000 + "x\n"),
    ],
    "emoji": [TextContent(text="😀" * 3000 + "z" + "😀" * 3000)],
}


@pytest.fixture(autouse=True)
def _own_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    return tmp_path


def _blocks(content: list[TextContent | ImageContent]) -> list[dict[str, str]]:
    return [
        {"type": "text", "text": b.text}
        if isinstance(b, TextContent)
        else {"type": "image", "data": b.data, "mimeType": b.mime_type}
        for b in content
    ]


@pytest.mark.parametrize("case", sorted(CASES))
def test_limit_content_matches_pi16(case: str, tmp_path: Path) -> None:
    content = CASES[case]
    limited = asyncio.run(limit_content(list(content)))
    assert limited.full_output_path is not None
    saved = Path(limited.full_output_path)
    assert saved.parent == tmp_path and saved.name.startswith("pi-mcp-") and saved.suffix == ".txt"
    expected = json.loads(FIXTURE.read_text())[case]
    got = _blocks(limited.content)
    got[0]["text"] = got[0]["text"].replace(str(saved), "/FULL")
    assert got == expected
    texts = [b.text for b in content if isinstance(b, TextContent)]
    assert saved.read_text(encoding="utf-8") == "\n".join(texts)
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


def test_text_within_the_limit_is_left_alone(tmp_path: Path) -> None:
    content: list[TextContent | ImageContent] = [
        TextContent(text="x" * (MAX_BYTES - 2)),
        TextContent(text="y"),
    ]
    limited = asyncio.run(limit_content(content))
    assert limited.content == content and limited.full_output_path is None
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_cannot_be_written_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pi_mcp.output

    monkeypatch.setattr(pi_mcp.output, "new_output_path", lambda ext: tmp_path / "missing" / f"x{ext}")
    limited = asyncio.run(limit_content([TextContent(text="z" * 30000)]))
    assert limited.full_output_path is None
    text = limited.content[0]
    assert isinstance(text, TextContent)
    assert "…9520 chars truncated…" in text.text
    assert text.text.endswith("]") and "[Could not save the full output: " in text.text


def test_twenty_megabytes_are_cut_without_copies_of_the_text(tmp_path: Path) -> None:
    big = "line of output\n" * (20 * 1024 * 1024 // 15)
    tracemalloc.start()
    try:
        limited = asyncio.run(limit_content([TextContent(text=big)]))
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # One copy of the text would be 20 MB; writing goes in 1 MB slices.
    assert peak < 4 * 1024 * 1024, peak
    assert limited.full_output_path is not None
    assert Path(limited.full_output_path).stat().st_size == len(big)
    text = limited.content[0]
    assert isinstance(text, TextContent)
    assert len(text.text.encode()) < MAX_BYTES + 500
    assert f"Total output lines: {big.count(chr(10))}\n" in text.text
