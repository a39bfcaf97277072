from __future__ import annotations

import base64
import io
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pi_core.agent.tools import AgentToolResult, ToolError
from pi_core.ai.abort import AbortController

RunTool = Any


def text_of(result: AgentToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


@pytest.fixture
def big(tmp_path: Path) -> Path:
    path = tmp_path / "big.txt"
    path.write_text("\n".join(f"line {i}" for i in range(1, 3001)))
    return path


async def test_reads_text_verbatim(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\n")
    result = await run("read", {"path": "a.txt"})
    assert text_of(result) == "one\r\ntwo\n" and result.details is None


async def test_line_limit_notice(run: RunTool, big: Path) -> None:
    result = await run("read", {"path": "@big.txt"})
    text = text_of(result)
    assert text.endswith("line 2000\n\n[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]")
    assert result.details["truncation"]["truncatedBy"] == "lines"


async def test_offset_and_limit(run: RunTool, big: Path) -> None:
    result = await run("read", {"path": "big.txt", "offset": 10, "limit": 5})
    assert text_of(result) == (
        "line 10\nline 11\nline 12\nline 13\nline 14\n\n[2986 more lines in file. Use offset=15 to continue.]"
    )


async def test_offset_beyond_end(run: RunTool, big: Path) -> None:
    with pytest.raises(ToolError, match=r"^Offset 5000 is beyond end of file \(3000 lines total\)$"):
        await run("read", {"path": "big.txt", "offset": 5000})


async def test_byte_limit_notice(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("\n".join("x" * 199 for _ in range(400)))
    text = text_of(await run("read", {"path": "wide.txt"}))
    assert text.endswith("\n\n[Showing lines 1-256 of 400 (50.0KB limit). Use offset=257 to continue.]")


async def test_first_line_too_long(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("z" * 60000 + "\nrest")
    result = await run("read", {"path": "one.txt"})
    assert text_of(result) == (
        "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' one.txt | head -c 51200]"
    )
    assert result.details["truncation"]["firstLineExceedsLimit"] is True


async def test_empty_file(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    assert text_of(await run("read", {"path": "empty"})) == ""


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 10, 10)).save(buffer, format="PNG")
    return buffer.getvalue()


async def test_image_returned_as_image_block(run: RunTool, tmp_path: Path) -> None:
    data = _png(4, 3)
    (tmp_path / "pic.dat").write_bytes(data)  # sniffed by content, not extension
    result = await run("read", {"path": "pic.dat"})
    assert result.content[0].type == "text" and result.content[0].text == "Read image file [image/png]"
    image = result.content[1]
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == data


async def test_large_image_is_resized_with_note(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "wide.png").write_bytes(_png(3000, 1000))
    result = await run("read", {"path": "wide.png"})
    assert text_of(result) == (
        "Read image file [image/png]\n[Image: original 3000x1000, displayed at 2000x667. "
        "Multiply coordinates by 1.50 to map to original image.]"
    )


async def test_non_vision_model_note(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "p.png").write_bytes(_png(2, 2))
    ctx = SimpleNamespace(cwd=str(tmp_path), model=SimpleNamespace(input=["text"]))
    result = await run("read", {"path": "p.png"}, context=ctx)
    assert text_of(result).endswith(
        "\n[Current model does not support images. The image will be omitted from this request.]"
    )


async def test_binary_file_is_refused_clearly(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02")
    with pytest.raises(ToolError, match="binary file"):
        await run("read", {"path": "blob.bin"})


async def test_non_utf8_text_is_decoded_with_replacement(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes("café".encode("latin-1"))
    assert text_of(await run("read", {"path": "latin1.txt"})) == "caf\ufffd"


async def test_missing_file(run: RunTool, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^ENOENT: no such file or directory, access '.*nope\.txt'$"):
        await run("read", {"path": "nope.txt"})


async def test_directory(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match=r"^EISDIR: illegal operation on a directory, read$"):
        await run("read", {"path": "d"})


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read anything")
async def test_permission_denied(run: RunTool, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("x")
    secret.chmod(0)
    with pytest.raises(ToolError, match="EACCES: permission denied"):
        await run("read", {"path": "secret"})


async def test_already_aborted(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "a").write_text("x")
    controller = AbortController()
    controller.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await run("read", {"path": "a"}, signal=controller.signal)


@pytest.mark.parametrize(
    ("offset", "limit"),
    [(None, None), (1, 1), (2, None), (3, 2), (5, 0), (None, 3), (40, 7), (1000, None), (4999, 5)],
)
def test_streamed_selection_does_not_depend_on_chunking(offset: int | None, limit: int | None) -> None:
    from pi_builtin_tools.read import ReadParams, _text_output

    lines = ["x" * (i % 97) + ("é" if i % 13 == 0 else "") for i in range(5000)]
    data = "\n".join(lines).encode() + b"\n\xff\n"
    params = ReadParams(path="f", offset=offset, limit=limit)
    whole = _text_output(params, [data])
    for size in (7, 64, 4096, 65537):
        chunks = [data[i : i + size] for i in range(0, len(data), size)]
        assert _text_output(params, chunks) == whole, size
    if offset and offset > 1 and limit != 0:  # and the selection is what the lines say
        first = whole[0].split("\n", 1)[0]
        assert first == lines[offset - 1]
