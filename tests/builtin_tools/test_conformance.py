"""Side by side with the TypeScript pi: same tool call on identical trees, same text and details."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pi_builtin_tools.binaries import find_rg
from pi_core.agent.tools import ToolError

from tests.fixtures.real_pi import PI073_MISSING, pi073

pytestmark = pytest.mark.conformance

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "ts_tools.mjs"
PI = pi073()
if PI is None:
    pytest.skip(PI073_MISSING, allow_module_level=True)
PACKAGE = PI.package / "dist" / "index.js"

RunTool = Any


def run_ts_batch(calls: list[dict[str, Any]], home: Path) -> list[dict[str, Any]]:
    env = dict(os.environ)
    rg = find_rg()
    if rg:
        env["PATH"] = os.path.dirname(rg) + os.pathsep + env.get("PATH", "")
    env["PI_OFFLINE"] = "1"
    env["PI_TS_PACKAGE"] = str(PACKAGE)
    env["HOME"] = str(home)
    env["PI_CODING_AGENT_DIR"] = str(home / "agent")
    out = subprocess.run(
        [PI.node, str(SCRIPT), "batch"],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    results: list[dict[str, Any]] = json.loads(out.stdout)
    return results


def make_tree(root: Path) -> None:
    for name, content in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode())


def snapshot(root: Path) -> dict[Path, bytes]:
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


async def run_py(run: RunTool, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    try:
        result = await run(tool, args)
    except ToolError as exc:
        return {"error": str(exc)}
    dumped = result.to_json_dict()
    dumped.pop("terminate", None)
    if dumped.get("details") is None:
        dumped.pop("details", None)
    return {"result": dumped}


def normalise(value: Any, ts_dir: Path, py_dir: Path) -> Any:
    text = json.dumps(value, sort_keys=True)
    text = text.replace(str(ts_dir), "<cwd>").replace(str(py_dir), "<cwd>")
    text = re.sub(r"pi-bash-[0-9a-f]{16}\.log", "pi-bash-X.log", text)
    return json.loads(text)


FILES = {
    "a.txt": 'alpha\nbeta\ngamma "quoted"\nbeta\n',
    "big.txt": "\n".join(f"line {i}" for i in range(1, 3001)),
    "wide.txt": "\n".join("x" * 199 for _ in range(400)),
    "long.txt": "z" * 60000 + "\nrest",
    "crlf.txt": "one\r\ntwo\r\nthree",
    "smart.txt": "say(\u201chi\u201d)   \nkeep \u2014 dash\n",
    "code.py": "".join(f"def f{i}():\n    return {i}\n\n" for i in range(30)),
    "noeol.txt": "a\nb\nc",
    "dir/sub/x.md": "hello\n",
    "trail.txt": "foo bar\nfoo\nx  \ny\nz\n",
    "wide-utf8.txt": "\n".join("é" * 150 for _ in range(300)),
}

CASES: list[tuple[str, dict[str, Any]]] = [
    ("read", {"path": "a.txt"}),
    ("read", {"path": "big.txt"}),
    ("read", {"path": "big.txt", "offset": 10, "limit": 5}),
    ("read", {"path": "big.txt", "offset": 5000}),
    ("read", {"path": "wide.txt"}),
    ("read", {"path": "long.txt"}),
    ("read", {"path": "long.txt", "offset": 2}),
    ("read", {"path": "crlf.txt", "limit": 2}),
    ("read", {"path": "@noeol.txt", "offset": 3}),
    ("read", {"path": "dir"}),
    ("read", {"path": "smart.txt"}),
    ("read", {"path": "wide-utf8.txt", "offset": 7}),
    ("edit", {"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "ALPHA"}]}),
    ("edit", {"path": "a.txt", "edits": [{"oldText": "beta", "newText": "B"}]}),
    ("edit", {"path": "a.txt", "edits": [{"oldText": "nothing", "newText": "B"}]}),
    ("edit", {"path": "smart.txt", "edits": [{"oldText": 'say("hi")', "newText": "x"}]}),
    ("edit", {"path": "crlf.txt", "edits": [{"oldText": "two\nthree", "newText": "2\n3\n4"}]}),
    ("edit", {"path": "noeol.txt", "edits": [{"oldText": "c", "newText": "c\n"}]}),
    (
        "edit",
        {
            "path": "code.py",
            "edits": [
                {"oldText": "def f3():", "newText": "def g3():"},
                {"oldText": "    return 20\n", "newText": "    return 20\n    # twenty\n"},
                {"oldText": "def f29():\n    return 29\n\n", "newText": ""},
            ],
        },
    ),
    ("edit", {"path": "a.txt", "oldText": "gamma", "newText": "G"}),
    ("edit", {"path": "trail.txt", "edits": [{"oldText": "foo ", "newText": "F"}]}),
    ("edit", {"path": "trail.txt", "edits": [{"oldText": "x\ny", "newText": "XY"}]}),
    (
        "edit",
        {
            "path": "trail.txt",
            "edits": [{"oldText": "y\nz", "newText": "YZ"}, {"oldText": "bar", "newText": "B"}],
        },
    ),
    ("write", {"path": "new/dir/h.txt", "content": "h\u00e9llo\U0001f600"}),
    ("ls", {}),
    ("ls", {"path": "dir", "limit": 1}),
    ("ls", {"path": "a.txt"}),
    ("bash", {"command": "echo out; echo err 1>&2; exit 2"}),
    ("bash", {"command": "seq 1 3000"}),
    ("bash", {"command": "true"}),
    ("bash", {"command": "printf '%.0sé' $(seq 1 40000)"}),
    ("grep", {"pattern": "line 29[0-9][0-9]", "path": "big.txt", "limit": 3}),
    ("grep", {"pattern": "beta", "context": 1}),
    ("grep", {"pattern": "(", "path": "a.txt"}),
]


@pytest.fixture(scope="module")
def typescript(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[int, tuple[Path, dict[str, Any], dict[Path, bytes]]]:
    """Every case run once by the TypeScript pi, in one node process: (dir, result, files after)."""
    base = tmp_path_factory.mktemp("ts")
    calls = []
    for index, (tool, args) in enumerate(CASES):
        root = base / f"case{index}"
        make_tree(root)
        calls.append({"cwd": str(root), "tool": tool, "args": args})
    results = run_ts_batch(calls, base / "home")
    return {i: (base / f"case{i}", results[i], snapshot(base / f"case{i}")) for i in range(len(CASES))}


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{t}-{i}" for i, (t, _) in enumerate(CASES)])
async def test_same_as_typescript(
    run: RunTool,
    tmp_path: Path,
    typescript: dict[int, tuple[Path, dict[str, Any], dict[Path, bytes]]],
    index: int,
) -> None:
    tool, args = CASES[index]
    ts_dir, ts_result, ts_files = typescript[index]
    make_tree(tmp_path)
    theirs = normalise(ts_result, ts_dir, tmp_path)
    theirs.pop("ms", None)
    ours = normalise(await run_py(run, tool, args), ts_dir, tmp_path)
    if tool == "grep" and "result" in theirs:
        # ripgrep's file order is not fixed; compare the lines as sets.
        for side in (theirs, ours):
            block = side["result"]["content"][0]
            block["text"] = sorted(block["text"].split("\n"))
    assert ours == theirs
    assert snapshot(tmp_path) == ts_files
