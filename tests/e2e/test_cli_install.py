"""``pi install`` / ``pi remove`` against a throwaway environment and a wheel built here (offline)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PI = str(Path(sys.executable).with_name("pi"))

pytestmark = pytest.mark.skipif(shutil.which("uv") is None, reason="needs uv to make the environment")


def build_wheel(directory: Path, *, entry_points: bool = True) -> Path:
    """A minimal pure-Python wheel of ``pi-ext-demo`` with (or without) a ``pi`` entry point."""
    name = "pi_ext_demo" if entry_points else "pi_ext_plain"
    dist = name.replace("_", "-")
    wheel = directory / f"{name}-0.1.0-py3-none-any.whl"
    info = f"{name}-0.1.0.dist-info"
    files = {
        f"{name}/__init__.py": "from pi_core import hookimpl\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    if entry_points:
        files[f"{info}/entry_points.txt"] = f"[pi]\ndemo = {name}\n"
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


@pytest.fixture
def target(tmp_path: Path) -> str:
    """A fresh virtual environment (no pi in it: only the entry points are looked at)."""
    subprocess.run(["uv", "venv", "-q", "--python", sys.executable, str(tmp_path / "env")], check=True)
    return str(tmp_path / "env" / "bin" / "python")


def pi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PI, *args], capture_output=True, text=True, check=False, timeout=120)


def test_install_lists_what_pi_will_load_and_remove_what_it_no_longer_does(
    tmp_path: Path, target: str
) -> None:
    wheel = build_wheel(tmp_path)
    installed = pi("install", "--python", target, str(wheel))
    assert installed.returncode == 0, installed.stderr
    assert "pi will load:\n  demo = pi_ext_demo  (pi-ext-demo)" in installed.stdout
    again = pi("install", "--python", target, str(wheel))
    assert "Nothing new for pi to load" in again.stdout
    removed = pi("remove", "--python", target, "pi-ext-demo")
    assert removed.returncode == 0, removed.stderr
    assert "pi no longer loads:\n  demo = pi_ext_demo  (pi-ext-demo)" in removed.stdout


def test_a_distribution_without_entry_points_is_named_as_such(tmp_path: Path, target: str) -> None:
    plain = pi("install", "--python", target, str(build_wheel(tmp_path, entry_points=False)))
    assert plain.returncode == 0 and "no entry point in the group 'pi'" in plain.stdout


def test_refusals_and_failures_are_clear(tmp_path: Path, target: str) -> None:
    refused = pi("remove", "--python", target, "pi-coding-agent-core")
    assert refused.returncode == 2 and "pi-coding-agent-core is pi itself" in refused.stderr
    missing = pi("install", "--python", target, str(tmp_path / "no-such.whl"))
    assert missing.returncode == 1 and "install failed" in missing.stderr


FIRST_PARTY = ["permission-gate", "protected-paths", "git-checkpoint", "plan-mode", "todo", "subagent"]


def test_the_first_party_plugins_install_from_their_folders(tmp_path: Path) -> None:
    import os

    # As a user installs plugins: into an environment that already has pi. It is made from the
    # workspace's lock file, so every dependency comes from uv's cache; resolving them afresh offline
    # would need index pages that a cache filled only by `uv sync --locked` does not hold.
    workspace = Path(__file__).resolve().parents[2]
    environment = tmp_path / "with-pi"
    subprocess.run(
        ["uv", "sync", "-q", "--locked", "--offline", "--package", "pi-coding-agent-core"],
        cwd=workspace,
        env={**os.environ, "UV_PROJECT_ENVIRONMENT": str(environment)},
        check=True,
        timeout=300,
    )
    target = str(environment / "bin" / "python")
    folders = [str(workspace / "plugins-example" / f"pi-ext-{name}") for name in FIRST_PARTY]
    done = subprocess.run(
        [PI, "install", "--python", target, *folders],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "UV_OFFLINE": "1"},  # everything comes from this checkout and uv's cache
    )
    assert done.returncode == 0, done.stderr
    for name in FIRST_PARTY:
        package = name.replace("-", "_")
        assert f"  {name} = pi_ext_{package}.plugin  (pi-ext-{name})" in done.stdout


def test_an_environment_without_pip_and_no_uv_on_the_path_is_refused_with_what_to_do(
    tmp_path: Path, target: str
) -> None:
    # uv makes environments without pip (uv venv, uv tool install, pipx's uv backend).
    import os

    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "uv").exists())
    done = subprocess.run(
        [PI, "install", "--python", target, str(build_wheel(tmp_path))],
        capture_output=True, text=True, timeout=60, check=False, env={**os.environ, "PATH": path},
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"uv is not on the PATH and {target} has no pip" in done.stderr
    assert "pipx inject pi-coding-agent-py NAME" in done.stderr
