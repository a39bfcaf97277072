"""The cross-process lock on ``auth.json`` that pi 1.6.0 takes around an OAuth refresh.

pi locks the file the way the npm package ``proper-lockfile`` does: the lock is the directory
``<auth.json, symlinks resolved>.lock``, made with ``mkdir`` (atomic) and removed to release it;
a lock whose directory has not been touched for 30 seconds is stale and may be taken over.
Taking the same lock here means a pi for Python and a pi 1.6.0 (or two of either) sharing one
``auth.json`` refresh a login once: the second waits, re-reads, and finds the new tokens. That
matters for logins whose refresh tokens are single-use (OpenAI rotates them): the loser of a race
would otherwise present a spent token and be told to log in again.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

STALE_S = 30.0
MAX_DELAY_S = 1.0
#: The holder touches the directory this often, so a long refresh is not taken for a stale lock.
TOUCH_EVERY_S = STALE_S / 2


def lock_path(path: Path) -> Path:
    return Path(os.path.realpath(path) + ".lock")


def _try_take(lock: Path) -> bool:
    try:
        os.mkdir(lock)
        return True
    except FileExistsError:
        pass
    try:
        age = time.time() - lock.stat().st_mtime
    except FileNotFoundError:
        return False  # released meanwhile: try again at once
    if age > STALE_S:
        with contextlib.suppress(OSError):
            os.rmdir(lock)  # a holder that died; the next attempt takes it
    return False


@contextlib.asynccontextmanager
async def auth_file_lock(path: Path, timeout_s: float = STALE_S) -> AsyncIterator[None]:
    """Hold pi's lock on ``path`` (an auth.json); raises ``TimeoutError`` after ``timeout_s``."""
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    deadline = time.monotonic() + timeout_s
    attempt = 0
    while not await asyncio.to_thread(_try_take, lock):
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{path} is locked by another pi (remove {lock} if none is running)")
        delay = min(0.01 * 2**attempt, MAX_DELAY_S) * (1 + random.random())
        attempt += 1
        await asyncio.sleep(min(delay, max(0.0, deadline - time.monotonic())))

    async def keep_fresh() -> None:
        while True:
            await asyncio.sleep(TOUCH_EVERY_S)
            with contextlib.suppress(OSError):
                os.utime(lock)

    toucher = asyncio.ensure_future(keep_fresh())
    try:
        yield
    finally:
        toucher.cancel()
        with contextlib.suppress(OSError):
            os.rmdir(lock)
