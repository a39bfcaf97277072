"""Byte-compile what a run of ``pi`` imports, as an install does, before a benchmark times it.

``pip install`` / ``uv tool install --compile-bytecode`` write ``__pycache__`` for every package
they install, and a plain install writes them on its first run. A development environment may have
neither: ``uv sync`` does not compile unless asked, editable installs of the workspace never are,
and with ``PYTHONDONTWRITEBYTECODE=1`` (set on the machines this project is developed on) Python
does not write them at run time either, so every start compiles ~1,000 modules of click, pydantic
and the SDKs from source again (about 0.7 s of CPU for one ``pi -p``). A figure measured that way
says nothing about what a user waits for, so every end-to-end benchmark compiles first.
"""

from __future__ import annotations

import compileall
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def compile_environment() -> None:
    """The workspace's own sources and this interpreter's site-packages (a no-op once done)."""
    folders = [path for path in sorted(ROOT.glob("*/src")) + sorted(ROOT.glob("plugins-example/*/src"))]
    paths = sysconfig.get_paths()
    folders += sorted({Path(paths["purelib"]), Path(paths["platlib"])})
    for folder in folders:
        if folder.is_dir():
            compileall.compile_dir(folder, quiet=2, workers=0)
