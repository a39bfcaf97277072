"""Reading pi's JSON files (settings, models.json, auth.json, mcp.json, ...) as pi reads them.

pi runs on JavaScript, whose file reading turns bytes that are not UTF-8 into U+FFFD and whose
settings readers skip a UTF-8 byte order mark: a file an editor saved that way still loads there,
so it loads here too, the bad bytes reported in one line (file, line, column). And a document
nested deeper than Python's parser can follow is an invalid document (:class:`json.JSONDecodeError`),
not a ``RecursionError`` escaping to the user.

Standard library only: the plugin loader reads settings with it before anything else is imported.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from pi_core._files import read_regular

logger = logging.getLogger("pi.config")

_BOM = b"\xef\xbb\xbf"
#: Where bad bytes were reported already: a file is read more than once per run (settings by the
#: plugin loader and the runtime, auth.json per lookup), its damage is told once.
_reported: set[tuple[str, int, int]] = set()


def decode_json_bytes(data: bytes, path: str | Path) -> str:
    """The text of a file's bytes: a leading byte order mark dropped, bytes that are not UTF-8
    read as U+FFFD (one warning per process naming ``path``, the line and column of the first bad
    byte)."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        if (str(path), line, column) not in _reported:
            _reported.add((str(path), line, column))
            logger.warning(
                "%s:%d:%d: not valid UTF-8; read with U+FFFD in place of the bad bytes", path, line, column
            )
        return data.decode("utf-8", "replace")


def read_json_text(path: Path) -> str:
    """:func:`decode_json_bytes` of the file; raises ``OSError`` as reading it does, and for a
    path that is not a regular file (a named pipe is not waited on)."""
    return decode_json_bytes(read_regular(path), path)


def loads(text: str) -> Any:
    """:func:`json.loads`; a document too deeply nested raises :class:`json.JSONDecodeError`."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", text, 0) from None
