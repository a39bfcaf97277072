"""The distributions as a user gets them: wheels built by ``uv build --all-packages``, installed into
a fresh virtual environment outside the workspace (members from the wheels, the rest from the
package index), then ``pi`` run from there in a fresh HOME configured only by a key variable and a
models.json base URL."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pi_core.testing import LoopbackLLMServer, text_turn

from pi_core import __version__

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("uv") is None, reason="uv is not installed"),
]


@pytest.fixture(scope="session")
def installed_pi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``bin/pi`` of a fresh venv holding the wheel of ``pi-coding-agent-py`` and its members."""
    base = tmp_path_factory.mktemp("wheels")
    dist, venv = base / "dist", base / "venv"
    uv = shutil.which("uv")
    assert uv is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "UV_PROJECT"))}
    build = subprocess.run(
        [uv, "build", "--all-packages", "--wheel", "-q", "-o", str(dist)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    subprocess.run([uv, "venv", "-q", "--python", python, str(venv)], env=env, check=True, timeout=120)
    install = subprocess.run(
        [uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), "--find-links", str(dist),
         "pi-coding-agent-py"],
        cwd=base, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    yield venv / "bin" / "pi"


def _run(pi: Path, home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": f"{pi.parent}:/usr/bin:/bin",
        "HOME": str(home),
        "TERM": "dumb",
        "PI_OFFLINE": "1",
        **extra,
    }
    return subprocess.run(
        [str(pi), *args], cwd=home, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_the_installed_pi_answers_from_a_fresh_home(
    installed_pi: Path, tmp_path: Path, pi_llm_server: LoopbackLLMServer
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    version = _run(installed_pi, home, "--version")
    assert version.returncode == 0 and __version__ in version.stdout and version.stderr == ""
    plugins = _run(installed_pi, home, "plugins", "--all", "--json")
    assert plugins.returncode == 0, plugins.stderr
    rows = {row["name"]: row for row in json.loads(plugins.stdout)}
    assert {"tools", "compaction", "catalogue", "providers"} <= set(rows)
    assert rows["catalogue"]["distribution"] == "pi-coding-agent-providers"
    assert all(row["status"] == "active" for row in rows.values())
    # Configured only by a key variable and a base URL override.
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    base_url = pi_llm_server.base_url("openai-completions")
    (agent / "models.json").write_text(json.dumps({"providers": {"openrouter": {"baseUrl": base_url}}}))
    pi_llm_server.add(text_turn("an answer from the installed pi"))
    answer = _run(installed_pi, home, "-p", "hello", OPENROUTER_API_KEY="sk-or-test")
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout == "an answer from the installed pi\n" and answer.stderr == ""
    (request,) = pi_llm_server.requests
    assert request.headers["authorization"] == "Bearer sk-or-test"
