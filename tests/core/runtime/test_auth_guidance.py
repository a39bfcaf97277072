from __future__ import annotations

import re
from pathlib import Path

from pi_core.runtime.auth_guidance import (
    docs_path,
    no_api_key_message,
    no_model_selected_message,
    oauth_failed_message,
)


def test_no_api_key_message_names_provider_or_selected_model() -> None:
    assert no_api_key_message("openai").startswith(
        "No API key found for openai.\n\nSave an API key with /login"
    )
    assert no_api_key_message("unknown").startswith("No API key found for the selected model.")
    assert f"See:\n  {docs_path() / 'providers.md'}\n\n" in no_api_key_message("x")


def test_login_help_points_at_docs_that_exist_and_cover_models_json() -> None:
    named = re.findall(r"^  (/\S+\.md)$", no_model_selected_message(), re.MULTILINE)
    assert named == [str(docs_path() / "providers.md")]
    text = Path(named[0]).read_text(encoding="utf-8")
    assert "## models.json: custom providers and models" in text
    assert '"modelOverrides"' in text and '"baseUrl"' in text


def test_no_model_selected_message_ends_with_model_hint() -> None:
    assert no_model_selected_message().startswith("No model selected.\n\n")
    assert no_model_selected_message().endswith("\n\nThen use /model to select a model.")


def test_oauth_failed_message() -> None:
    assert oauth_failed_message("anthropic") == (
        'Authentication failed for "anthropic". Credentials may have expired or network is unavailable. '
        "Run '/login anthropic' to re-authenticate."
    )


def test_no_api_key_message_says_where_a_key_can_come_from() -> None:
    assert no_api_key_message("anthropic").endswith(
        "\n\nSet ANTHROPIC_API_KEY or ANTHROPIC_OAUTH_TOKEN in the environment, or pass --api-key."
    )
    assert no_api_key_message("openai").endswith(
        "\n\nSet OPENAI_API_KEY in the environment, or pass --api-key."
    )
    assert no_api_key_message("my-host").endswith(
        '\n\nSet "apiKey" for provider "my-host" in models.json, or pass --api-key.'
    )
    assert "--api-key" not in no_api_key_message("unknown")
