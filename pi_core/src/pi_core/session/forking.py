"""Forking a session file: a new file with a header of its own and every entry of the source,
written whole or not at all. Lines the source was only scanned for (before its latest
compaction) are copied byte for byte without being parsed, so a long compacted session forks
within the memory its resume takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from pi_core._files import replacing
from pi_core.session.entries import CURRENT_SESSION_VERSION, SessionHeader, to_wire
from pi_core.session.index import EntryMeta
from pi_core.session.jsonl import dumps
from pi_core.session.limits import check_size, max_session_bytes
from pi_core.session.paths import iso_now, new_session_id, session_file_name
from pi_core.session.reader import SessionFileError, context_start, read_session_file


def fork_session_file(
    source_path: str | Path, target_cwd: str, directory: Path, session_id: str | None
) -> Path:
    """Write the fork of ``source_path`` for ``target_cwd`` into ``directory`` (its header names
    ``source_path`` as the parent session); returns the new file's path.

    The size limit applies as when the file is opened (to the part since its latest compaction).
    """
    source = Path(source_path)
    start = context_start(source, within=max_session_bytes())
    check_size(source, start)
    loaded = read_session_file(source, scan_to=start)
    if loaded is None:
        raise SessionFileError(f"{source}:1: cannot fork: the session file is empty")
    directory.mkdir(parents=True, exist_ok=True)
    session_id = session_id or new_session_id()
    timestamp = iso_now()
    header = SessionHeader(
        version=CURRENT_SESSION_VERSION,
        id=session_id,
        timestamp=timestamp,
        cwd=target_cwd,
        parent_session=str(source_path),
    )
    target = directory / session_file_name(timestamp, session_id)
    with replacing(target) as out:  # a kill or a full disk leaves no partial file
        out.write(dumps(to_wire(header)).encode("utf-8") + b"\n")
        _copy_entries(loaded.entries, source, out)
    return target


def _copy_entries(metas: Sequence[EntryMeta], source: Path, out: BinaryIO) -> None:
    """Write the lines of ``metas`` to ``out``: kept texts as they are, and the scanned lines
    (text left in ``source``, see ``reader.LineSource``) copied from the file byte for byte —
    a run of them that follow each other in the file in one piece, read a megabyte at a time."""
    run_start = run_end = 0

    def copy_run(handle: BinaryIO) -> None:
        handle.seek(run_start)
        remaining = run_end - run_start
        while remaining > 0:
            chunk = handle.read(min(remaining, 1 << 20))
            if not chunk:
                raise SessionFileError(f"{source}: the file got shorter while it was copied")
            out.write(chunk)
            remaining -= len(chunk)

    with source.open("rb") as handle:
        for meta in metas:
            if meta.line is None and meta.span:
                offset, length = meta.span >> 32, meta.span & 0xFFFFFFFF  # the line and its \n
                if offset != run_end or run_end == run_start:
                    copy_run(handle)
                    run_start = offset
                run_end = offset + length
                continue
            if meta.line is None:
                continue
            copy_run(handle)
            run_start = run_end = 0
            out.write(meta.line.encode("utf-8"))
            out.write(b"\n")
        copy_run(handle)
