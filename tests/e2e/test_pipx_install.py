"""The README's pipx road: ``pipx install`` of the checkout gives a ``pi`` that answers, and
``pi install`` / ``pi remove`` act on the environment pipx made for it.

pipx comes from the package index (``uv tool run pipx``) and installs with its uv backend, which
takes the workspace members from the checkout; the third-party dependencies come from the index
(uv's cache once warm). Without uv or a reachable index the test is skipped, saying which.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pi_core.testing import LoopbackLLMServer, text_turn

from pi_core import __version__

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("uv") is None, reason="uv is not installed (it runs pipx)"),
]


def _environment(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "UV_PROJECT", "PIPX_"))}
    env.update(
        PIPX_HOME=str(base / "pipx"),
        PIPX_BIN_DIR=str(base / "bin"),
        PIPX_MAN_DIR=str(base / "man"),
        PATH=f"{base / 'bin'}{os.pathsep}{env['PATH']}",
    )
    return env


@pytest.fixture(scope="module")
def pipx_pi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """``pi`` as ``pipx install --backend uv <checkout>`` puts it on the PATH, and that PATH."""
    base = tmp_path_factory.mktemp("pipx")
    env = _environment(base)
    uv = shutil.which("uv")
    assert uv is not None
    pipx = [uv, "tool", "run", "pipx"]
    probe = subprocess.run([*pipx, "--version"], env=env, capture_output=True, text=True, timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"pipx is not available from the package index: {probe.stderr.strip()[-300:]}")
    done = subprocess.run(
        [*pipx, "install", "--backend", "uv", str(ROOT)],
        cwd=base, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    yield base / "bin" / "pi", env


def _wheel(directory: Path) -> Path:
    """A minimal wheel of ``pi-ext-demo`` with one ``pi`` entry point and no dependencies."""
    wheel = directory / "pi_ext_demo-0.1.0-py3-none-any.whl"
    info = "pi_ext_demo-0.1.0.dist-info"
    files = {
        "pi_ext_demo/__init__.py": "from pi_core import hookimpl  # noqa: F401\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: pi-ext-demo\nVersion: 0.1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": "[pi]\ndemo = pi_ext_demo\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def _pi(
    pi: Path, env: dict[str, str], home: Path, *args: str, **more: str
) -> subprocess.CompletedProcess[str]:
    extra = {"HOME": str(home), "TERM": "dumb", "PI_OFFLINE": "1", **more}
    return subprocess.run(
        [str(pi), *args], cwd=home, env={**env, **extra},
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def _plugin_names(pi: Path, env: dict[str, str], home: Path) -> set[str]:
    listed = _pi(pi, env, home, "plugins", "--all", "--json")
    assert listed.returncode == 0, listed.stderr
    return {row["name"] for row in json.loads(listed.stdout)}


def test_pipx_installed_pi_answers_and_installs_plugins_into_its_own_environment(
    pipx_pi: tuple[Path, dict[str, str]], tmp_path: Path, pi_llm_server: LoopbackLLMServer
) -> None:
    pi, env = pipx_pi
    home = tmp_path / "home"
    (home / ".pi" / "agent").mkdir(parents=True)
    version = _pi(pi, env, home, "--version")
    assert (version.returncode, version.stdout.strip(), version.stderr) == (0, __version__, "")
    assert {"tools", "compaction", "catalogue", "providers", "mcp"} <= _plugin_names(pi, env, home)
    base_url = pi_llm_server.base_url("openai-completions")
    (home / ".pi" / "agent" / "models.json").write_text(
        json.dumps({"providers": {"openrouter": {"baseUrl": base_url}}})
    )
    pi_llm_server.add(text_turn("an answer from pipx's pi"))
    answer = _pi(pi, env, home, "-p", "hello", OPENROUTER_API_KEY="sk-or-test")
    assert (answer.returncode, answer.stdout, answer.stderr) == (0, "an answer from pipx's pi\n", "")
    # pi install / pi remove change what this same pi loads.
    installed = _pi(pi, env, home, "install", str(_wheel(tmp_path)), UV_OFFLINE="1")
    assert installed.returncode == 0, installed.stderr
    assert "  demo = pi_ext_demo  (pi-ext-demo)" in installed.stdout
    assert "demo" in _plugin_names(pi, env, home)
    removed = _pi(pi, env, home, "remove", "pi-ext-demo")
    assert removed.returncode == 0, removed.stderr
    assert "demo" not in _plugin_names(pi, env, home)
