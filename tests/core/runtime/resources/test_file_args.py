from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from _pi_resources_testkit import write
from pi_core.ai.images import sniff_image_mime as sniff_image_mime_type
from pi_core.ai.messages import ImageContent
from pi_core.runtime.resources import FileArgumentError, ResizedImage, process_file_arguments
from pi_core.runtime.resources.file_args import resolve_read_path

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
CAPTURED = json.loads((Path(__file__).parent / "golden/user_messages.json").read_text())


async def test_text_file_matches_pi_capture(tmp_path: Path) -> None:
    write(tmp_path / "proj/f.txt", "file text\nline2")
    result = await process_file_arguments(["f.txt"], str(tmp_path / "proj"))
    # pi's initial message is the file text immediately followed by the first message.
    assert (result.text + "Summarize").replace(str(tmp_path), "<ROOT>") == CAPTURED["atfile"]
    assert result.images == []


async def test_several_files_in_order_and_empty_skipped(tmp_path: Path) -> None:
    write(tmp_path / "a.md", "A")
    write(tmp_path / "empty.txt", "")
    write(tmp_path / "b.md", "B\n")
    result = await process_file_arguments(["@a.md", "empty.txt", str(tmp_path / "b.md")], str(tmp_path))
    assert (
        result.text
        == f'<file name="{tmp_path}/a.md">\nA\n</file>\n<file name="{tmp_path}/b.md">\nB\n\n</file>\n'
    )


async def test_missing_file_is_an_error_with_absolute_path(tmp_path: Path) -> None:
    with pytest.raises(FileArgumentError, match=rf"^File not found: {tmp_path}/nope\.txt$"):
        await process_file_arguments(["nope.txt"], str(tmp_path))


async def test_directory_is_a_read_error(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    write(tmp_path / "d/x", "x")
    with pytest.raises(FileArgumentError, match=r"^Could not read file .*/d: "):
        await process_file_arguments(["d"], str(tmp_path))


async def test_image_attached_without_resizer(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    result = await process_file_arguments(["shot.png"], str(tmp_path))
    assert result.text == f'<file name="{tmp_path}/shot.png"></file>\n'
    assert result.images == [ImageContent(data=base64.b64encode(PNG).decode(), mime_type="image/png")]


async def test_image_resized_with_dimension_note(tmp_path: Path) -> None:
    (tmp_path / "big.png").write_bytes(PNG)
    seen: list[ImageContent] = []

    async def resize(image: ImageContent) -> ResizedImage:
        seen.append(image)
        return ResizedImage("c21hbGw=", "image/jpeg", 1000, 500, 3000, 1500, was_resized=True)

    result = await process_file_arguments(["big.png"], str(tmp_path), resize_image=resize)
    assert seen[0].mime_type == "image/png"
    assert result.images == [ImageContent(data="c21hbGw=", mime_type="image/jpeg")]
    assert result.text == (
        f'<file name="{tmp_path}/big.png">[Image: original 3000x1500, displayed at 1000x500. '
        "Multiply coordinates by 3.00 to map to original image.]</file>\n"
    )
    unresized = await process_file_arguments(
        ["big.png"], str(tmp_path), resize_image=resize, auto_resize_images=False
    )
    assert unresized.images[0].mime_type == "image/png"


async def test_image_that_cannot_be_resized_is_omitted(tmp_path: Path) -> None:
    (tmp_path / "huge.png").write_bytes(PNG)

    async def fail(image: ImageContent) -> None:
        return None

    result = await process_file_arguments(["huge.png"], str(tmp_path), resize_image=fail)
    assert result.images == []
    assert result.text == (
        f'<file name="{tmp_path}/huge.png">[Image omitted: even resized, it stays above the inline image '
        "size limit.]</file>\n"
    )


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (PNG, "image/png"),
        (b"\xff\xd8\xff\xe0rest", "image/jpeg"),
        (b"GIF89a...", "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"%PDF-1.7", None),
        (b"plain text", None),
    ],
)
def test_sniff_image_mime_type(head: bytes, mime: str | None) -> None:
    assert sniff_image_mime_type(head) == mime


def test_resolve_read_path_variants(tmp_path: Path, home: Path) -> None:
    screenshot = write(tmp_path / "Screenshot 2024 at 10.00.00\u202fAM.png", "x")
    assert resolve_read_path("Screenshot 2024 at 10.00.00 AM.png", str(tmp_path)) == str(screenshot)
    curly = write(tmp_path / "Capture d\u2019écran.png", "x")
    assert resolve_read_path("Capture d'écran.png", str(tmp_path)) == str(curly)
    assert resolve_read_path("~/x", str(tmp_path)) == str(home / "x")
    assert resolve_read_path("@a\u00a0b", str(tmp_path)) == str(tmp_path / "a b")
