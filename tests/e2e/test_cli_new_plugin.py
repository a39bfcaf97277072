"""``pi new-plugin NAME`` writes a distribution whose own tests pass through the kit, as written."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

PI = str(Path(sys.executable).with_name("pi"))


def test_new_plugin_writes_a_distribution_whose_tests_pass(tmp_path: Path) -> None:
    done = subprocess.run(
        [PI, "new-plugin", "my-gate"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    root = tmp_path / "pi-ext-my-gate"
    assert done.stdout.startswith(f"Wrote {root.name}")
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pi"] == {"my-gate": "pi_ext_my_gate.plugin"}
    assert (root / "README.md").exists() and (root / "src" / "pi_ext_my_gate" / "py.typed").exists()
    # No async test plugin and no install: the kit alone runs the async tests.
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:asyncio", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "2 passed" in tests.stdout


def test_new_plugin_refuses_bad_names_and_existing_folders(tmp_path: Path) -> None:
    bad = subprocess.run(
        [PI, "new-plugin", "My_Gate"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 1 and bad.stderr.startswith("Error: plugin name 'My_Gate'")
    (tmp_path / "pi-ext-x").mkdir()
    taken = subprocess.run([PI, "new-plugin", "x"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert taken.returncode == 1 and "already exists" in taken.stderr
    assert list((tmp_path / "pi-ext-x").iterdir()) == []
