from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_core.cli.prefetch import guess_sdk, prefetch_sdk
from pi_core.runtime.jsonc import parse_jsonc


@pytest.fixture
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path))
    (tmp_path / "models.json").write_text(
        '{"providers": {"loopa": {"api": "anthropic-messages", "models": [{"id": "x"}],},\n'
        ' // a comment\n "local": {"models": [{"id": "m", "api": "openai-completions"}]}}}'
    )
    return tmp_path


def test_guess_sdk_from_model_flag_and_models_json(agent_dir: Path) -> None:
    assert guess_sdk(["--model", "loopa/x", "-p", "hi"]) == "anthropic"
    assert guess_sdk(["--provider", "local", "--model", "m"]) == "openai"
    assert guess_sdk(["--model=anthropic/claude-opus-4-7"]) == "anthropic"
    assert guess_sdk(["--model", "nobody/knows"]) is None


def test_guess_sdk_from_saved_default_provider(agent_dir: Path) -> None:
    assert guess_sdk(["-p", "hi"]) is None
    (agent_dir / "settings.json").write_text(json.dumps({"defaultProvider": "openai"}))
    assert guess_sdk(["-p", "hi"]) == "openai"


def test_prefetch_skips_help_and_unknown(agent_dir: Path) -> None:
    assert prefetch_sdk(["--help"]) is None
    assert prefetch_sdk(["--model", "nobody/x"]) is None
    thread = prefetch_sdk(["--model", "local/m"])
    assert thread is not None
    thread.join(30)


def test_parse_jsonc_keeps_slashes_inside_strings() -> None:
    assert parse_jsonc('{"url": "http://x//y", // c\n "a": [1,],}') == {"url": "http://x//y", "a": [1]}


def test_prefetch_only_for_non_interactive_runs(agent_dir: Path) -> None:
    from pi_core.cli.prefetch import prefetch_for_argv

    assert prefetch_for_argv(["--model", "local/m", "hello"], stdin_is_tty=True) is None
    assert prefetch_for_argv(["plugins", "--model", "local/m"], stdin_is_tty=False) is None
    thread = prefetch_for_argv(["--model", "local/m", "-p", "hello"], stdin_is_tty=True)
    assert thread is not None
    thread.join(30)
