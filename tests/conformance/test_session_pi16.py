"""Live side-by-side with the real pi 1.6.0: a session written by one resumes in the other with the
same context (the conversation of the next request), for every scenario of
tests/fixtures/pi16/make_fixtures.py. Skipped unless ``PI16_DIR`` points at an install of pi 1.6.0
(tests/fixtures/real_pi.py).

The committed fixtures of those scenarios are checked without pi in tests/e2e/test_session_pi16.py.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from pi_core.testing import LoopbackLLMServer
from pi_core.testing.script import text_turn

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi16"
sys.path.insert(0, str(FIXTURES))

from harness import PI16_MISSING, Home, conversation, find_pi16, our_pi  # noqa: E402
from make_fixtures import PI_ONLY, SCENARIOS  # noqa: E402

PI16 = find_pi16()
pytestmark = [
    pytest.mark.conformance,
    pytest.mark.slow,
    pytest.mark.skipif(PI16 is None, reason=PI16_MISSING),
]


def _write(writer: list[str], name: str, root: Path) -> Path:
    settings, steps = SCENARIOS[name]()
    with LoopbackLLMServer() as server:
        home = Home(root, server.base_url("openai-completions"), settings)
        for args, script in steps:
            server.add(*script)
            result = home.run(writer, args)
            assert result.returncode == 0, result.stderr
        (written,) = home.session_files()
    return written


def _resume(pi: list[str], file: Path, root: Path) -> list[dict[str, Any]]:
    copy = root / "copy.jsonl"
    root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(file, copy)
    with LoopbackLLMServer() as server:
        home = Home(root, server.base_url("openai-completions"))
        server.add(text_turn("Resumed."))
        result = home.run(pi, ["--session", str(copy), "-p", "resume check"])
        assert result.returncode == 0, result.stderr
        assert len(server.requests) == 1, result.stderr
        return conversation(server.requests[0].body)


@pytest.mark.parametrize("name", sorted(set(SCENARIOS) - PI_ONLY))
def test_a_session_we_write_resumes_in_pi16_with_the_context_we_send(name: str, tmp_path: Path) -> None:
    assert PI16 is not None
    written = _write(our_pi(), name, tmp_path / "write")
    assert _resume(PI16, written, tmp_path / "pi16") == _resume(our_pi(), written, tmp_path / "ours")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_session_pi16_writes_resumes_here_with_the_context_pi16_sends(name: str, tmp_path: Path) -> None:
    assert PI16 is not None
    written = _write(PI16, name, tmp_path / "write")
    assert _resume(our_pi(), written, tmp_path / "ours") == _resume(PI16, written, tmp_path / "pi16")
