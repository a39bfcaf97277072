"""pi's JSON files with what editors and accidents leave in them: a byte order mark, bytes that are
not UTF-8, nesting deeper than Python's parser follows, a folder where the file should be. Each
loads as pi (JavaScript) loads it or is refused in one message naming the file; none raises
anything else (a ``RecursionError`` used to reach the user as a traceback)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from pi_core._jsonfile import decode_json_bytes, loads
from pi_core.ai.auth import AuthStorage
from pi_core.ai.models import ModelRegistry
from pi_core.modes.interactive.keymap import load_keymap
from pi_core.plugins.trust import check_project_trust
from pi_core.runtime.jsonc import parse_jsonc
from pi_core.runtime.resources.context_files import load_context_files
from pi_core.runtime.resources.diagnostics import ResourceDiagnostic
from pi_mcp.config import McpConfigError, read_json

DEEP = "[" * 100_000 + "]" * 100_000
MODELS = {
    "providers": {
        "mine": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "k",
            "models": [{"id": "m\xe9"}],
        }
    }
}


def test_loads_turns_deep_nesting_into_a_decode_error() -> None:
    with pytest.raises(json.JSONDecodeError, match="nested too deeply to read"):
        loads(DEEP)
    with pytest.raises(json.JSONDecodeError, match="nested too deeply to read"):
        parse_jsonc(DEEP)
    assert loads("[[1]]") == [[1]]


def test_decode_reports_the_first_bad_byte_once(caplog: pytest.LogCaptureFixture) -> None:
    data = b'\xef\xbb\xbf{"a": 1,\n "b": "x\xffy\xfe"}'
    assert decode_json_bytes(data, "/f.json") == '{"a": 1,\n "b": "x\ufffdy\ufffd"}'
    assert decode_json_bytes(data, "/f.json") == '{"a": 1,\n "b": "x\ufffdy\ufffd"}'
    assert [r.getMessage() for r in caplog.records] == [
        "/f.json:2:9: not valid UTF-8; read with U+FFFD in place of the bad bytes"
    ]


def test_models_json_with_a_bom_and_latin1_bytes_loads(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(MODELS, ensure_ascii=False).encode("latin-1"))
    registry = ModelRegistry(AuthStorage(tmp_path / "auth.json"), path)
    registry.load()
    assert registry.error is None
    assert registry.find("mine", "m\ufffd") is not None


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: p.write_text(DEEP), "Failed to parse models.json: nested too deeply to read"),
        (lambda p: p.mkdir(), "Failed to read models.json: Is a directory"),
    ],
    ids=["deep", "folder"],
)
def test_models_json_that_cannot_be_used_is_one_error(tmp_path: Path, make: object, expected: str) -> None:
    path = tmp_path / "models.json"
    make(path)  # type: ignore[operator]
    registry = ModelRegistry(AuthStorage(tmp_path / "auth.json"), path)
    registry.load()
    assert registry.error is not None and registry.error.startswith(expected)
    assert registry.error.endswith(f"File: {path}")


def test_auth_json_reads_like_pi_or_fails_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_bytes(b'\xef\xbb\xbf{"p": {"type": "api_key", "key": "k\xff"}}')
    assert AuthStorage(path).read() == {"p": {"type": "api_key", "key": "k\ufffd"}}
    path.write_text(" \n")
    assert AuthStorage(path).read() == {}  # empty: no credentials yet (pi 1.6.0 goes on too)
    path.write_text(DEEP)
    with pytest.raises(ValueError, match=f"^Failed to parse {path}: nested too deeply"):
        AuthStorage(path).read()
    path.unlink()
    path.mkdir()
    with pytest.raises(ValueError, match=f"^Failed to read {path}: Is a directory"):
        AuthStorage(path).read()


def test_mcp_json_deep_nesting_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(DEEP)
    with pytest.raises(McpConfigError, match=r"mcp\.json:1:1: invalid JSON: nested too deeply"):
        read_json(path)
    path.write_bytes(b'\xef\xbb\xbf{"mcpServers": {}}')
    assert read_json(path) == {"mcpServers": {}}


def test_keybindings_nested_too_deeply_keep_the_default_keys(tmp_path: Path) -> None:
    (tmp_path / "keybindings.json").write_text(DEEP)
    keymap = load_keymap(tmp_path)
    (warning,) = keymap.warnings
    assert "nested too deeply" in warning and "the default keys apply" in warning


def test_trust_file_nested_too_deeply_is_a_config_error(tmp_path: Path) -> None:
    from pi_core.errors import ConfigError

    (tmp_path / "project" / ".pi" / "extensions").mkdir(parents=True)
    (tmp_path / "project" / ".pi" / "extensions" / "a.py").write_text("X = 1\n")
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "trusted-projects.json").write_text(DEEP)
    with pytest.raises(ConfigError, match=r"Cannot read the trust file .*nested too deeply"):
        check_project_trust(tmp_path / "project", tmp_path / "agent")


def test_context_file_with_bad_bytes_is_used_and_reported(tmp_path: Path) -> None:
    (tmp_path / "agent").mkdir()
    (tmp_path / "AGENTS.md").write_bytes(b"Rule one.\nCaf\xe9 rule two.\n")
    diagnostics: list[ResourceDiagnostic] = []
    (found,) = load_context_files(str(tmp_path), str(tmp_path / "agent"), diagnostics)
    assert found.content == "Rule one.\nCaf\ufffd rule two.\n"
    assert [d.message for d in diagnostics] == [
        f"{tmp_path / 'AGENTS.md'}:2: not valid UTF-8; read with U+FFFD in place of the bad bytes"
    ]


def test_the_warning_goes_to_the_pi_config_logger(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pi.config"):
        decode_json_bytes(b'"\x80"', "/other.json")
    assert caplog.records[0].name == "pi.config"


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes")
def test_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    import errno
    import os

    from pi_core._files import read_regular

    os.mkfifo(tmp_path / "settings.json")
    with pytest.raises(OSError, match="not a regular file") as caught:
        read_regular(tmp_path / "settings.json")  # would block in open() if it waited for a writer
    assert caught.value.errno == errno.EINVAL
    with pytest.raises(IsADirectoryError):
        read_regular(tmp_path)
    (tmp_path / "plain").write_bytes(b"data")
    assert read_regular(tmp_path / "plain") == b"data"
