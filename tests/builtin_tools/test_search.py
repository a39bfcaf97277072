from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pi_core.agent.tools import AgentToolResult, ToolError

RunTool = Any


def text_of(result: AgentToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


@pytest.fixture(params=["rg", "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every search test runs with ripgrep and with the pure-Python fallback."""
    if request.param == "python":
        monkeypatch.setenv("PI_BUILTIN_TOOLS_NO_RG", "1")
    else:
        from pi_builtin_tools.binaries import find_rg

        if find_rg() is None:
            pytest.skip("ripgrep not installed")
    return str(request.param)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "main.py").write_text("import os\nprint('hello')\n# TODO: later\n")
    (tmp_path / "src" / "pkg" / "util.py").write_text("def helper():\n    return 'HELLO'\n")
    (tmp_path / "src" / "pkg" / "notes.md").write_text("hello notes\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("print('hello')\n")
    (tmp_path / "debug.log").write_text("hello log\n")
    (tmp_path / ".hidden.py").write_text("hello = 1\n")
    return tmp_path


async def test_grep_respects_gitignore_and_includes_hidden(run: RunTool, tree: Path, backend: str) -> None:
    text = text_of(await run("grep", {"pattern": "hello"}))
    assert sorted(text.split("\n")) == [
        ".hidden.py:1: hello = 1",
        "src/main.py:2: print('hello')",
        "src/pkg/notes.md:1: hello notes",
    ]


async def test_grep_options(run: RunTool, tree: Path, backend: str) -> None:
    text = text_of(await run("grep", {"pattern": "hello", "ignoreCase": True, "glob": "*.py", "path": "src"}))
    assert sorted(text.split("\n")) == ["main.py:2: print('hello')", "pkg/util.py:2:     return 'HELLO'"]
    literal = text_of(
        await run("grep", {"pattern": "print('hello')", "literal": True, "path": "src/main.py"})
    )
    assert literal == "main.py:2: print('hello')"


async def test_grep_context_lines(run: RunTool, tree: Path, backend: str) -> None:
    text = text_of(await run("grep", {"pattern": "print", "path": "src/main.py", "context": 1}))
    assert text == "main.py-1- import os\nmain.py:2: print('hello')\nmain.py-3- # TODO: later"


async def test_grep_match_limit_notice(run: RunTool, tmp_path: Path, backend: str) -> None:
    (tmp_path / "a.txt").write_text("\n".join(f"line {i}" for i in range(1, 3001)))
    result = await run("grep", {"pattern": "line 29[0-9][0-9]", "path": "a.txt", "limit": 3})
    assert text_of(result) == (
        "a.txt:2900: line 2900\na.txt:2901: line 2901\na.txt:2902: line 2902\n\n"
        "[3 matches limit reached. Use limit=6 for more, or refine pattern]"
    )
    assert result.details == {"matchLimitReached": 3}


async def test_grep_long_lines_are_cut(run: RunTool, tmp_path: Path, backend: str) -> None:
    (tmp_path / "wide.txt").write_text("needle" + "x" * 600 + "\n")
    result = await run("grep", {"pattern": "needle"})
    assert text_of(result) == (
        "wide.txt:1: needle" + "x" * 494 + "... [truncated]\n\n"
        "[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert result.details == {"linesTruncated": True}


async def test_grep_errors(run: RunTool, tree: Path, backend: str) -> None:
    assert text_of(await run("grep", {"pattern": "absent-text"})) == "No matches found"
    with pytest.raises(ToolError, match="regex parse error"):
        await run("grep", {"pattern": "(unclosed"})
    with pytest.raises(ToolError, match=r"^Path not found: .*missing$"):
        await run("grep", {"pattern": "x", "path": "missing"})


async def test_find_basename_and_path_globs(run: RunTool, tree: Path, backend: str) -> None:
    text = text_of(await run("find", {"pattern": "*.py"}))
    assert sorted(text.split("\n")) == [".hidden.py", "src/main.py", "src/pkg/util.py"]
    text = text_of(await run("find", {"pattern": "src/**/*.py"}))
    assert sorted(text.split("\n")) == ["src/main.py", "src/pkg/util.py"]
    assert text_of(await run("find", {"pattern": "pkg"})) == "src/pkg/"
    assert text_of(await run("find", {"pattern": "*.{md,log}"})) == "src/pkg/notes.md"


async def test_find_applies_gitignore_outside_git(run: RunTool, tmp_path: Path, backend: str) -> None:
    (tmp_path / ".gitignore").write_text("skip.txt\n")
    (tmp_path / "skip.txt").write_text("")
    (tmp_path / "keep.txt").write_text("")
    assert text_of(await run("find", {"pattern": "*.txt"})) == "keep.txt"


async def test_find_limit_and_empty(run: RunTool, tmp_path: Path, backend: str) -> None:
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text("")
    result = await run("find", {"pattern": "*.txt", "limit": 2})
    lines = text_of(result).split("\n")
    assert (
        len(lines) == 4 and lines[-1] == "[2 results limit reached. Use limit=4 for more, or refine pattern]"
    )
    assert result.details == {"resultLimitReached": 2}
    assert text_of(await run("find", {"pattern": "*.rs"})) == "No files found matching pattern"
    with pytest.raises(ToolError, match=r"^Path not found: "):
        await run("find", {"pattern": "*", "path": "nowhere"})


async def test_ls(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "Beta").write_text("")
    (tmp_path / "alpha").mkdir()
    os.symlink(tmp_path / "gone", tmp_path / "broken")
    assert text_of(await run("ls", {})) == ".gitignore\n.hidden/\nalpha/\nBeta"
    result = await run("ls", {"path": ".", "limit": 2})
    assert text_of(result) == ".gitignore\n.hidden/\n\n[2 entries limit reached. Use limit=4 for more]"
    assert result.details == {"entryLimitReached": 2}


async def test_ls_limit_counts_only_entries_it_can_stat(run: RunTool, tmp_path: Path) -> None:
    """The listing keeps only the first names in sort order; broken links among them (skipped,
    as in pi) make it look further, so the limit is still reached exactly as with a full sort."""
    for index in range(5):
        os.symlink(tmp_path / "gone", tmp_path / f"a-broken-{index}")
    for name in ("b", "C", "d", "e"):
        (tmp_path / name).write_text("")
    result = await run("ls", {"limit": 3})
    assert text_of(result) == "b\nC\nd\n\n[3 entries limit reached. Use limit=6 for more]"
    assert text_of(await run("ls", {"limit": 4})) == "b\nC\nd\ne"
    assert text_of(await run("ls", {"limit": -1})) == "(empty directory)"


async def test_ls_errors(run: RunTool, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("")
    assert text_of(await run("ls", {"path": "empty"})) == "(empty directory)"
    with pytest.raises(ToolError, match=r"^Not a directory: .*file$"):
        await run("ls", {"path": "file"})
    with pytest.raises(ToolError, match=r"^Path not found: .*nope$"):
        await run("ls", {"path": "nope"})


async def test_find_lists_directories_too(run: RunTool, tree: Path, backend: str) -> None:
    text = text_of(await run("find", {"pattern": "*", "path": "src"}))
    assert sorted(text.split("\n")) == ["main.py", "pkg/", "pkg/notes.md", "pkg/util.py"]
    lines = text.split("\n")
    assert lines.index("pkg/") < lines.index("pkg/util.py")


async def test_stopping_at_the_limit_with_lots_of_output_pending(
    run: RunTool, tmp_path: Path, backend: str
) -> None:
    # Regression: killing rg with unread output in the pipe must not leave the tool waiting forever.
    import asyncio

    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    for i in range(1000):
        (deep / f"file_{i:05d}_{'x' * 120}.txt").write_text("")
    (tmp_path / "many.txt").write_text("match\n" * 30000)
    found = await asyncio.wait_for(run("find", {"pattern": "*.txt", "limit": 5}), 20)
    assert found.details == {"resultLimitReached": 5}
    matched = await asyncio.wait_for(run("grep", {"pattern": "match", "limit": 2}), 20)
    assert matched.details == {"matchLimitReached": 2}


def test_find_listing_keeps_no_paths_and_orders_a_late_directory_match() -> None:
    """rg's listing fed chunk by chunk: files matched in bulk until a directory matches, then in
    order with their directories; the listing itself is not kept."""
    from pi_builtin_tools.find import _Listing, _matcher

    listing = _Listing("/r", _matcher("*log*"), limit=10)
    assert not listing.feed([b"/r/a/one.log", b"/r/a/two.txt"])
    assert not listing.feed([b"/r/b/logs/three.txt", b"/r/b/logs/four.log", b"/r/c/five.log"])
    assert listing.results() == ["a/one.log", "b/logs/", "b/logs/four.log", "c/five.log"]
    assert listing.count == 5 and not hasattr(listing, "files")
    small = _Listing("/r", _matcher("*log*"), limit=2)
    assert not small.feed([b"/r/a/one.log"])
    assert small.feed([b"/r/logs/x", b"/r/logs/y"])  # full: rg may be stopped
    assert small.results() == ["a/one.log", "logs/"]
