"""JSON with ``//`` line comments and trailing commas, as pi accepts in models.json."""

from __future__ import annotations

import re
from typing import Any

from pi_core._jsonfile import loads

_LINE_COMMENT = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*')
_TRAILING_COMMA = re.compile(r'("(?:\\.|[^"\\])*")|,(\s*[}\]])')


def parse_jsonc(text: str) -> Any:
    """Parse ``text``; strings are left alone, comments and trailing commas are removed first."""
    text = _LINE_COMMENT.sub(lambda m: m.group(1) or "", text)
    text = _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), text)
    return loads(text)
