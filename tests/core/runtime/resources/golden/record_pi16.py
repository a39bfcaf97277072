"""Record the golden system prompts from the real pi 1.6.0 (run by hand; no test runs it).

    uv run python tests/core/runtime/resources/golden/record_pi16.py PATH/TO/pi

``PATH/TO/pi`` starts pi 1.6.0 (npm ``@earendil-works/pi-coding-agent``, e.g. a wrapper that runs
``node …/dist/cli.js``). Each scenario of ``_pi_resources_testkit`` is built in a temporary folder
with a throwaway HOME, pi is run once with ``-p`` against the loopback server of ``pi_core.testing``
(Anthropic Messages API), and the ``system`` text of its request is written to ``<name>.txt`` with
the scenario root replaced by ``<ROOT>`` and pi's package folder by ``<PIPKG>``. The files are data
recorded from pi: their wording is pi's, and the tests compare only their facts
(``_pi_resources_testkit.outline``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from _pi_resources_testkit import scenario_discovery, scenario_one, write  # noqa: E402
from pi_core.testing import LOOPBACK_API_KEY, LoopbackLLMServer, text_turn  # noqa: E402

DEFAULT_TOOLS = "read,bash,edit,write"


def _sysprompt_files(root: Path) -> Path:
    proj = scenario_one(root)
    write(proj / ".pi/SYSTEM.md", "PROJECT SYSTEM\n")
    write(root / "home/.pi/agent/APPEND_SYSTEM.md", "GLOBAL APPEND\n")
    return proj


#: name → (scenario, pi's arguments)
SCENARIOS: dict[str, tuple[Callable[[Path], Path], list[str]]] = {
    "default": (scenario_one, ["--tools", DEFAULT_TOOLS]),
    "notools": (scenario_one, ["--no-tools"]),
    "readgrep": (scenario_one, ["--tools", "read,grep,find,ls,bash"]),
    "sysprompt": (
        scenario_one,
        [
            "--tools",
            DEFAULT_TOOLS,
            "--system-prompt",
            "CUSTOM BODY",
            "--append-system-prompt",
            "APPEND ONE",
            "--append-system-prompt",
            "f.txt",
        ],
    ),
    "sysfiles": (_sysprompt_files, ["--tools", "bash"]),
    "discovery": (scenario_discovery, ["--tools", DEFAULT_TOOLS, "--skill", "../../cli"]),
}


def record(pi: str, name: str) -> str:
    build, args = SCENARIOS[name]
    with tempfile.TemporaryDirectory() as tmp, LoopbackLLMServer() as server:
        root = Path(tmp).resolve()
        proj = build(root)
        agent = root / "home/.pi/agent"
        provider = {
            "baseUrl": server.base_url("anthropic-messages"),
            "api": "anthropic-messages",
            "apiKey": LOOPBACK_API_KEY,
            "models": [{"id": "m1"}],
        }
        write(agent / "models.json", json.dumps({"providers": {"loop": provider}}))
        server.add(text_turn("ok"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
        env.update(HOME=str(root / "home"), PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1")
        command = [pi, "--model", "loop/m1", "--no-session", "--approve", "-p", *args, "hi"]
        done = subprocess.run(command, cwd=proj, env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0 or not server.requests:
            raise SystemExit(f"{name}: pi exited {done.returncode}: {done.stderr[-2000:]}")
        system = server.requests[0].body["system"]
        text = "".join(block["text"] for block in system) if isinstance(system, list) else str(system)
        package = Path(pi).resolve().parent / "node_modules/@earendil-works/pi-coding-agent"
        return text.replace(str(package), "<PIPKG>").replace(str(root), "<ROOT>")


def main() -> None:
    pi = sys.argv[1]
    for name in sys.argv[2:] or SCENARIOS:
        (HERE / f"{name}.txt").write_text(record(pi, name), encoding="utf-8")
        print(f"recorded {name}.txt")


if __name__ == "__main__":
    main()
