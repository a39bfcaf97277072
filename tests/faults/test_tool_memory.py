"""Built-in tools on huge inputs keep their memory bounded (measured in a child process's peak RSS)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.faults

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from types import SimpleNamespace

    def peak_mb():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    from pi_builtin_tools.registry import create_all_tools
    from pi_core.agent.tools import ToolError

    tools = {tool.name: tool for tool in create_all_tools()}
    name, args = sys.argv[2], json.loads(sys.argv[3])
    tool = tools[name]
    before = peak_mb()
    try:
        params = tool.parameters.model_validate(args)
        ctx = SimpleNamespace(cwd=sys.argv[1])
        result = asyncio.run(tool.execute("c1", params, None, None, ctx))
        text = "".join(block.text for block in result.content if block.type == "text")
    except ToolError as error:
        text = "ToolError: " + str(error)
    print(json.dumps({"before": before, "peak": peak_mb(), "text": text[-300:]}))
    """
)


def _run(
    cwd: Path, tool: str, args: dict[str, object], env: dict[str, str] | None = None
) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(cwd), tool, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def child_works() -> None:
    if not Path("/proc/self/status").exists():
        pytest.skip("peak RSS is read from /proc")


def test_read_of_a_1gb_sparse_file_is_refused_without_loading_it(tmp_path: Path, child_works: None) -> None:
    path = tmp_path / "sparse.bin"
    with path.open("wb") as out:
        out.truncate(1 << 30)
    report = _run(tmp_path, "read", {"path": "sparse.bin"})
    assert str(report["text"]).startswith("ToolError: Cannot read sparse.bin: it is a binary file")
    assert float(report["peak"]) - float(report["before"]) < 20  # MB, not the file's 1024


def test_read_of_a_huge_text_file_streams(tmp_path: Path, child_works: None) -> None:
    path = tmp_path / "big.log"
    with path.open("wb") as out:  # text first (the binary check passes), then a 256 MB hole
        out.write(b"hello world\n" * 1000)
        out.truncate(256 << 20)
    report = _run(tmp_path, "read", {"path": "big.log", "offset": 1001})
    assert str(report["text"]).startswith("[Line 1001 is 256.0MB, exceeds 50.0KB limit.")
    assert float(report["peak"]) - float(report["before"]) < 20
    report = _run(tmp_path, "read", {"path": "big.log", "offset": 990})
    assert str(report["text"]).endswith(
        "[Showing lines 990-1000 of 1001 (50.0KB limit). Use offset=1001 to continue.]"
    )
    assert float(report["peak"]) - float(report["before"]) < 20
    report = _run(tmp_path, "read", {"path": "big.log", "limit": 3})
    assert (
        str(report["text"])
        == "hello world\n" * 2 + "hello world\n\n[998 more lines in file. Use offset=4 to continue.]"
    )


@pytest.mark.parametrize("engine", ["ripgrep", "python"])
def test_grep_in_a_64mb_line_keeps_memory_bounded(tmp_path: Path, child_works: None, engine: str) -> None:
    """A minified bundle: one line of 64 MB. ripgrep's JSON event for it is read as a stream,
    the Python search reads it window by window; the context lines come from a streamed read."""
    from pi_builtin_tools.binaries import find_rg

    if engine == "ripgrep" and find_rg() is None:
        pytest.skip("no rg here")
    with (tmp_path / "bundle.min.js").open("wb") as out:
        for _ in range(128):
            out.write(b"var a=1;" * (1 << 16))
        out.write(b"NEEDLE\nnext line\n")
    env = {"PI_BUILTIN_TOOLS_NO_RG": "1"} if engine == "python" else {}
    report = _run(tmp_path, "grep", {"pattern": "NEEDLE", "context": 1}, env)
    text = str(report["text"])
    assert "var a=1;var ... [truncated]\nbundle.min.js-2- next line\n" in text
    assert text.endswith("[Some lines truncated to 500 chars. Use read tool to see full lines]")
    assert float(report["peak"]) - float(report["before"]) < 20  # MB, not the line's 64


@pytest.fixture(scope="module")
def huge_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """100,000 empty files with long names (~12 MB of names as Python strings, twice that sorted)."""
    folder = tmp_path_factory.mktemp("huge") / "many"
    folder.mkdir()
    for index in range(100_000):
        os.close(os.open(folder / f"{STEM}{index:06d}", os.O_CREAT | os.O_WRONLY, 0o644))
    return folder


STEM = "x" * 60


def test_ls_of_a_huge_folder_keeps_only_what_it_shows(huge_folder: Path, child_works: None) -> None:
    """The listing keeps the first 501 names in sort order, not all of them."""
    report = _run(huge_folder, "ls", {})
    assert str(report["text"]).endswith(
        f"{STEM}000499\n\n[500 entries limit reached. Use limit=1000 for more]"
    )
    assert float(report["peak"]) - float(report["before"]) < 10  # MB; a full sort held ~28


@pytest.mark.parametrize("engine", ["ripgrep", "python"])
def test_find_over_a_huge_folder_keeps_only_its_results(
    huge_folder: Path, child_works: None, engine: str
) -> None:
    """A pattern that matches 10 of 100,000 files: the listing is matched as it streams, not kept."""
    from pi_builtin_tools.binaries import find_rg

    if engine == "ripgrep" and find_rg() is None:
        pytest.skip("no rg here")
    env = {"PI_BUILTIN_TOOLS_NO_RG": "1"} if engine == "python" else {}
    report = _run(huge_folder.parent, "find", {"pattern": f"{STEM}09999?"}, env)
    shown = str(report["text"]).split("\n")[1:]  # the child reports the last 300 characters
    assert len(shown) >= 3 and set(shown) <= {f"many/{STEM}09999{i}" for i in range(10)}
    assert float(report["peak"]) - float(report["before"]) < 10  # MB; the kept listing was ~20
