from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from pi_builtin_tools.edit_diff import generate_diff
from pi_core.agent.tools import AgentToolResult, ToolError
from pydantic import ValidationError

RunTool = Any


def text_of(result: AgentToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def edit(old: str, new: str) -> dict[str, str]:
    return {"oldText": old, "newText": new}


async def test_single_edit_with_diff(run: RunTool, tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text('alpha\nbeta\ngamma "quoted"\nbeta\n')
    result = await run(
        "edit", {"path": "a.txt", "edits": [edit("alpha", "ALPHA"), edit('gamma "quoted"', "G")]}
    )
    assert text_of(result) == "Successfully replaced 2 block(s) in a.txt."
    assert f.read_text() == "ALPHA\nbeta\nG\nbeta\n"
    assert result.details == {
        "diff": '-1 alpha\n+1 ALPHA\n 2 beta\n-3 gamma "quoted"\n+3 G\n 4 beta',
        "firstChangedLine": 1,
    }


async def test_not_found_and_duplicate_messages(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\nx\ny\n")
    with pytest.raises(ToolError) as info:
        await run("edit", {"path": "a.txt", "edits": [edit("zzz", "q")]})
    assert str(info.value) == (
        "Could not find the exact text in a.txt. The old text must match exactly including all whitespace "
        "and newlines."
    )
    with pytest.raises(ToolError) as info:
        await run("edit", {"path": "a.txt", "edits": [edit("x", "q")]})
    assert str(info.value) == (
        "Found 2 occurrences of the text in a.txt. The text must be unique. Please provide more context to "
        "make it unique."
    )
    with pytest.raises(ToolError, match=r"^Found 2 occurrences of edits\[1\] in a.txt\. Each oldText"):
        await run("edit", {"path": "a.txt", "edits": [edit("y", "q"), edit("x", "q")]})
    with pytest.raises(ToolError, match=r"^Could not find edits\[0\] in a.txt\. The oldText must match"):
        await run("edit", {"path": "a.txt", "edits": [edit("nope", "q"), edit("y", "q")]})


async def test_overlap_empty_and_no_change(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello world\n")
    with pytest.raises(ToolError, match=r"^edits\[0\] and edits\[1\] overlap in a.txt\. Combine them"):
        await run("edit", {"path": "a.txt", "edits": [edit("hello w", "H"), edit("world", "W")]})
    with pytest.raises(ToolError, match=r"^oldText must not be empty in a.txt\.$"):
        await run("edit", {"path": "a.txt", "edits": [edit("", "x")]})
    with pytest.raises(ToolError, match=r"^No changes made to a.txt\. The replacement produced identical"):
        await run("edit", {"path": "a.txt", "edits": [edit("hello", "hello")]})
    with pytest.raises(ToolError, match="edits must contain at least one replacement"):
        await run("edit", {"path": "a.txt", "edits": []})


async def test_fuzzy_match_normalises_whole_file(run: RunTool, tmp_path: Path) -> None:
    f = tmp_path / "q.py"
    f.write_text("say(\u201chi\u201d)   \nkeep \u2014 dash\n")
    await run("edit", {"path": "q.py", "edits": [edit('say("hi")', 'say("bye")')]})
    assert f.read_text() == 'say("bye")\nkeep - dash\n'


async def test_crlf_and_bom_are_preserved(run: RunTool, tmp_path: Path) -> None:
    f = tmp_path / "w.txt"
    f.write_bytes("\ufeffone\r\ntwo\r\n".encode())
    await run("edit", {"path": "w.txt", "edits": [edit("two\n", "TWO\n")]})
    assert f.read_bytes() == "\ufeffone\r\nTWO\r\n".encode()


async def test_legacy_shape_and_string_edits(run: RunTool, tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("a b c")
    await run("edit", {"path": "a.txt", "oldText": "a", "newText": "A"})
    await run("edit", {"path": "a.txt", "edits": '[{"oldText": "b", "newText": "B"}]'})
    assert f.read_text() == "A B c"


async def test_schema_rejects_unknown_fields(run: RunTool, tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        await run("edit", {"path": "a.txt", "edits": [{"oldText": "a", "newText": "b", "extra": 1}]})


async def test_missing_and_non_utf8_files(run: RunTool, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^Could not edit file: nofile.txt\. Error code: ENOENT\.$"):
        await run("edit", {"path": "nofile.txt", "edits": [edit("a", "b")]})
    (tmp_path / "l1.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(ToolError, match="not valid UTF-8"):
        await run("edit", {"path": "l1.txt", "edits": [edit("caf", "CAF")]})
    assert (tmp_path / "l1.txt").read_bytes() == "café".encode("latin-1")


async def test_concurrent_edits_of_one_file_are_serialised(run: RunTool, tmp_path: Path) -> None:
    f = tmp_path / "c.txt"
    f.write_text("".join(f"line{i}\n" for i in range(50)))
    await asyncio.gather(
        *(run("edit", {"path": "c.txt", "edits": [edit(f"line{i}\n", f"LINE{i}\n")]}) for i in range(50))
    )
    assert f.read_text() == "".join(f"LINE{i}\n" for i in range(50))


def test_diff_collapses_long_unchanged_stretches() -> None:
    old = "\n".join(f"l{i}" for i in range(1, 21))
    new = old.replace("l2\n", "L2\n").replace("l19", "L19")
    diff, first = generate_diff(old, new)
    assert first == 2
    assert diff.split("\n") == [
        "  1 l1",
        "- 2 l2",
        "+ 2 L2",
        "  3 l3",
        "  4 l4",
        "  5 l5",
        "  6 l6",
        "    ...",
        " 15 l15",
        " 16 l16",
        " 17 l17",
        " 18 l18",
        "-19 l19",
        "+19 L19",
        " 20 l20",
    ]


async def test_write_creates_parents_and_counts_utf16_units(run: RunTool, tmp_path: Path) -> None:
    result = await run("write", {"path": "deep/er/h.txt", "content": "héllo😀"})
    assert text_of(result) == "Successfully wrote 7 bytes to deep/er/h.txt"
    assert (tmp_path / "deep/er/h.txt").read_text() == "héllo😀"
    await run("write", {"path": "deep/er/h.txt", "content": "new\r\n"})
    assert (tmp_path / "deep/er/h.txt").read_bytes() == b"new\r\n"


async def test_write_to_a_directory_fails_clearly(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match=r"^EISDIR"):
        await run("write", {"path": "d", "content": "x"})


def _reference_diff(old: str, new: str) -> str:
    """The diff computed on whole line lists (no head/tail shortcuts), rendered the same way."""
    from pi_builtin_tools import edit_diff

    runs = [
        edit_diff._Run(
            kind, len(lines), [edit_diff._display(x) for x in lines], [edit_diff._display(x) for x in lines]
        )
        for kind, lines in edit_diff._line_parts(edit_diff._tokens(old), edit_diff._tokens(new))
    ]
    original = edit_diff._runs
    edit_diff._runs = lambda *_: runs  # type: ignore[assignment]
    try:
        return edit_diff.generate_diff(old, new)[0]
    finally:
        edit_diff._runs = original


def test_diff_shortcuts_match_the_whole_file_diff() -> None:
    import random

    rng = random.Random(3)
    for _ in range(300):
        lines = [rng.choice(["a", "b", "", "c", "d"]) for _ in range(rng.randint(0, 40))]
        old = "\n".join(lines) + rng.choice(["", "\n"])
        new_lines = list(lines)
        for _ in range(rng.randint(1, 3)):
            position = rng.randint(0, len(new_lines))
            action = rng.random()
            if action < 0.4 and new_lines:
                del new_lines[min(position, len(new_lines) - 1)]
            elif action < 0.8:
                new_lines.insert(position, rng.choice(["a", "x", ""]))
            elif new_lines:
                new_lines[min(position, len(new_lines) - 1)] = "changed"
        new = "\n".join(new_lines) + rng.choice(["", "\n"])
        if old == new:
            continue
        assert generate_diff(old, new)[0] == _reference_diff(old, new), (old, new)


HAS_DEV_ZERO = os.path.exists("/dev/zero")
FIFO = r"a named pipe \(FIFO\), not a file"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
async def test_pipes_and_devices_are_refused_not_waited_on(run: RunTool, tmp_path: Path) -> None:
    """Opening a named pipe waits for a writer and /dev/zero never ends: read, edit and write say
    what the path is at once (these used to hang, and edit of /dev/zero filled memory)."""
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ToolError, match=rf"^Cannot read pipe: it is {FIFO}\. Use bash"):
        await run("read", {"path": "pipe"})
    with pytest.raises(ToolError, match=rf"^Could not edit file: pipe\. It is {FIFO}"):
        await run("edit", {"path": "pipe", "edits": [edit("a", "b")]})
    with pytest.raises(ToolError, match=rf"^Cannot write .*pipe: it is {FIFO}"):
        await run("write", {"path": "pipe", "content": "x"})
    if HAS_DEV_ZERO:
        with pytest.raises(ToolError, match=r"^Could not edit file: /dev/zero\. It is a character device"):
            await run("edit", {"path": "/dev/zero", "edits": [edit("a", "b")]})
        with pytest.raises(ToolError, match=r"^Cannot read /dev/zero: it is a character device"):
            await run("read", {"path": "/dev/zero"})
