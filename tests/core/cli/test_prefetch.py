from __future__ import annotations

import json
import subprocess
import sys
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
    assert guess_sdk(["--model", "openai-codex/gpt-6.2-sol"]) == "openai"


def test_guess_sdk_keeps_the_providers_api_under_a_base_url_override(agent_dir: Path) -> None:
    (agent_dir / "models.json").write_text('{"providers": {"openai-codex": {"baseUrl": "http://proxy"}}}')
    assert guess_sdk(["--model", "openai-codex/gpt-6.2-sol", "-p", "hi"]) == "openai"


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


def test_bare_model_pattern_only_without_a_provider() -> None:
    from pi_core.cli.prefetch import bare_model_pattern

    assert bare_model_pattern(["--model", "sonnet", "-p", "hi"]) == "sonnet"
    assert bare_model_pattern(["--model=opus:high"]) == "opus:high"
    assert bare_model_pattern(["--model", "anthropic/claude-opus-4-7"]) is None
    assert bare_model_pattern(["--provider", "openai", "--model", "gpt-4o"]) is None
    assert bare_model_pattern(["-p", "hi"]) is None


def test_sdk_for_model_pattern_uses_pi_resolver(agent_dir: Path) -> None:
    from pi_core.cli.prefetch import sdk_for_model_pattern

    assert guess_sdk(["--model", "sonnet"]) is None  # the cheap guess cannot tell
    assert sdk_for_model_pattern("sonnet") == "anthropic"
    assert sdk_for_model_pattern("opus:high") == "anthropic"
    assert sdk_for_model_pattern("gpt-4o") == "openai"
    assert sdk_for_model_pattern("no-such-model-anywhere") is None
    (agent_dir / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "mine": {
                        "baseUrl": "http://127.0.0.1:9",
                        "apiKey": "k",
                        "api": "anthropic-messages",
                        "models": [{"id": "zz-local"}],
                    }
                }
            }
        )
    )
    assert sdk_for_model_pattern("zz-local") == "anthropic"


def test_bare_pattern_is_resolved_in_the_background(agent_dir: Path) -> None:
    """prefetch_sdk itself imports no model module (the thread does); the thread loads the SDK."""
    script = (
        "import sys, threading\n"
        "threading.Thread.start = lambda self: None  # run the thread's work by hand below\n"
        "from pi_core.cli.prefetch import prefetch_sdk\n"
        "thread = prefetch_sdk(['--model', 'sonnet', '-p', 'hi'])\n"
        "heavy = ('pydantic', 'pi_core.ai.models', 'pi_core.ai.resolve', 'anthropic')\n"
        "print([m for m in heavy if m in sys.modules])\n"
        "thread.run()\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=90, check=True
    )
    assert result.stdout.splitlines() == [
        "[]",
        "['pydantic', 'pi_core.ai.models', 'pi_core.ai.resolve', 'anthropic']",
    ]
