"""kill -9 while pi rewrites its JSON files (settings.json, auth.json, the trust store): the file
stays whole (old or new content) and no temporary file is left beside it."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.faults, pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    what, folder = sys.argv[1], Path(sys.argv[2])
    big = "x" * 2_000_000  # each write takes a while
    index = 0
    if what == "settings":
        from pi_core.runtime.resources.settings import SettingsManager
        manager = SettingsManager.create(folder / "project", folder)
        write = lambda: manager.set("theme", f"{index}{big}")
    elif what == "auth":
        from pi_core.ai.auth import AuthStorage
        storage = AuthStorage(folder / "auth.json")
        write = lambda: storage.set_api_key(f"p{index % 3}", f"{index}{big}")
    else:
        from pi_core.plugins.trust import trust_project
        extensions = folder / "project" / ".pi" / "extensions"
        extensions.mkdir(parents=True, exist_ok=True)
        for number in range(200):
            (extensions / f"m{number}.py").write_text("X = 1\\n" * 2000)
        write = lambda: trust_project(folder / "project", folder)
    write()
    print("written", flush=True)
    while True:
        index += 1
        write()
    """
)

FILES = {"settings": "settings.json", "auth": "auth.json", "trust": "trusted-projects.json"}


@pytest.mark.parametrize("what", sorted(FILES))
def test_kill_during_rewrites_leaves_the_file_whole_and_no_temp_file(tmp_path: Path, what: str) -> None:
    rng = random.Random(what)
    (tmp_path / "project").mkdir()
    for attempt in range(4):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, what, str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert child.stdout is not None and child.stdout.readline() == b"written\n", child.stderr
        time.sleep(rng.uniform(0.05, 0.6))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        assert child.stderr is not None
        child.stderr.close()
        left = sorted(p.name for p in tmp_path.iterdir())
        # settings.json.lock: pi's lock (a folder, as proper-lockfile makes it), stale after 10 s
        assert set(left) <= {"project", FILES[what], f"{FILES[what]}.lock"}, (attempt, left)
        assert isinstance(json.loads((tmp_path / FILES[what]).read_text()), dict), attempt
