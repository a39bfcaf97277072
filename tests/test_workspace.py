from __future__ import annotations

import tomllib
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any


def test_builtin_plugins_are_registered_as_pi_entry_points() -> None:
    names = {ep.name: ep.value for ep in entry_points(group="pi")}
    assert names["tools"] == "pi_builtin_tools.plugin"
    assert names["compaction"] == "pi_builtin_compaction.plugin"


def _project(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
    return data


ROOT = Path(__file__).resolve().parent.parent
#: The PyPI names (checked free in December 2026; `pi-core` and `pi-coding-agent` belong to others).
DISTRIBUTIONS = {
    ROOT / "pyproject.toml": "pi-coding-agent-py",
    ROOT / "pi_core" / "pyproject.toml": "pi-coding-agent-core",
    ROOT / "pi_builtin_tools" / "pyproject.toml": "pi-coding-agent-tools",
    ROOT / "pi_builtin_compaction" / "pyproject.toml": "pi-coding-agent-compaction",
}


def test_distributions_carry_their_pypi_names_and_pi_cores_version() -> None:
    from pi_core import __version__

    for path, name in DISTRIBUTIONS.items():
        project = _project(path)
        assert project["name"] == name, path
        assert project["version"] == __version__, path


def test_meta_distribution_pins_every_member_and_gives_the_pi_command() -> None:
    from pi_core import __version__

    meta = _project(ROOT / "pyproject.toml")
    members = {name for path, name in DISTRIBUTIONS.items() if path != ROOT / "pyproject.toml"}
    assert {f"{name}=={__version__}" for name in members} <= set(meta["dependencies"])
    # uv tool install / pipx install expose only the executables of the distribution they install.
    assert meta["scripts"]["pi"] == _project(ROOT / "pi_core" / "pyproject.toml")["scripts"]["pi"]
