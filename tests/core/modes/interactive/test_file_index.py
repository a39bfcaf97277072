"""The ``@`` file index: ignore files, hidden entries, symlink loops, fuzzy ranking, speed."""

from __future__ import annotations

import os
from pathlib import Path

from pi_core.modes.interactive.file_index import FileIndex, quote_path, walk_project


def test_walk_honours_ignore_files_and_skips_git(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.bin").write_text("")
    (tmp_path / "app.log").write_text("")
    (tmp_path / ".env.example").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".ignore").write_text("secret.txt\n")
    (tmp_path / "pkg" / "secret.txt").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text("")
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "loop")  # a loop must not hang the walk
    paths = walk_project(str(tmp_path))
    assert ".env.example" in paths and "pkg/" in paths and "pkg/mod.py" in paths
    assert not any(p.startswith((".git/", "build")) or p.endswith((".log", "secret.txt")) for p in paths)


def test_search_ranks_name_hits_then_path_hits_then_short_paths(tmp_path: Path) -> None:
    for relative in ("docs/models.md", "src/pi/models.py", "src/pi/mode.py", "tests/test_mdl.py", "README"):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    index = FileIndex(str(tmp_path))
    assert not index.ready
    index.build_now()
    assert index.search("models") == ["docs/models.md", "src/pi/models.py"]
    assert index.search("mdl")[0] == "tests/test_mdl.py"  # the query itself is in the name
    assert set(index.search("mdl")) == {"tests/test_mdl.py", "docs/models.md", "src/pi/models.py"}
    assert index.search("zzz") == []
    assert index.search("README") == ["README"] and index.search("readme") == ["README"]


def test_search_on_a_big_tree(tmp_path: Path) -> None:
    for package in range(100):
        directory = tmp_path / f"package_{package}" / "src"
        directory.mkdir(parents=True)
        for module in range(100):
            (directory / f"module_{module}.py").write_text("")
    index = FileIndex(str(tmp_path))
    index.build_now()
    found = index.search("pkg42mod7")
    assert found and all("42" in path for path in found[:5])


def test_paths_with_spaces_are_quoted() -> None:
    assert quote_path("a b/c.txt") == '"a b/c.txt"' and quote_path("src/x.py") == "src/x.py"
