from __future__ import annotations

from pathlib import Path

import pytest
from _pi_resources_testkit import write
from pi_core.runtime.resources import ResourceDiagnostic, load_context_files


def test_global_first_then_ancestors_outermost_first(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(agent / "CLAUDE.md", "global")
    write(tmp_path / "a" / "AGENTS.md", "a")
    write(tmp_path / "a" / "b" / "c" / "CLAUDE.md", "c")
    files = load_context_files(str(tmp_path / "a" / "b" / "c"), str(agent))
    assert [(Path(f.path).relative_to(tmp_path).as_posix(), f.content) for f in files] == [
        ("agent/CLAUDE.md", "global"),
        ("a/AGENTS.md", "a"),
        ("a/b/c/CLAUDE.md", "c"),
    ]


def test_one_file_per_directory_agents_wins(tmp_path: Path) -> None:
    write(tmp_path / "p" / "AGENTS.md", "agents")
    write(tmp_path / "p" / "CLAUDE.md", "claude")
    files = load_context_files(str(tmp_path / "p"), str(tmp_path / "agent"))
    assert [f.content for f in files] == ["agents"]


def test_the_walk_does_not_stop_at_a_git_root(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "outer")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    files = load_context_files(str(tmp_path / "repo"), str(tmp_path / "agent"))
    assert [f.content for f in files] == ["outer"]


def test_agent_dir_inside_the_walk_is_not_loaded_twice(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "both")
    files = load_context_files(str(tmp_path / "sub"), str(tmp_path))
    assert [f.content for f in files] == ["both"]


def test_unreadable_candidate_warns_and_falls_back_to_next_name(tmp_path: Path) -> None:
    (tmp_path / "p" / "AGENTS.md").mkdir(parents=True)  # exists but cannot be read as a file
    write(tmp_path / "p" / "CLAUDE.md", "fallback")
    diagnostics: list[ResourceDiagnostic] = []
    files = load_context_files(str(tmp_path / "p"), str(tmp_path / "agent"), diagnostics)
    assert [f.content for f in files] == ["fallback"]
    assert diagnostics[0].type == "warning"
    assert diagnostics[0].message.startswith(f"Could not read {tmp_path / 'p' / 'AGENTS.md'}")


def test_paths_are_absolute_even_for_relative_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "AGENTS.md", "x")
    monkeypatch.chdir(tmp_path)
    files = load_context_files(".", str(tmp_path / "agent"))
    assert files[-1].path == str(tmp_path / "AGENTS.md")
