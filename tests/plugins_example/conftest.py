"""The example plugins' sources on sys.path: a plain ``uv run pytest`` does not install them."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for src in sorted((ROOT / "plugins-example").glob("pi-ext-*/src")):
    if str(src) not in sys.path:
        sys.path.insert(0, str(src))
