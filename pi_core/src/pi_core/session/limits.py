"""How large a session may be to open: the part of its file that is read in full (from its
latest compaction on) is limited, 200 MB by default, ``PI_SESSION_MAX_MB`` to change it.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_core.session.reader import SessionFileError

#: Largest part of a session file read in full by default, in MB; ``PI_SESSION_MAX_MB`` changes it.
DEFAULT_MAX_SESSION_MB = 200


def max_session_bytes() -> int:
    """The size above which a session is refused (see :func:`check_size`)."""
    raw = os.environ.get("PI_SESSION_MAX_MB", "")
    try:
        megabytes = float(raw) if raw.strip() else DEFAULT_MAX_SESSION_MB
    except ValueError:
        megabytes = DEFAULT_MAX_SESSION_MB
    return int(megabytes * 1024 * 1024)


def check_size(path: Path, start: int = 0) -> None:
    """Refuse, with what to do instead, a session too large to open in reasonable time and memory.

    What counts is the part of the file read in full: from byte ``start`` (the latest compaction,
    see ``reader.context_start``; 0 without one) to the end. Lines before it are only scanned
    (~350 bytes of memory per entry), so a long compacted session opens quickly. The part read
    in full costs about 6 times its size in memory, and resuming sends all of it to the model: a
    1M-entry file that was never compacted (~440 MB) would take minutes and several GB before
    the model even answered.
    """
    try:
        size = path.stat().st_size
    except OSError:
        return
    limit = max_session_bytes()
    if size - start <= limit:
        return
    megabytes, limit_mb = (size - start) / (1024 * 1024), limit / (1024 * 1024)
    what = (
        f"this session file is {megabytes:.0f} MB"
        if start == 0
        else f"the part of this session file since its latest compaction is {megabytes:.0f} MB"
    )
    raise SessionFileError(
        f"{path}: {what}, more than pi opens ({limit_mb:.0f} MB: "
        f"opening it would take about {megabytes * 6 / 1024:.1f} GB of memory). Start a new session, "
        f"or open it anyway with PI_SESSION_MAX_MB={int(megabytes) + 1} in the environment"
    )
